//! Owns the panel's charts: series of buckets drawn as bars in server-rendered SVG, one small
//! panel per series with its own scale (no script, nothing to download).

use maud::{html, Markup};

/// One series: its name, its CSS class (the colour), and a value per bucket.
pub struct Series<'a> {
    pub name: &'a str,
    pub class: &'a str,
    pub values: Vec<f64>,
    /// How the largest value is written under the name.
    pub peak: String,
}

const WIDTH: f64 = 720.0;
const PANEL: f64 = 64.0;
const GAP: f64 = 22.0;

/// The series as stacked bar panels over the same buckets, labelled under the last panel by
/// the first and last bucket's names.
pub fn bars(series: &[Series], first: &str, last: &str) -> Markup {
    let height = (PANEL + GAP) * series.len() as f64 + 16.0;
    html! {
        svg.chart viewBox={ "0 0 " (WIDTH) " " (height) } role="img" aria-label="Hourly chart" {
            @for (i, s) in series.iter().enumerate() {
                @let top = i as f64 * (PANEL + GAP) + GAP;
                text x="6" y=(top - 6.0) { (s.name) " · peak " (s.peak) }
                line.axis x1="0" x2=(WIDTH) y1=(top + PANEL) y2=(top + PANEL) {}
                @let max = s.values.iter().cloned().fold(0.0, f64::max);
                @let step = WIDTH / s.values.len().max(1) as f64;
                g class=(s.class) fill="currentColor" {
                    @for (j, v) in s.values.iter().enumerate() {
                        @if *v > 0.0 && max > 0.0 {
                            @let h = (v / max * PANEL).max(1.0);
                            rect x=(format!("{:.1}", j as f64 * step + step * 0.1))
                                y=(format!("{:.1}", top + PANEL - h))
                                width=(format!("{:.1}", (step * 0.8).max(0.5)))
                                height=(format!("{h:.1}")) {}
                        }
                    }
                }
            }
            text x="6" y=(height - 2.0) { (first) }
            text x=(WIDTH - 6.0) y=(height - 2.0) text-anchor="end" { (last) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_nonzero_bucket_is_a_bar_scaled_to_its_series_peak() {
        let svg = bars(
            &[Series {
                name: "Views",
                class: "s-views",
                values: vec![0.0, 5.0, 10.0],
                peak: "10".into(),
            }],
            "a",
            "b",
        )
        .into_string();
        assert_eq!(svg.matches("<rect").count(), 2, "{svg}");
        assert!(
            svg.contains(&format!("height=\"{PANEL:.1}\"")),
            "the peak fills the panel: {svg}"
        );
        assert!(svg.contains("Views · peak 10"), "{svg}");
    }
}
