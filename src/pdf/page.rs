//! Owns an A4 page as `layout` and `chart` fill it: its size, margins and colours, the drawing
//! operations `paint` turns into PDF, and the pages being filled with the cursor on the last.

use super::fonts::Weight;

pub const PAGE_W: f32 = 595.0;
pub const PAGE_H: f32 = 842.0;
pub const MARGIN: f32 = 42.0;
pub const CONTENT_W: f32 = PAGE_W - 2.0 * MARGIN;
pub const BOTTOM: f32 = PAGE_H - MARGIN;

pub type Rgb = (u8, u8, u8);
pub const INK: Rgb = (33, 37, 41);
pub const MUTED: Rgb = (108, 117, 125);
pub const RULE: Rgb = (206, 212, 218);
pub const SHADE: Rgb = (241, 243, 245);
pub const ACCENT: Rgb = (34, 139, 230);

/// One drawing operation; coordinates in points from the page's top-left corner, `y` of a
/// text being its baseline.
#[derive(Debug, Clone)]
pub enum Op {
    Text {
        x: f32,
        y: f32,
        size: f32,
        weight: Weight,
        color: Rgb,
        text: String,
    },
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        color: Rgb,
    },
    /// An open polyline.
    Line {
        points: Vec<(f32, f32)>,
        width: f32,
        color: Rgb,
    },
    Image {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        image: krilla::image::Image,
    },
}

/// The pages being filled, and the cursor on the last one.
pub struct Pages {
    pub pages: Vec<Vec<Op>>,
    pub y: f32,
}

impl Pages {
    pub fn new() -> Pages {
        Pages {
            pages: vec![Vec::new()],
            y: MARGIN,
        }
    }

    pub fn push(&mut self, op: Op) {
        if let Some(page) = self.pages.last_mut() {
            page.push(op);
        }
    }

    pub fn text(&mut self, x: f32, y: f32, size: f32, weight: Weight, color: Rgb, text: &str) {
        self.push(Op::Text {
            x,
            y,
            size,
            weight,
            color,
            text: text.to_string(),
        });
    }

    pub fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = MARGIN;
    }

    /// Starts a new page unless `height` more points fit on this one (a block taller than a
    /// page starts on a fresh one and runs over its end).
    pub fn room(&mut self, height: f32) {
        if self.y + height > BOTTOM && self.y > MARGIN {
            self.new_page();
        }
    }
}
