//! Owns the embedded typeface (DejaVu Sans, regular and bold: Latin, Cyrillic and the digits
//! of every figure; its licence is `fonts/LICENSE`) and the measuring of a line's width, which
//! layout needs to wrap paragraphs and right-align numbers. Kerning is left out of the measure;
//! DejaVu Sans does not kern digits, so right-aligned figures line up exactly.

use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, GlyphId, MetadataProvider};

pub static REGULAR: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
pub static BOLD: &[u8] = include_bytes!("fonts/DejaVuSans-Bold.ttf");

/// The two weights the layout uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    Regular,
    Bold,
}

impl Weight {
    pub fn data(self) -> &'static [u8] {
        match self {
            Weight::Regular => REGULAR,
            Weight::Bold => BOLD,
        }
    }
}

/// The width of `text` set in `weight` at `size` points; a character the font lacks counts as
/// the font's missing-glyph box, as it will be drawn.
pub fn width(weight: Weight, size: f32, text: &str) -> f32 {
    let Ok(font) = FontRef::new(weight.data()) else {
        return 0.0;
    };
    let upem = font
        .metrics(Size::unscaled(), LocationRef::default())
        .units_per_em;
    let charmap = font.charmap();
    let metrics = font.glyph_metrics(Size::unscaled(), LocationRef::default());
    let units: f32 = text
        .chars()
        .map(|c| {
            let glyph = charmap.map(c).unwrap_or(GlyphId::NOTDEF);
            metrics.advance_width(glyph).unwrap_or(0.0)
        })
        .sum();
    units / f32::from(upem.max(1)) * size
}

/// `text` cut to fit `room` points, ending in "…" when cut.
pub fn fit(weight: Weight, size: f32, text: &str, room: f32) -> String {
    if width(weight, size, text) <= room {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let cut: String = chars.iter().collect::<String>() + "…";
        if width(weight, size, &cut) <= room {
            return cut;
        }
    }
    String::new()
}

/// Splits `text` into lines no wider than `room` at spaces (a word wider than the line is cut).
pub fn wrap(weight: Weight, size: f32, text: &str, room: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            let candidate = if line.is_empty() {
                word.to_string()
            } else {
                format!("{line} {word}")
            };
            if line.is_empty() || width(weight, size, &candidate) <= room {
                line = candidate;
            } else {
                lines.push(std::mem::take(&mut line));
                line = word.to_string();
            }
            if width(weight, size, &line) > room {
                line = fit(weight, size, &line, room);
            }
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cyrillic_and_latin_have_widths_and_digits_are_even() {
        assert!(width(Weight::Regular, 10.0, "Расход") > 20.0);
        assert!(width(Weight::Regular, 10.0, "Spend") > 20.0);
        let one = width(Weight::Regular, 10.0, "1111");
        let eight = width(Weight::Regular, 10.0, "8888");
        assert!((one - eight).abs() < 0.01, "{one} vs {eight}");
        assert!(width(Weight::Bold, 10.0, "Spend") > width(Weight::Regular, 10.0, "Spend"));
    }

    #[test]
    fn wrap_keeps_lines_in_the_room_and_fit_cuts_with_an_ellipsis() {
        let text = "Показы и клики за неделю по всем кампаниям кабинета агентства";
        let lines = wrap(Weight::Regular, 10.0, text, 120.0);
        assert!(lines.len() > 2, "{lines:?}");
        assert!(lines
            .iter()
            .all(|l| width(Weight::Regular, 10.0, l) <= 120.0));
        assert_eq!(lines.join(" "), text);
        let cut = fit(Weight::Regular, 10.0, text, 60.0);
        assert!(cut.ends_with('…') && width(Weight::Regular, 10.0, &cut) <= 60.0);
    }
}
