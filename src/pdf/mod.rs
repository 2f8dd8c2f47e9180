//! Owns PDF documents: a small model (a heading with an optional logo, paragraphs, key
//! figures, tables whose numbers are right-aligned and whose header row repeats on every page
//! they span, line and bar charts of a daily series drawn as vector paths) and [`render`],
//! which lays it out on A4 pages and writes the bytes in-process with krilla, embedding a
//! subset of DejaVu Sans so English and Russian text both show and can be copied out.
//! The ground layer: it knows no reports, cabinets or languages; callers bring the words.

mod chart;
mod fonts;
mod layout;
mod page;
mod paint;

#[cfg(test)]
mod tests;

/// A document: its title (kept in the file's metadata) and its blocks, top to bottom.
#[derive(Debug, Clone, Default)]
pub struct Document {
    pub title: String,
    pub blocks: Vec<Block>,
}

/// One piece of a document, laid out below the previous one.
#[derive(Debug, Clone)]
pub enum Block {
    Heading(Heading),
    /// A bold line that opens a section.
    Subheading(String),
    /// Text wrapped to the page's width; `\n` starts a new line.
    Paragraph(String),
    /// Key figures side by side, up to three a row.
    Figures(Vec<Figure>),
    Table(Table),
    Chart(Chart),
}

/// The document's head: a title, a line under it, and a logo at the right.
#[derive(Debug, Clone)]
pub struct Heading {
    pub title: String,
    pub subtitle: Option<String>,
    /// A PNG or JPEG; one that cannot be read is left out rather than failing the document.
    pub logo: Option<Vec<u8>>,
}

/// A key figure: what it is, its value as shown, and an optional note (such as the change
/// against the previous period).
#[derive(Debug, Clone)]
pub struct Figure {
    pub label: String,
    pub value: String,
    pub note: Option<String>,
}

/// A table: its columns, its rows (cells as shown, one per column; missing cells are empty)
/// and an optional bold last row (totals).
#[derive(Debug, Clone)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<String>>,
    pub total: Option<Vec<String>>,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub title: String,
    pub align: Align,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    /// For numbers: their last digits line up.
    Right,
}

/// A chart of one series: a label (a day) and a value per point, in order.
#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    pub kind: ChartKind,
    pub points: Vec<(String, f64)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    Line,
    Bar,
}

/// Why a document could not be written (krilla refused it; not expected with the embedded
/// font, but not hidden either).
#[derive(Debug)]
pub struct PdfError(pub String);

impl std::fmt::Display for PdfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the PDF could not be written: {}", self.0)
    }
}

impl std::error::Error for PdfError {}

/// The document as PDF bytes.
pub fn render(doc: &Document) -> Result<Vec<u8>, PdfError> {
    let pages = layout::pages(doc);
    paint::write(&doc.title, &pages)
}
