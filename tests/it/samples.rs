//! The committed sample client report (`docs/samples/client-report.pdf`, its
//! Russian `client-report-ru.pdf` and `client-report.xlsx`) is what
//! its generator (`examples/sample_report.rs`) writes today: both are written again into a
//! temporary folder and compared, the PDF by its extracted text (its bytes carry the time it
//! was written) and the workbook by its cells.

use std::path::{Path, PathBuf};

use calamine::{Data, Reader, Xlsx};

#[path = "../../examples/common/sample_report.rs"]
mod sample_report;

/// The text of a PDF, all pages.
fn pdf_text(path: &Path) -> String {
    let doc = lopdf::Document::load(path).expect("a PDF");
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    doc.extract_text(&pages).expect("its text")
}

/// A sheet's name and its cells, each as its row, column and value.
type Sheet = (String, Vec<(u32, u32, Data)>);

/// Every sheet of a workbook, each cell but the empty ones.
fn cells(path: &Path) -> Vec<Sheet> {
    let mut book: Xlsx<_> = calamine::open_workbook(path).expect("a workbook");
    book.worksheets()
        .into_iter()
        .map(|(name, range)| {
            let cells = range
                .cells()
                .filter(|(_, _, v)| **v != Data::Empty)
                .map(|(r, c, v)| (r as u32, c as u32, v.clone()))
                .collect();
            (name, cells)
        })
        .collect()
}

const AGAIN: &str =
    "the committed sample is stale: run `cargo run --example sample_report -- docs/samples`";

#[test]
fn the_committed_sample_report_pdf_and_xlsx_are_what_the_generator_writes_now() {
    let committed: PathBuf = [env!("CARGO_MANIFEST_DIR"), "docs", "samples"]
        .iter()
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let fresh = sample_report::write(dir.path());

    let text = pdf_text(&fresh.pdf);
    for expected in [
        "Northwind Media",
        "Demo EUR",
        "Demo: shop website",
        "Purchase",
    ] {
        assert!(text.contains(expected), "{expected} in the PDF: {text}");
    }
    assert_eq!(
        pdf_text(&committed.join("client-report.pdf")),
        text,
        "{AGAIN}"
    );

    let text_ru = pdf_text(&fresh.pdf_ru);
    for expected in ["Northwind Media", "Кампании", "Покупка"] {
        assert!(
            text_ru.contains(expected),
            "{expected} in the Russian PDF: {text_ru}"
        );
    }
    assert_eq!(
        pdf_text(&committed.join("client-report-ru.pdf")),
        text_ru,
        "{AGAIN}"
    );

    let sheets = cells(&fresh.xlsx);
    let values: Vec<&Data> = sheets[0].1.iter().map(|(_, _, v)| v).collect();
    for expected in ["campaign", "Demo: channel launch", "fee", "purchase"] {
        assert!(
            values.contains(&&Data::String(expected.into())),
            "{expected} in the workbook: {values:?}"
        );
    }
    assert_eq!(
        cells(&committed.join("client-report.xlsx")),
        sheets,
        "{AGAIN}"
    );
}
