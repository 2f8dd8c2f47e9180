//! The official Python `mcp` package's stdio client drives `adcab mcp` (`tests/mcp/client.py`):
//! initialize, list tools, read campaigns, pause one (checked through the API), a write refused
//! in read-only mode and one past the money cap. The package lives in a virtual environment
//! outside the tree (`.ci/run` makes it: `MCP_CLIENT_PYTHON`, else
//! `~/.cache/adcab-mcp-venv/bin/python`); without it the test says so and passes, except in CI
//! (`CI=true`), where it fails.

use std::path::PathBuf;
use std::process::Command;

use crate::helpers::spawn_app;

fn python() -> Option<PathBuf> {
    let path = std::env::var_os("MCP_CLIENT_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|home| PathBuf::from(home).join(".cache/adcab-mcp-venv/bin/python"))
        })?;
    let has_mcp = Command::new(&path)
        .args(["-c", "import mcp.client.stdio"])
        .output()
        .is_ok_and(|o| o.status.success());
    has_mcp.then_some(path)
}

#[test]
fn the_python_mcp_client_pauses_a_campaign_and_meets_the_guards() {
    let Some(python) = python() else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI installs the Python mcp package (.ci/run); it is missing"
        );
        eprintln!("skipped: the Python mcp package is not installed (see .ci/run)");
        return;
    };
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let config = app.dir.path().join("mcp-python.toml");
    std::fs::write(
        &config,
        format!(
            "[storage]\npath = \"{}\"\n[demo]\nbootstrap = false\n[sim]\nauto_review_seconds = 0\n",
            app.services.db.path().display()
        ),
    )
    .unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = Command::new(python)
        .arg(script)
        .env("ADCAB_BIN", env!("CARGO_BIN_EXE_adcab"))
        .env("ADCAB_CONFIG", &config)
        .env("ADCAB_KEY", &key)
        .env("ADCAB_AD", ad.to_string())
        .env("ADCAB_API", &app.base)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("11 passed, 0 failed"), "{stdout}");
}
