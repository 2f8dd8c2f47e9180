//! Owns placing a document's blocks on A4 pages: where each line, cell, box and chart goes,
//! and where a page ends (a table continues on the next page under its header row again).
//! The result is a list of drawing operations per page; `paint` turns them into PDF.

use super::fonts::{self, Weight};
use super::page::{Op, Pages, BOTTOM, CONTENT_W, INK, MARGIN, MUTED, RULE, SHADE};
use super::{chart, Align, Block, Document, Figure, Heading, Table};

/// The pages of `doc`, each a list of operations.
pub fn pages(doc: &Document) -> Vec<Vec<Op>> {
    let mut p = Pages::new();
    for block in &doc.blocks {
        match block {
            Block::Heading(h) => heading(&mut p, h),
            Block::Subheading(text) => {
                p.room(40.0);
                p.y += 12.0;
                let lines = fonts::wrap(Weight::Bold, 12.0, text, CONTENT_W);
                for line in lines {
                    p.y += 15.0;
                    p.text(MARGIN, p.y, 12.0, Weight::Bold, INK, &line);
                }
                p.y += 8.0;
            }
            Block::Paragraph(text) => {
                for line in fonts::wrap(Weight::Regular, 10.0, text, CONTENT_W) {
                    p.room(14.0);
                    p.y += 14.0;
                    p.text(MARGIN, p.y, 10.0, Weight::Regular, INK, &line);
                }
                p.y += 6.0;
            }
            Block::Figures(list) => figures(&mut p, list),
            Block::Table(t) => table(&mut p, t),
            Block::Chart(c) => chart::place(&mut p, c),
        }
    }
    p.pages
}

fn heading(p: &mut Pages, h: &Heading) {
    p.room(60.0);
    let top = p.y;
    let logo = h.logo.as_deref().and_then(logo_image);
    let mut room = CONTENT_W;
    let mut bottom = top;
    if let Some(image) = logo {
        let (iw, ih) = image.size();
        let (iw, ih) = (iw.max(1) as f32, ih.max(1) as f32);
        let scale = (40.0 / ih).min(120.0 / iw);
        let (w, h) = (iw * scale, ih * scale);
        p.push(Op::Image {
            x: MARGIN + CONTENT_W - w,
            y: top,
            w,
            h,
            image,
        });
        room -= w + 12.0;
        bottom = top + h;
    }
    let mut y = top;
    for line in fonts::wrap(Weight::Bold, 18.0, &h.title, room) {
        y += 20.0;
        p.text(MARGIN, y, 18.0, Weight::Bold, INK, &line);
    }
    if let Some(sub) = &h.subtitle {
        for line in fonts::wrap(Weight::Regular, 10.0, sub, room) {
            y += 15.0;
            p.text(MARGIN, y, 10.0, Weight::Regular, MUTED, &line);
        }
    }
    p.y = y.max(bottom) + 10.0;
    p.push(Op::Line {
        points: vec![(MARGIN, p.y), (MARGIN + CONTENT_W, p.y)],
        width: 0.75,
        color: RULE,
    });
    p.y += 10.0;
}

/// A PNG or JPEG as krilla reads it; `None` for anything else.
fn logo_image(bytes: &[u8]) -> Option<krilla::image::Image> {
    let data = krilla::Data::from(bytes.to_vec());
    if bytes.starts_with(b"\x89PNG") {
        krilla::image::Image::from_png(data, true).ok()
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        krilla::image::Image::from_jpeg(data, true).ok()
    } else {
        None
    }
}

const FIGURE_H: f32 = 54.0;
const GAP: f32 = 10.0;

fn figures(p: &mut Pages, list: &[Figure]) {
    for row in list.chunks(3) {
        p.room(FIGURE_H + GAP);
        let n = row.len().max(1) as f32;
        let w = (CONTENT_W - GAP * (n - 1.0)) / n;
        for (i, f) in row.iter().enumerate() {
            let x = MARGIN + i as f32 * (w + GAP);
            let top = p.y;
            p.push(Op::Rect {
                x,
                y: top,
                w,
                h: FIGURE_H,
                color: SHADE,
            });
            let inner = w - 16.0;
            let label = fonts::fit(Weight::Regular, 8.0, &f.label, inner);
            p.text(x + 8.0, top + 14.0, 8.0, Weight::Regular, MUTED, &label);
            let mut size = 15.0;
            while size > 8.0 && fonts::width(Weight::Bold, size, &f.value) > inner {
                size -= 1.0;
            }
            let value = fonts::fit(Weight::Bold, size, &f.value, inner);
            p.text(x + 8.0, top + 33.0, size, Weight::Bold, INK, &value);
            if let Some(note) = &f.note {
                let note = fonts::fit(Weight::Regular, 8.0, note, inner);
                p.text(x + 8.0, top + 47.0, 8.0, Weight::Regular, MUTED, &note);
            }
        }
        p.y += FIGURE_H + GAP;
    }
}

const CELL_PAD: f32 = 4.0;
const ROW_H: f32 = 15.0;

/// Column widths and the font size that make the table fit the content width: natural widths
/// at 8.5 pt, a smaller size (down to 6.5 pt) when they do not fit, then text columns narrowed
/// (their cells cut) when even that does not; room left over widens the text columns.
fn columns(t: &Table) -> (f32, Vec<f32>) {
    let n = t.columns.len();
    let natural = |size: f32| -> Vec<f32> {
        (0..n)
            .map(|i| {
                let head = fonts::width(Weight::Bold, size, &t.columns[i].title);
                let cells = t.rows.iter().chain(t.total.iter()).map(|r| {
                    let text = r.get(i).map(String::as_str).unwrap_or("");
                    fonts::width(Weight::Bold, size, text)
                });
                // A hair over the widest text, so that the padding taken off again in `row`
                // (a float sum and difference) never leaves it a rounding short of fitting.
                // A hair over the widest text, so that the padding taken off again in `row`
                // (a float sum and difference) never leaves it a rounding short of fitting.
                cells.fold(head, f32::max) + 2.0 * CELL_PAD + 0.01
            })
            .collect()
    };
    let mut size = 8.5;
    let mut widths = natural(size);
    let total: f32 = widths.iter().sum();
    if total > CONTENT_W {
        size = (size * CONTENT_W / total).max(6.5);
        widths = natural(size);
    }
    let is_text = |i: usize| t.columns[i].align == Align::Left;
    let numbers: f32 = (0..n).filter(|&i| !is_text(i)).map(|i| widths[i]).sum();
    let texts: f32 = (0..n).filter(|&i| is_text(i)).map(|i| widths[i]).sum();
    let total = numbers + texts;
    if texts > 0.0 && (total - CONTENT_W).abs() > 0.01 {
        let room = (CONTENT_W - numbers).max(0.0);
        for (i, w) in widths.iter_mut().enumerate() {
            if is_text(i) {
                *w = room * *w / texts;
            }
        }
    }
    (size, widths)
}

fn row(p: &mut Pages, t: &Table, cells: &[String], size: f32, widths: &[f32], weight: Weight) {
    let mut x = MARGIN;
    let baseline = p.y + ROW_H - 4.5;
    for (i, w) in widths.iter().enumerate() {
        let text = cells.get(i).map(String::as_str).unwrap_or("");
        let text = fonts::fit(weight, size, text, w - 2.0 * CELL_PAD);
        let left = match t.columns[i].align {
            Align::Left => x + CELL_PAD,
            Align::Right => x + w - CELL_PAD - fonts::width(weight, size, &text),
        };
        p.text(left, baseline, size, weight, INK, &text);
        x += w;
    }
}

fn header(p: &mut Pages, t: &Table, size: f32, widths: &[f32]) {
    p.push(Op::Rect {
        x: MARGIN,
        y: p.y,
        w: widths.iter().sum(),
        h: ROW_H,
        color: SHADE,
    });
    let titles: Vec<String> = t.columns.iter().map(|c| c.title.clone()).collect();
    row(p, t, &titles, size, widths, Weight::Bold);
    p.y += ROW_H;
}

fn rule(p: &mut Pages, widths: &[f32]) {
    p.push(Op::Line {
        points: vec![(MARGIN, p.y), (MARGIN + widths.iter().sum::<f32>(), p.y)],
        width: 0.5,
        color: RULE,
    });
}

fn table(p: &mut Pages, t: &Table) {
    if t.columns.is_empty() {
        return;
    }
    let (size, widths) = columns(t);
    // The header never stands alone at the foot of a page.
    p.room(3.0 * ROW_H);
    header(p, t, size, &widths);
    for cells in &t.rows {
        if p.y + ROW_H > BOTTOM {
            p.new_page();
            header(p, t, size, &widths);
        }
        row(p, t, cells, size, &widths, Weight::Regular);
        p.y += ROW_H;
        rule(p, &widths);
    }
    if let Some(total) = &t.total {
        if p.y + ROW_H > BOTTOM {
            p.new_page();
            header(p, t, size, &widths);
        }
        row(p, t, total, size, &widths, Weight::Bold);
        p.y += ROW_H;
        rule(p, &widths);
    }
    p.y += 12.0;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::Column;

    /// The client report's campaign table in Russian, its figures varied so that the font
    /// size it is shrunk to runs through many values.
    fn campaigns(spend: u32) -> Table {
        let number = |title: &str| Column {
            title: title.into(),
            align: Align::Right,
        };
        let mut columns = vec![Column {
            title: "Кампания".into(),
            align: Align::Left,
        }];
        columns.extend(
            [
                "Расход",
                "Показы",
                "Клики",
                "CTR",
                "CPM",
                "Действия",
                "Конверсии",
                "Выручка",
                "CPA",
                "ROAS",
            ]
            .map(number),
        );
        let cells = |name: &str| {
            let mut row = vec![name.to_string(), format!("{spend},24 EUR")];
            row.extend(
                [
                    "178 118", "6 817", "3,83", "2,00", "1 557", "31", "322,00", "0,23", "0,90",
                ]
                .map(String::from),
            );
            row
        };
        Table {
            columns,
            rows: vec![cells("Demo: channel launch"), cells("Demo: shop website")],
            total: Some(cells("Все кампании")),
        }
    }

    #[test]
    fn a_column_whose_title_is_its_widest_text_shows_the_title_whole() {
        for spend in (1..2_000_000).step_by(997) {
            let t = campaigns(spend);
            let (size, widths) = columns(&t);
            for (column, w) in t.columns.iter().zip(&widths).skip(1) {
                let shown = fonts::fit(Weight::Bold, size, &column.title, w - 2.0 * CELL_PAD);
                assert_eq!(shown, column.title, "at {size} pt in {w} pt");
            }
        }
    }
}
