//! Renews the committed sample client report in `docs/samples/` (`client-report.pdf`,
//! `client-report-ru.pdf` and `client-report.xlsx`) from the demo workspace on a fixed service clock; a test
//! (`tests/it/samples.rs`) regenerates them and fails when the committed ones differ.
//!
//! Run: `cargo run --example sample_report -- docs/samples` (the argument is the folder).

#[path = "common/sample_report.rs"]
mod sample_report;

use std::path::PathBuf;

fn main() {
    let folder: PathBuf = std::env::args().nth(1).map_or_else(
        || {
            [env!("CARGO_MANIFEST_DIR"), "docs", "samples"]
                .iter()
                .collect()
        },
        PathBuf::from,
    );
    let written = sample_report::write(&folder);
    println!("{}", written.pdf.display());
    println!("{}", written.pdf_ru.display());
    println!("{}", written.xlsx.display());
}
