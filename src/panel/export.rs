//! Owns lists and reports as downloads: a table of named columns and typed cells, written as
//! CSV (UTF-8 with a header row, money as plain decimals, one column per figure) or XLSX, as
//! `?format=csv|xlsx` on the page's own URL asks, with the page's filters and sort.

use bytes::Bytes;
use hyper::StatusCode;
use maud::{html, Markup};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use rust_xlsxwriter::Workbook;

use super::{Visit, WebError};
use crate::http::Reply;

/// Rows a download may hold; a list larger than this is narrowed by its filters first.
pub const MAX_ROWS: usize = 100_000;

/// One cell of a download.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Int(i64),
    /// Money and ratios, written as plain decimals (`12.50`, no currency, no grouping).
    Decimal(Decimal),
    Empty,
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Text(s.to_string())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Text(s)
    }
}

impl From<i64> for Cell {
    fn from(n: i64) -> Self {
        Cell::Int(n)
    }
}

impl From<Decimal> for Cell {
    fn from(d: Decimal) -> Self {
        Cell::Decimal(d)
    }
}

/// A field of an API object as a cell: text and whole numbers as themselves, other numbers
/// as decimals, `true`/`false`, nothing for null, and an object or list as its JSON.
impl From<&serde_json::Value> for Cell {
    fn from(v: &serde_json::Value) -> Self {
        use serde_json::Value;
        match v {
            Value::Null => Cell::Empty,
            Value::String(s) => Cell::Text(s.clone()),
            Value::Bool(b) => Cell::Text(b.to_string()),
            Value::Number(n) => match (n.as_i64(), n.to_string().parse::<Decimal>()) {
                (Some(i), _) => Cell::Int(i),
                (None, Ok(d)) => Cell::Decimal(d),
                (None, Err(_)) => Cell::Text(n.to_string()),
            },
            Value::Array(_) | Value::Object(_) => Cell::Text(v.to_string()),
        }
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(v: Option<T>) -> Self {
        v.map_or(Cell::Empty, Into::into)
    }
}

/// A list or report as a download: `name` is the file's stem (`campaigns`), `columns` the
/// header row (the API's field names, the same in every language, so scripts can read it).
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub name: String,
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
}

/// A download format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Xlsx,
}

impl Format {
    /// The format the page's `?format=` asks for; `None` (or `html`) is the page itself.
    pub fn requested(visit: &Visit) -> Result<Option<Format>, WebError> {
        match visit.query.text("format") {
            None | Some("html") => Ok(None),
            Some("csv") => Ok(Some(Format::Csv)),
            Some("xlsx") => Ok(Some(Format::Xlsx)),
            Some(_) => Err(WebError::BadRequest(visit.t("export-unknown-format"))),
        }
    }
}

impl Table {
    /// The table as the download `format` names.
    pub fn reply(&self, format: Format) -> Result<Reply, WebError> {
        let (body, content_type, extension) = match format {
            Format::Csv => (Bytes::from(self.csv()), "text/csv; charset=utf-8", "csv"),
            Format::Xlsx => (
                Bytes::from(self.xlsx()?),
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                "xlsx",
            ),
        };
        let mut reply = Reply::raw(body, content_type).with_status(StatusCode::OK);
        reply.headers.extend([
            (
                "content-disposition".into(),
                format!("attachment; filename=\"{}.{extension}\"", self.name),
            ),
            ("cache-control".into(), "no-store".into()),
            ("x-content-type-options".into(), "nosniff".into()),
        ]);
        Ok(reply)
    }

    /// RFC 4180 CSV: a header row, CRLF line ends, fields quoted when they hold a comma, quote
    /// or line break. A text cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`
    /// first) gets a leading `'`.
    pub fn csv(&self) -> String {
        let mut out = String::new();
        let header: Vec<Cell> = self.columns.iter().map(|c| Cell::from(*c)).collect();
        for row in std::iter::once(&header).chain(&self.rows) {
            for (i, cell) in row.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match cell {
                    Cell::Text(s) => push_field(&mut out, s),
                    Cell::Int(n) => out.push_str(&n.to_string()),
                    Cell::Decimal(d) => out.push_str(&d.to_string()),
                    Cell::Empty => {}
                }
            }
            out.push_str("\r\n");
        }
        out
    }

    /// The table as an XLSX workbook of one sheet named by the table.
    pub fn xlsx(&self) -> Result<Vec<u8>, WebError> {
        let failed = |e: rust_xlsxwriter::XlsxError| {
            WebError::Store(crate::store::StoreError::Failed(format!("xlsx: {e}")))
        };
        let mut book = Workbook::new();
        let sheet = book.add_worksheet();
        sheet.set_name(&self.name).map_err(failed)?;
        for (c, name) in self.columns.iter().enumerate() {
            sheet.write_string(0, col(c), *name).map_err(failed)?;
        }
        for (r, row) in self.rows.iter().enumerate() {
            let r = u32::try_from(r + 1).unwrap_or(u32::MAX);
            for (c, cell) in row.iter().enumerate() {
                match cell {
                    Cell::Text(s) => sheet.write_string(r, col(c), s).map(|_| ()),
                    Cell::Int(n) => sheet.write_number(r, col(c), *n as f64).map(|_| ()),
                    Cell::Decimal(d) => sheet
                        .write_number(r, col(c), d.to_f64().unwrap_or(0.0))
                        .map(|_| ()),
                    Cell::Empty => Ok(()),
                }
                .map_err(failed)?;
            }
        }
        book.save_to_buffer().map_err(failed)
    }
}

/// The page's download links: its own URL (`path` with the page's query, filters and sort
/// kept) with `format=csv` and `format=xlsx`.
pub fn links(visit: &Visit, path: &str) -> Markup {
    let query = visit.query.without(&["format", "cursor", "page"]);
    let url = |format: &str| {
        let base = query.to_url(path);
        let join = if base.contains('?') { '&' } else { '?' };
        format!("{base}{join}format={format}")
    };
    html! {
        span.downloads {
            (visit.t("export-download")) " "
            a href=(url("csv")) download { (visit.t("export-csv")) }
            " · "
            a href=(url("xlsx")) download { (visit.t("export-xlsx")) }
        }
    }
}

fn col(c: usize) -> u16 {
    u16::try_from(c).unwrap_or(u16::MAX)
}

fn push_field(out: &mut String, s: &str) {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let quote = formula || s.contains([',', '"', '\r', '\n']);
    if quote {
        out.push('"');
    }
    if formula {
        out.push('\'');
    }
    out.push_str(&s.replace('"', "\"\""));
    if quote {
        out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            name: "campaigns".into(),
            columns: vec!["ad_id", "title", "spent"],
            rows: vec![
                vec![
                    Cell::Int(7),
                    "Winter, \"sale\"".into(),
                    Cell::Decimal("12.50".parse().unwrap()),
                ],
                vec![Cell::Int(8), "=HYPERLINK(1)".into(), Cell::Empty],
            ],
        }
    }

    #[test]
    fn csv_has_a_header_quotes_what_needs_it_and_disarms_formulas() {
        assert_eq!(
            table().csv(),
            "ad_id,title,spent\r\n7,\"Winter, \"\"sale\"\"\",12.50\r\n8,\"'=HYPERLINK(1)\",\r\n"
        );
    }

    #[test]
    fn an_api_field_becomes_its_cell() {
        let v =
            serde_json::json!({"n": 3, "d": 2.5, "t": "x", "b": true, "o": {"a": 1}, "z": null});
        assert_eq!(Cell::from(&v["n"]), Cell::Int(3));
        assert_eq!(Cell::from(&v["d"]), Cell::Decimal("2.5".parse().unwrap()));
        assert_eq!(Cell::from(&v["t"]), Cell::Text("x".into()));
        assert_eq!(Cell::from(&v["b"]), Cell::Text("true".into()));
        assert_eq!(Cell::from(&v["o"]), Cell::Text(r#"{"a":1}"#.into()));
        assert_eq!(Cell::from(&v["z"]), Cell::Empty);
        assert_eq!(Cell::from(&v["missing"]), Cell::Empty);
    }

    #[test]
    fn xlsx_is_a_zip_workbook() {
        let bytes = table().xlsx().unwrap();
        assert_eq!(&bytes[..2], b"PK");
        assert!(bytes.len() > 1000);
    }
}
