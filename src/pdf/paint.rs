//! Owns writing laid-out pages as PDF with krilla: text in the embedded font (krilla subsets
//! it to the glyphs used and adds the map back to Unicode, so the text can be searched and
//! copied), filled rectangles, stroked lines and the logo image.

use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect, Size};
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, LineCap, LineJoin, Stroke};
use krilla::text::{Font, TextDirection};

use super::fonts::Weight;
use super::page::{Op, Rgb, PAGE_H, PAGE_W};
use super::PdfError;

fn paint((r, g, b): Rgb) -> krilla::paint::Paint {
    rgb::Color::new(r, g, b).into()
}

pub fn write(title: &str, pages: &[Vec<Op>]) -> Result<Vec<u8>, PdfError> {
    let font = |w: Weight| {
        Font::new(krilla::Data::from(w.data()), 0)
            .ok_or_else(|| PdfError("the embedded font cannot be read".into()))
    };
    let (regular, bold) = (font(Weight::Regular)?, font(Weight::Bold)?);
    let settings = PageSettings::from_wh(PAGE_W, PAGE_H)
        .ok_or_else(|| PdfError("the page size is not valid".into()))?;
    let mut document = krilla::Document::new();
    document.set_metadata(krilla::metadata::Metadata::new().title(title.to_string()));
    for ops in pages {
        let mut page = document.start_page_with(settings.clone());
        let mut surface = page.surface();
        for op in ops {
            match op {
                Op::Text {
                    x,
                    y,
                    size,
                    weight,
                    color,
                    text,
                } => {
                    surface.set_stroke(None);
                    surface.set_fill(Some(Fill {
                        paint: paint(*color),
                        ..Fill::default()
                    }));
                    let font = match weight {
                        Weight::Regular => regular.clone(),
                        Weight::Bold => bold.clone(),
                    };
                    let at = Point::from_xy(*x, *y);
                    surface.draw_text(at, font, *size, text, false, TextDirection::Auto);
                }
                Op::Rect { x, y, w, h, color } => {
                    let Some(rect) = Rect::from_xywh(*x, *y, *w, *h) else {
                        continue;
                    };
                    let mut pb = PathBuilder::new();
                    pb.push_rect(rect);
                    let Some(path) = pb.finish() else { continue };
                    surface.set_stroke(None);
                    surface.set_fill(Some(Fill {
                        paint: paint(*color),
                        ..Fill::default()
                    }));
                    surface.draw_path(&path);
                }
                Op::Line {
                    points,
                    width,
                    color,
                } => {
                    let mut pb = PathBuilder::new();
                    let mut iter = points.iter();
                    let Some((x0, y0)) = iter.next() else {
                        continue;
                    };
                    pb.move_to(*x0, *y0);
                    for (x, y) in iter {
                        pb.line_to(*x, *y);
                    }
                    let Some(path) = pb.finish() else { continue };
                    surface.set_fill(None);
                    surface.set_stroke(Some(Stroke {
                        paint: paint(*color),
                        width: *width,
                        line_cap: LineCap::Round,
                        line_join: LineJoin::Round,
                        opacity: NormalizedF32::ONE,
                        ..Stroke::default()
                    }));
                    surface.draw_path(&path);
                    surface.set_stroke(None);
                }
                Op::Image { x, y, w, h, image } => {
                    let Some(size) = Size::from_wh(*w, *h) else {
                        continue;
                    };
                    surface.push_transform(&krilla::geom::Transform::from_translate(*x, *y));
                    surface.draw_image(image.clone(), size);
                    surface.pop();
                }
            }
        }
        surface.finish();
        page.finish();
    }
    document.finish().map_err(|e| PdfError(format!("{e:?}")))
}
