//! Owns drawing a chart of one daily series as vector paths: a light grid with the values of
//! its lines at the left, the days under the axis (thinned so they never overlap), and the
//! series as a line with a dot per day or as bars.

use super::fonts::{self, Weight};
use super::page::{Op, Pages, ACCENT, CONTENT_W, INK, MARGIN, MUTED, RULE};
use super::{Chart, ChartKind};

const HEIGHT: f32 = 190.0;
const PLOT_H: f32 = 140.0;
const TICKS: usize = 4;

/// The top of the value axis: `max` rounded up to 1, 2, 2.5 or 5 times a power of ten, so the
/// grid lines fall on round values.
pub fn nice_top(max: f64) -> f64 {
    if !max.is_finite() || max <= 0.0 {
        return 1.0;
    }
    let step = max / TICKS as f64;
    let power = 10f64.powf(step.log10().floor());
    let nice = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= step)
        .unwrap_or(10.0 * power);
    nice * TICKS as f64
}

/// A grid value as shown: whole when it is, else with up to two decimals.
fn tick_label(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

pub fn place(p: &mut Pages, c: &Chart) {
    p.room(HEIGHT);
    let top = p.y;
    p.y += 14.0;
    let title = fonts::fit(Weight::Bold, 10.0, &c.title, CONTENT_W);
    p.text(MARGIN, p.y, 10.0, Weight::Bold, INK, &title);
    let plot_top = p.y + 10.0;
    let plot_bottom = plot_top + PLOT_H;
    let values = c
        .points
        .iter()
        .map(|(_, v)| if v.is_finite() { *v } else { 0.0 });
    let top_value = nice_top(values.fold(0.0, f64::max));
    let labels: Vec<String> = (0..=TICKS)
        .map(|i| tick_label(top_value * i as f64 / TICKS as f64))
        .collect();
    let label_w = labels
        .iter()
        .map(|l| fonts::width(Weight::Regular, 7.0, l))
        .fold(0.0, f32::max);
    let left = MARGIN + label_w + 6.0;
    let right = MARGIN + CONTENT_W;
    for (i, label) in labels.iter().enumerate() {
        let y = plot_bottom - PLOT_H * i as f32 / TICKS as f32;
        p.push(Op::Line {
            points: vec![(left, y), (right, y)],
            width: if i == 0 { 0.75 } else { 0.4 },
            color: RULE,
        });
        let x = left - 4.0 - fonts::width(Weight::Regular, 7.0, label);
        p.text(x, y + 2.5, 7.0, Weight::Regular, MUTED, label);
    }
    let n = c.points.len();
    if n > 0 {
        let slot = (right - left) / n as f32;
        let y_of = |v: f64| {
            let v = if v.is_finite() { v.max(0.0) } else { 0.0 };
            plot_bottom - (v / top_value) as f32 * PLOT_H
        };
        let centre = |i: usize| left + slot * (i as f32 + 0.5);
        match c.kind {
            ChartKind::Bar => {
                for (i, (_, v)) in c.points.iter().enumerate() {
                    let y = y_of(*v);
                    let w = slot * 0.7;
                    p.push(Op::Rect {
                        x: centre(i) - w / 2.0,
                        y,
                        w,
                        h: plot_bottom - y,
                        color: ACCENT,
                    });
                }
            }
            ChartKind::Line => {
                let points: Vec<(f32, f32)> = c
                    .points
                    .iter()
                    .enumerate()
                    .map(|(i, (_, v))| (centre(i), y_of(*v)))
                    .collect();
                for (x, y) in &points {
                    p.push(Op::Rect {
                        x: x - 1.5,
                        y: y - 1.5,
                        w: 3.0,
                        h: 3.0,
                        color: ACCENT,
                    });
                }
                if points.len() > 1 {
                    p.push(Op::Line {
                        points,
                        width: 1.5,
                        color: ACCENT,
                    });
                }
            }
        }
        // Day labels, thinned to every k-th so that they keep apart.
        let widest = c
            .points
            .iter()
            .map(|(l, _)| fonts::width(Weight::Regular, 7.0, l))
            .fold(0.0, f32::max);
        let every = ((widest + 6.0) / slot).ceil().max(1.0) as usize;
        for (i, (label, _)) in c.points.iter().enumerate() {
            if i % every == 0 {
                let x = centre(i) - fonts::width(Weight::Regular, 7.0, label) / 2.0;
                p.text(x, plot_bottom + 11.0, 7.0, Weight::Regular, MUTED, label);
            }
        }
    }
    p.y = top + HEIGHT;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_top_is_a_round_value_above_the_largest() {
        assert_eq!(nice_top(0.0), 1.0);
        assert_eq!(nice_top(37.0), 40.0);
        assert_eq!(nice_top(101.0), 200.0);
        assert_eq!(nice_top(9.0), 10.0);
        assert_eq!(tick_label(2.5), "2.5");
        assert_eq!(tick_label(40.0), "40");
    }
}
