//! A hand-written SVG chart: throughput against thread count, one panel per
//! critical-section length, one line per strategy. Both axes are log scale
//! (threads double; throughput spans five orders of magnitude).

use std::fmt::Write;

use crate::contention::{ContentionResult, CriticalSection};
use crate::locks::Strategy;

const PANEL_WIDTH: f64 = 460.0;
const PANEL_HEIGHT: f64 = 320.0;
const MARGIN_LEFT: f64 = 70.0;
const MARGIN_TOP: f64 = 40.0;
const MARGIN_BOTTOM: f64 = 50.0;
const LEGEND_HEIGHT: f64 = 30.0;
const COLORS: [&str; 6] = [
    "#d62728", "#ff7f0e", "#9467bd", "#2ca02c", "#1f77b4", "#7f7f7f",
];

/// Renders the chart for `results`.
pub fn render(results: &[ContentionResult], title: &str) -> String {
    let kinds = [CriticalSection::Short, CriticalSection::Long];
    let width = MARGIN_LEFT + kinds.len() as f64 * (PANEL_WIDTH + MARGIN_LEFT);
    let height = MARGIN_TOP + PANEL_HEIGHT + MARGIN_BOTTOM + LEGEND_HEIGHT;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="20" font-size="15" text-anchor="middle">{}</text>"#,
        width / 2.0,
        escape(title)
    );
    for (panel, kind) in kinds.iter().enumerate() {
        let left = MARGIN_LEFT + panel as f64 * (PANEL_WIDTH + MARGIN_LEFT);
        let points: Vec<&ContentionResult> = results
            .iter()
            .filter(|result| result.critical_section == *kind)
            .collect();
        draw_panel(&mut svg, &points, left, *kind);
    }
    let legend_y = MARGIN_TOP + PANEL_HEIGHT + MARGIN_BOTTOM + 10.0;
    for (index, strategy) in Strategy::ALL.iter().enumerate() {
        let x = MARGIN_LEFT + index as f64 * 130.0;
        let color = COLORS[index % COLORS.len()];
        let _ = writeln!(
            svg,
            r#"<line x1="{x}" y1="{legend_y}" x2="{}" y2="{legend_y}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
            x + 20.0,
            x + 25.0,
            legend_y + 4.0,
            strategy.label()
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn draw_panel(svg: &mut String, points: &[&ContentionResult], left: f64, kind: CriticalSection) {
    let top = MARGIN_TOP;
    let bottom = top + PANEL_HEIGHT;
    let threads_max = points.iter().map(|p| p.threads).max().unwrap_or(1).max(2) as f64;
    let positive = points
        .iter()
        .map(|p| p.ops_per_sec)
        .filter(|ops| *ops > 0.0);
    let ops_max = positive.clone().fold(1.0_f64, f64::max);
    let ops_min = positive.fold(ops_max, f64::min);
    let decade_low = ops_min.log10().floor();
    let decade_high = ops_max.log10().ceil().max(decade_low + 1.0);
    let x_of = |threads: usize| left + (threads as f64).log2() / threads_max.log2() * PANEL_WIDTH;
    let y_of = |ops: f64| {
        let ops = ops.max(10f64.powf(decade_low));
        bottom - (ops.log10() - decade_low) / (decade_high - decade_low) * PANEL_HEIGHT
    };
    let _ = writeln!(
        svg,
        r##"<rect x="{left}" y="{top}" width="{PANEL_WIDTH}" height="{PANEL_HEIGHT}" fill="none" stroke="#444"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">{} critical section: acquisitions/s (log) vs threads (log2)</text>"#,
        left + PANEL_WIDTH / 2.0,
        top - 6.0,
        kind.label()
    );
    let mut decade = decade_low;
    while decade <= decade_high {
        let y = y_of(10f64.powf(decade));
        let _ = writeln!(
            svg,
            r##"<line x1="{left}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">1e{decade}</text>"##,
            left + PANEL_WIDTH,
            left - 5.0,
            y + 4.0
        );
        decade += 1.0;
    }
    let mut threads = 1usize;
    while threads as f64 <= threads_max {
        let x = x_of(threads);
        let _ = writeln!(
            svg,
            r##"<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="#eee"/><text x="{x}" y="{}" text-anchor="middle">{threads}</text>"##,
            bottom + 16.0
        );
        threads *= 2;
    }
    for (index, strategy) in Strategy::ALL.iter().enumerate() {
        let mut line: Vec<&&ContentionResult> =
            points.iter().filter(|p| p.strategy == *strategy).collect();
        line.sort_by_key(|p| p.threads);
        if line.is_empty() {
            continue;
        }
        let path: Vec<String> = line
            .iter()
            .map(|p| format!("{:.1},{:.1}", x_of(p.threads), y_of(p.ops_per_sec)))
            .collect();
        let color = COLORS[index % COLORS.len()];
        let _ = writeln!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#,
            path.join(" ")
        );
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_well_formed_svg_with_one_line_per_strategy_and_panel() {
        let results: Vec<ContentionResult> = Strategy::ALL
            .iter()
            .flat_map(|strategy| {
                [CriticalSection::Short, CriticalSection::Long]
                    .into_iter()
                    .flat_map(move |kind| {
                        [1usize, 2, 4]
                            .into_iter()
                            .map(move |threads| ContentionResult {
                                strategy: *strategy,
                                critical_section: kind,
                                threads,
                                duration_ms: 1.0,
                                ops_per_sec: 1e6 / threads as f64,
                                ops_min: 1,
                                ops_max: 1,
                                fairness_max_over_min: Some(1.0),
                                starved_threads: 0,
                            })
                    })
            })
            .collect();
        let svg = render(&results, "a < b");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 12);
        assert!(svg.contains("a &lt; b"));
    }
}
