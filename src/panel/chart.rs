//! Owns the panel's charts: series of buckets drawn as bars in server-rendered SVG, one small
//! panel per series with its own scale (no script, nothing to download). Each panel has axes:
//! a value scale on the left (zero, half and the peak) and bucket names under the last panel;
//! each bar is focusable and carries its bucket and value as a `<title>`, which browsers show
//! on hover and screen readers on focus.

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
/// Room on the left for the value scale.
const LEFT: f64 = 64.0;
/// Bucket names under the last panel, at most this many (evenly spread).
const MAX_TICKS: usize = 8;

/// The series as stacked bar panels over the same buckets, labelled under the last panel by
/// the first and last bucket's names; `title` names the chart for screen readers,
/// `peak_word` comes before each series' peak, and a value is written by
/// `value(series index, value)` (in the reader's language).
pub fn bars(
    series: &[Series],
    first: &str,
    last: &str,
    title: &str,
    peak_word: &str,
    value: &dyn Fn(usize, f64) -> String,
) -> Markup {
    let buckets = series.iter().map(|s| s.values.len()).max().unwrap_or(0);
    let mut labels = vec![String::new(); buckets];
    if let Some(l) = labels.first_mut() {
        *l = first.to_string();
    }
    if buckets > 1 {
        if let Some(l) = labels.last_mut() {
            *l = last.to_string();
        }
    }
    draw(series, &labels, title, peak_word, value)
}

/// The series as stacked bar panels over buckets named by `labels` (one per bucket; an empty
/// name is left off the axis), each bar's value written by `value(series index, value)`;
/// `title` names the chart for screen readers.
pub fn with_axes(
    series: &[Series],
    labels: &[String],
    title: &str,
    value: &dyn Fn(usize, f64) -> String,
) -> Markup {
    draw(series, labels, title, "", value)
}

/// The chart; `peak_word` comes before each series' peak beside its name.
fn draw(
    series: &[Series],
    labels: &[String],
    title: &str,
    peak_word: &str,
    value: &dyn Fn(usize, f64) -> String,
) -> Markup {
    let height = (PANEL + GAP) * series.len() as f64 + 18.0;
    let plot = WIDTH - LEFT;
    let buckets = labels
        .len()
        .max(series.iter().map(|s| s.values.len()).max().unwrap_or(0));
    let step = plot / buckets.max(1) as f64;
    let named: Vec<usize> = (0..labels.len())
        .filter(|i| !labels[*i].is_empty())
        .collect();
    let every = named.len().div_ceil(MAX_TICKS).max(1);
    let bottom = (PANEL + GAP) * series.len() as f64;
    html! {
        svg.chart viewBox={ "0 0 " (WIDTH) " " (height) } role="img" aria-label=(title) {
            @for (i, s) in series.iter().enumerate() {
                @let top = i as f64 * (PANEL + GAP) + GAP;
                @let max = s.values.iter().cloned().fold(0.0, f64::max);
                text x=(LEFT) y=(top - 8.0) { (s.name) " · " (peak_word) (s.peak) }
                line.axis x1=(LEFT) x2=(WIDTH) y1=(top + PANEL) y2=(top + PANEL) {}
                line.axis x1=(LEFT) x2=(LEFT) y1=(top) y2=(top + PANEL) {}
                @for (frac, anchor) in [(0.0, "0"), (0.5, "half"), (1.0, "peak")] {
                    @let y = top + PANEL - frac * PANEL;
                    line.tick x1=(LEFT - 3.0) x2=(LEFT) y1=(y) y2=(y) {}
                    text.scale x=(LEFT - 5.0) y=(y + 3.5) text-anchor="end" data-at=(anchor) {
                        (value(i, max * frac))
                    }
                }
                g class=(s.class) fill="currentColor" {
                    @for (j, v) in s.values.iter().enumerate() {
                        @if *v > 0.0 && max > 0.0 {
                            @let h = (v / max * PANEL).max(1.0);
                            rect x=(format!("{:.1}", LEFT + j as f64 * step + step * 0.1))
                                y=(format!("{:.1}", top + PANEL - h))
                                width=(format!("{:.1}", (step * 0.8).max(0.5)))
                                height=(format!("{h:.1}")) tabindex="0" {
                                title { (bucket_title(labels.get(j), s.name, &value(i, *v))) }
                            }
                        }
                    }
                }
            }
            @for (k, j) in named.iter().enumerate() {
                @if k % every == 0 || k + 1 == named.len() {
                    @let x = LEFT + *j as f64 * step + step / 2.0;
                    @let anchor = if k == 0 && named.len() > 1 { "start" } else if k + 1 == named.len() && named.len() > 1 { "end" } else { "middle" };
                    line.tick x1=(format!("{x:.1}")) x2=(format!("{x:.1}")) y1=(bottom) y2=(bottom + 3.0) {}
                    text x=(format!("{x:.1}")) y=(height - 2.0) text-anchor=(anchor) { (labels[*j]) }
                }
            }
        }
    }
}

fn bucket_title(label: Option<&String>, name: &str, value: &str) -> String {
    match label.filter(|l| !l.is_empty()) {
        Some(l) => format!("{l} · {name}: {value}"),
        None => format!("{name}: {value}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value as a plain number: whole numbers as such, others to two places.
    fn plain(v: f64) -> String {
        if v.fract() == 0.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        }
    }

    fn views() -> Vec<Series<'static>> {
        vec![Series {
            name: "Views",
            class: "s-views",
            values: vec![0.0, 5.0, 10.0],
            peak: "10".into(),
        }]
    }

    #[test]
    fn each_nonzero_bucket_is_a_bar_scaled_to_its_series_peak() {
        let svg = bars(&views(), "a", "b", "Chart", "peak ", &|_, v| plain(v)).into_string();
        assert_eq!(svg.matches("<rect").count(), 2, "{svg}");
        assert!(
            svg.contains(&format!("height=\"{PANEL:.1}\"")),
            "the peak fills the panel: {svg}"
        );
        assert!(svg.contains("Views · peak 10"), "{svg}");
    }

    #[test]
    fn bars_are_focusable_and_name_their_bucket_and_value() {
        let labels = ["Mon".to_string(), "Tue".into(), "Wed".into()];
        let svg =
            with_axes(&views(), &labels, "Spend", &|_, v| format!("{v:.0} EUR")).into_string();
        assert_eq!(svg.matches("tabindex=\"0\"").count(), 2, "{svg}");
        assert!(svg.contains("<title>Tue · Views: 5 EUR</title>"), "{svg}");
        assert!(svg.contains("<title>Wed · Views: 10 EUR</title>"), "{svg}");
    }

    #[test]
    fn the_value_axis_reads_zero_half_and_peak_and_buckets_are_named_below() {
        let labels = ["Mon".to_string(), "Tue".into(), "Wed".into()];
        let svg =
            with_axes(&views(), &labels, "Spend", &|_, v| format!("{v:.0} EUR")).into_string();
        for (at, shown) in [("0", "0 EUR"), ("half", "5 EUR"), ("peak", "10 EUR")] {
            assert!(
                svg.contains(&format!("data-at=\"{at}\">{shown}</text>")),
                "{at}: {svg}"
            );
        }
        for day in ["Mon", "Tue", "Wed"] {
            assert!(svg.contains(&format!(">{day}</text>")), "{day}: {svg}");
        }
    }

    #[test]
    fn many_buckets_get_at_most_a_few_names_with_the_last_always_shown() {
        let labels: Vec<String> = (1..=31).map(|d| format!("d{d}")).collect();
        let series = vec![Series {
            name: "Spend",
            class: "s-spent",
            values: vec![1.0; 31],
            peak: "1".into(),
        }];
        let svg = with_axes(&series, &labels, "Spend", &|_, v| plain(v)).into_string();
        let named = labels
            .iter()
            .filter(|l| svg.contains(&format!(">{l}</text>")))
            .count();
        assert!(named <= MAX_TICKS + 1, "{named} names");
        assert!(svg.contains(">d1</text>") && svg.contains(">d31</text>"));
    }
}
