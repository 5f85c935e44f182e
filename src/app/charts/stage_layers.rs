//! Bar chart: how many layers each pipeline stage holds.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::ChartError;

/// The foundation shell names its chart input `stage_layers::Chart`; it is the app-wide owned
/// chart input now.
pub use super::input::Chart;

/// Draws the layers-per-stage bar onto `root`, filling all of it.
pub fn draw_chart<DB: DrawingBackend>(
    stages: &[u64],
    root: &DrawingArea<DB, Shift>,
) -> Result<(), ChartError> {
    draw(root, stages)?;
    root.present()?;
    Ok(())
}

/// Bar colour (blue 600).
const BAR: RGBColor = RGBColor(37, 99, 235);
/// Above this many stages the per-bar value labels would overlap, so they are left out.
const MAX_VALUE_LABELS: usize = 32;

/// Draws one bar per stage (stage 0 on the left) with the layer count above each bar.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    stages: &[u64],
) -> Result<(), ChartError> {
    root.fill(&WHITE)?;
    let n = stages.len().max(1) as f64;
    let max = stages.iter().copied().max().unwrap_or(0).max(1) as f64;
    let top = max * 1.15;

    let mut chart = ChartBuilder::on(root)
        .caption("Layers per pipeline stage", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(48)
        .build_cartesian_2d(-0.5f64..n - 0.5, 0f64..top)?;

    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("pipeline stage")
        .y_desc("layers")
        .x_labels(stages.len().clamp(1, 16))
        .x_label_formatter(&|x| {
            if x.fract() == 0.0 && *x >= 0.0 {
                format!("{x:.0}")
            } else {
                String::new()
            }
        })
        // About one label per layer for shallow pipelines, at most 10.
        .y_labels((top as usize + 1).clamp(2, 10))
        .y_label_formatter(&|y| {
            if y.fract() == 0.0 {
                format!("{y:.0}")
            } else {
                String::new()
            }
        })
        .light_line_style(WHITE)
        .draw()?;

    chart.draw_series(stages.iter().enumerate().map(|(i, &layers)| {
        let x = i as f64;
        Rectangle::new([(x - 0.38, 0.0), (x + 0.38, layers as f64)], BAR.filled())
    }))?;

    if stages.len() <= MAX_VALUE_LABELS {
        let style = TextStyle::from(("sans-serif", 13).into_font())
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        chart.draw_series(stages.iter().enumerate().map(|(i, &layers)| {
            Text::new(
                layers.to_string(),
                (i as f64, layers as f64 + max * 0.02),
                style.clone(),
            )
        }))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::draw_chart;
    use super::MAX_VALUE_LABELS;
    use plotters::prelude::*;

    fn svg(stages: &[u64]) -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (720, 320)).into_drawing_area();
            draw_chart(stages, &root).unwrap();
        }
        out
    }

    #[test]
    fn draws_a_bar_and_a_label_per_stage() {
        let out = svg(&[7, 8, 8, 7]);
        assert!(out.contains("Layers per pipeline stage"));
        assert!(out.contains("pipeline stage"));
        // Bars are the only rects in the bar colour.
        assert_eq!(out.matches(r##"fill="#2563EB""##).count(), 4, "{out}");
        // Value labels above the bars (centred on them): 7, 8, 8, 7.
        let labels = out.matches(r#"text-anchor="middle""#).count();
        assert!(labels > 4, "{labels} centred texts: {out}");
    }

    #[test]
    fn many_stages_skip_value_labels_and_empty_input_still_draws() {
        let out = svg(&[1; 64]);
        assert_eq!(out.matches(r##"fill="#2563EB""##).count(), 64);
        let few = svg(&[1; 4]).matches(r#"text-anchor="middle""#).count();
        let many = out.matches(r#"text-anchor="middle""#).count();
        assert!(
            many < few + 60,
            "no value labels over {MAX_VALUE_LABELS} stages"
        );
        let out = svg(&[]);
        assert!(out.contains("Layers per pipeline stage"));
    }
}
