//! Tests of the whole: documents rendered and parsed back with lopdf, their text extracted.

use super::*;

/// The text of every page, in order.
pub fn text_of(pdf: &[u8]) -> Vec<String> {
    let doc = lopdf::Document::load_mem(pdf).expect("a PDF lopdf reads");
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    pages
        .iter()
        .map(|n| doc.extract_text(&[*n]).expect("text extracted"))
        .collect()
}

fn sample(rows: usize) -> Document {
    let columns = ["Кампания", "Расход", "Показы", "Клики"];
    let columns = columns.iter().enumerate().map(|(i, t)| Column {
        title: t.to_string(),
        align: if i == 0 { Align::Left } else { Align::Right },
    });
    Document {
        title: "Отчёт".into(),
        blocks: vec![
            Block::Heading(Heading {
                title: "Отчёт для клиента — Weekly report".into(),
                subtitle: Some("16.11.2026 – 22.11.2026".into()),
                logo: None,
            }),
            Block::Figures(vec![
                Figure {
                    label: "Расход".into(),
                    value: "1234.56 EUR".into(),
                    note: Some("+12.5%".into()),
                },
                Figure {
                    label: "Views".into(),
                    value: "98765".into(),
                    note: None,
                },
            ]),
            Block::Chart(Chart {
                title: "Расход по дням".into(),
                kind: ChartKind::Line,
                points: (1..=7)
                    .map(|d| (format!("{d}.11"), d as f64 * 3.5))
                    .collect(),
            }),
            Block::Paragraph("Spend to the client includes the agency's fee.".into()),
            Block::Table(Table {
                columns: columns.collect(),
                rows: (0..rows)
                    .map(|i| {
                        vec![
                            format!("Кампания номер {i}"),
                            format!("{}.00", 100 + i),
                            format!("{}", 5000 + i),
                            format!("{}", 40 + i),
                        ]
                    })
                    .collect(),
                total: Some(vec![
                    "Итого".into(),
                    "777.00".into(),
                    "1".into(),
                    "2".into(),
                ]),
            }),
        ],
    }
}

#[test]
fn english_and_russian_text_and_the_figures_read_back() {
    let pdf = render(&sample(3)).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let pages = text_of(&pdf);
    assert_eq!(pages.len(), 1);
    let text = &pages[0];
    for want in [
        "Отчёт для клиента",
        "Weekly report",
        "1234.56 EUR",
        "+12.5%",
        "98765",
        "Кампания номер 2",
        "102.00",
        "Итого",
        "Расход по дням",
        "agency's fee",
    ] {
        assert!(text.contains(want), "{want:?} missing from {text}");
    }
}

#[test]
fn a_long_table_spans_pages_with_its_header_on_each() {
    let pdf = render(&sample(120)).unwrap();
    let pages = text_of(&pdf);
    assert!(pages.len() >= 3, "{} pages", pages.len());
    for (i, page) in pages.iter().enumerate().skip(1) {
        assert!(
            page.contains("Показы"),
            "no header on page {}: {page}",
            i + 1
        );
    }
    let all = pages.concat();
    for i in [0, 60, 119] {
        assert!(all.contains(&format!("Кампания номер {i}")), "row {i} lost");
    }
    assert!(pages.last().unwrap().contains("Итого"));
}

#[test]
fn numbers_are_right_aligned_and_a_bad_logo_is_left_out() {
    let mut doc = sample(2);
    if let Some(Block::Heading(h)) = doc.blocks.first_mut() {
        h.logo = Some(b"not an image".to_vec());
    }
    let ops = layout::pages(&doc);
    let ends: Vec<f32> = ops[0]
        .iter()
        .filter_map(|op| match op {
            page::Op::Text {
                x,
                size,
                weight,
                text,
                ..
            } if text.ends_with(".00") => Some(x + fonts::width(*weight, *size, text)),
            _ => None,
        })
        .collect();
    assert!(ends.len() >= 3);
    assert!(ends.iter().all(|e| (e - ends[0]).abs() < 0.01), "{ends:?}");
    assert!(render(&doc).is_ok());
}

#[test]
fn a_png_logo_is_drawn() {
    let mut png = Vec::new();
    // A 2x1 PNG, one red and one blue pixel.
    png.extend_from_slice(&[
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x7B,
        0x40, 0xE8, 0xDD, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8,
        0xCF, 0x00, 0x04, 0xFF, 0x01, 0x07, 0x00, 0x01, 0xFF, 0xE2, 0x23, 0x9E, 0x59, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]);
    let mut doc = sample(1);
    if let Some(Block::Heading(h)) = doc.blocks.first_mut() {
        h.logo = Some(png);
    }
    let ops = layout::pages(&doc);
    assert!(ops[0].iter().any(|op| matches!(op, page::Op::Image { .. })));
    let pdf = render(&doc).unwrap();
    let parsed = lopdf::Document::load_mem(&pdf).unwrap();
    let images = parsed.objects.values().filter(|o| {
        o.as_stream().is_ok_and(|s| {
            s.dict
                .get(b"Subtype")
                .is_ok_and(|t| t.as_name().ok() == Some(b"Image".as_slice()))
        })
    });
    assert_eq!(images.count(), 1);
}
