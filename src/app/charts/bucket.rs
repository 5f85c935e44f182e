//! Gradient bucket size: step time (upper panel) and exposed / hidden data-parallel communication
//! (lower panel) against the bucket size on a log₂ axis, with the current setting marked. Small
//! buckets pay per-message latency; large ones start reducing late and hide less behind backward.

use super::error::ChartError;
use super::frame::{
    build, draw_header, draw_message, header_height, padded, pow2_mesh, stacked_hit_rect,
    stacked_panels, Chart2d, LegendItem, Swatch,
};
use super::style::{clean, fmt_seconds, sig3, tick_for_span, time_unit, ChartStyle};
use crate::engine::sweep::BucketPoint;
use crate::text::num::Plain;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::ops::Range;

const TITLE: &str = "Gradient bucket size vs exposed DP communication";
/// Most points drawn.
pub const MAX_POINTS: usize = 256;

/// The bucket chart's input.
#[derive(Clone, Copy, Debug)]
pub struct BucketData<'a> {
    /// The sweep, any order.
    pub points: &'a [BucketPoint],
    /// The scenario's bucket size, MB (marked), if set.
    pub current_mb: Option<f64>,
}

struct Pt {
    x: f64,
    mb: f64,
    step: f64,
    exposed: f64,
    hidden: f64,
}

fn prepare(d: &BucketData<'_>) -> Vec<Pt> {
    let mut pts: Vec<Pt> = d
        .points
        .iter()
        .filter(|p| clean(p.bucket_mb) > 0.0)
        .take(MAX_POINTS)
        .map(|p| Pt {
            x: p.bucket_mb.log2(),
            mb: p.bucket_mb,
            step: clean(p.step_s),
            exposed: clean(p.exposed_dp_s),
            hidden: clean(p.hidden_dp_s),
        })
        .collect();
    crate::sort::sort_by(&mut pts, |a, b| a.x.total_cmp(&b.x));
    pts
}

/// The log₂ x range: every point and the current setting, with a margin.
fn x_range(pts: &[Pt], current: Option<f64>) -> Range<f64> {
    let lo = pts.first().map_or(0.0, |p| p.x);
    let hi = pts.last().map_or(0.0, |p| p.x);
    let (lo, hi) = match current {
        Some(mb) => (lo.min(mb.log2()), hi.max(mb.log2())),
        None => (lo, hi),
    };
    if hi - lo < 1.0 {
        (lo - 1.0)..(hi + 1.0)
    } else {
        (lo - 0.3)..(hi + 0.3)
    }
}

/// Pointer distance (px, horizontal) within which a bucket size counts as hit.
pub const HIT_PX: f64 = 12.0;

/// The bucket size whose column is under pixel (`x`, `y`) of a `width × height` bucket chart
/// (within [`HIT_PX`] horizontally, anywhere between the legend and the x axis), same layout as
/// [`draw`].
pub fn point_at(
    data: &BucketData<'_>,
    width: u32,
    height: u32,
    x: f64,
    y: f64,
) -> Option<BucketPoint> {
    let pts = prepare(data);
    let current = data.current_mb.filter(|&mb| clean(mb) > 0.0);
    let xr = x_range(&pts, current);
    let rect = stacked_hit_rect(width, height);
    if !rect.is_usable() || !rect.contains(x, y) {
        return None;
    }
    let (d, best) = pts
        .iter()
        .map(|p| ((rect.map_x(p.x, &xr) - x).abs(), p))
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    if d > HIT_PX {
        return None;
    }
    data.points.iter().find(|p| p.bucket_mb == best.mb).cloned()
}

/// "256 MB" or "4.10 GB".
pub fn fmt_mb(mb: f64) -> String {
    if mb >= 1000.0 {
        format!("{} GB", sig3(mb / 1000.0))
    } else {
        format!("{} MB", sig3(mb))
    }
}

/// Draws the bucket chart.
///
/// # Errors
/// Only backend failures; no points or all-zero times draw a message.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &BucketData<'_>,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    let pts = prepare(data);
    let max_step = pts.iter().map(|p| p.step).fold(0.0, f64::max);
    let max_dp = pts
        .iter()
        .map(|p| p.exposed.max(p.hidden))
        .fold(0.0, f64::max);
    if pts.is_empty() {
        return draw_message(root, style, TITLE, "No bucket sizes to show.");
    }
    if max_step <= 0.0 && max_dp <= 0.0 {
        return draw_message(
            root,
            style,
            TITLE,
            "All times are zero for every bucket size: nothing to draw yet.",
        );
    }
    let p = &style.palette;
    let (w, _) = root.dim_in_pixel();
    let current = data.current_mb.filter(|&mb| clean(mb) > 0.0);
    let mut legend = vec![
        LegendItem::new("Step time", p.step, Swatch::Line),
        LegendItem::new("Exposed DP comm", p.dp, Swatch::Line),
        LegendItem::new("Hidden DP comm", style.faded(p.dp, 0.45), Swatch::Dashed),
    ];
    if current.is_some() {
        legend.push(LegendItem::new(
            "Current setting",
            p.current,
            Swatch::Dashed,
        ));
    }
    let best = pts
        .iter()
        .filter(|p| p.step > 0.0)
        .min_by(|a, b| a.step.total_cmp(&b.step));
    let mut caption = String::new();
    if let Some(mb) = current {
        let near = pts
            .iter()
            .min_by(|a, b| (a.x - mb.log2()).abs().total_cmp(&(b.x - mb.log2()).abs()));
        caption.push_str(&format!("current {}", fmt_mb(mb)));
        if let Some(n) = near.filter(|n| (n.mb - mb).abs() <= 1e-9 * mb.max(1.0)) {
            caption.push_str(&format!(
                ": step {}, exposed DP {}",
                fmt_seconds(n.step),
                fmt_seconds(n.exposed)
            ));
        }
        caption.push_str(" · ");
    }
    if let Some(b) = best {
        caption.push_str(&format!(
            "fastest step at {}: {}",
            fmt_mb(b.mb),
            fmt_seconds(b.step)
        ));
    }
    draw_header(root, style, TITLE, &caption, &legend)?;

    let x = x_range(&pts, current);
    let header = header_height(w, &legend);
    let ((top, top_rect), (bottom, bottom_rect)) = stacked_panels(root, header, 0.5);
    if !top_rect.is_usable() || !bottom_rect.is_usable() {
        return draw_message(root, style, TITLE, "Too small to draw.");
    }

    // Upper: step time (not from zero, so the dip is visible).
    let (sf, su) = time_unit(max_step);
    let smin = pts.iter().map(|p| p.step).fold(f64::INFINITY, f64::min);
    let y = padded(smin * sf, max_step * sf, 0.1);
    let y = y.start.max(0.0)..y.end;
    let span = y.end - y.start;
    let mut chart = build(&top, top_rect, x.clone(), y)?;
    let desc = format!("Step time ({su})");
    pow2_mesh(&mut chart, style, ("", &desc), 14, &|v| {
        tick_for_span(*v, span)
    })?;
    draw_curve(&mut chart, pts.iter().map(|q| (q.x, q.step * sf)), p.step)?;
    mark_current(&mut chart, current, p.current)?;

    // Lower: exposed and hidden DP communication from zero.
    let (df, du) = time_unit(max_dp);
    let mut chart = build(
        &bottom,
        bottom_rect,
        x.clone(),
        0.0..(max_dp * df * 1.1).max(1e-9),
    )?;
    let desc = format!("DP comm per step ({du})");
    let span = (max_dp * df * 1.1).max(1e-9);
    pow2_mesh(
        &mut chart,
        style,
        ("Gradient bucket size (MB, log₂ scale)", &desc),
        14,
        &|v| tick_for_span(*v, span),
    )?;
    chart.draw_series(DashedLineSeries::new(
        pts.iter().map(|q| (q.x, q.hidden * df)),
        5,
        3,
        style.faded(p.dp, 0.45).stroke_width(2),
    ))?;
    draw_curve(&mut chart, pts.iter().map(|q| (q.x, q.exposed * df)), p.dp)?;
    mark_current(&mut chart, current, p.current)?;
    root.present()?;
    Ok(())
}

/// A measured curve: the line through `points` with a dot at each.
fn draw_curve<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    points: impl Iterator<Item = (f64, f64)> + Clone,
    color: RGBColor,
) -> Result<(), ChartError> {
    chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
    chart.draw_series(points.map(|q| Circle::new(q, 3, color.filled())))?;
    Ok(())
}

/// The dashed vertical line at the current bucket size `current` (MB), if any.
fn mark_current<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    current: Option<f64>,
    color: RGBColor,
) -> Result<(), ChartError> {
    if let Some(mb) = current {
        let r = chart.y_range();
        chart.draw_series(DashedLineSeries::new(
            [(mb.log2(), r.start), (mb.log2(), r.end)],
            4,
            3,
            color.stroke_width(2),
        ))?;
    }
    Ok(())
}

/// Tooltip text for pixel (`x`, `y`) of a `width × height` bucket chart: the bucket size's
/// step time and exposed and hidden DP time.
pub fn tooltip(d: &BucketData<'_>, width: u32, height: u32, x: f64, y: f64) -> Option<String> {
    let p = point_at(d, width, height, x, y)?;
    Some(format!(
        "Bucket {}: step {}, exposed DP {}, hidden DP {}",
        fmt_mb(p.bucket_mb),
        fmt_seconds(p.step_s),
        fmt_seconds(p.exposed_dp_s),
        fmt_seconds(p.hidden_dp_s)
    ))
}

/// The chart's text summary (its accessible name).
pub fn summary(d: &BucketData<'_>) -> String {
    match d.points.iter().min_by(|x, y| x.step_s.total_cmp(&y.step_s)) {
        Some(p) => format!(
            "Exposed data-parallel communication for {} bucket sizes; shortest step {} at {} MB.",
            d.points.len(),
            fmt_seconds(p.step_s),
            Plain(p.bucket_mb)
        ),
        None => "No bucket sizes.".to_string(),
    }
}
