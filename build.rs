//! Records the commit the binary is built from, for `adcab --version`: `ADCAB_COMMIT` when the
//! builder sets it (a release built from a source archive), else git's short hash of HEAD, else
//! "unknown".

use std::process::Command;

fn main() {
    let commit = std::env::var("ADCAB_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| {
            Command::new("git")
                .args(["rev-parse", "--short=12", "HEAD"])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .and_then(|o| String::from_utf8(o.stdout).ok())
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=ADCAB_COMMIT={commit}");
    println!("cargo:rerun-if-env-changed=ADCAB_COMMIT");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs");
    println!("cargo:rerun-if-changed=.git/packed-refs");
}
