//! Scaling: cluster throughput vs GPU count (log₂ x axis, log y axis) for one or more strategies
//! with the linear ideal, and below it the scaling efficiency. Strong or weak scaling is named in
//! the title. Several strategies (DP-only, TP+DP, PP+DP, 3D…) share one reference — the best
//! per-GPU rate at the smallest GPU count — so their efficiencies are comparable (this is how the
//! chart shows PP beating DP at scale). Efficiency and reference are the engine's
//! ([`set_scaling_efficiency`](crate::engine::sweep::set_scaling_efficiency)): the chart draws
//! each point's `scaling_efficiency`.

use super::error::ChartError;
use super::frame::{
    build, draw_header, draw_message, header_height, padded, pow2_mesh, stacked_hit_rect,
    stacked_panels, Chart2d, LegendItem, Panel, Swatch,
};
use super::style::{clean, fmt_pct, fmt_rate, si_tick, tick, ChartStyle};
use crate::engine::sweep::{efficiency_reference, GpuPoint, Scaling};
use crate::text::num::Fixed;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::ops::Range;

/// Most series drawn (extra ones are ignored) and most points per series.
pub const MAX_SERIES: usize = 8;
/// Most points drawn per series.
pub const MAX_POINTS: usize = 64;

/// One strategy's sweep.
#[derive(Clone, Copy, Debug)]
pub struct ScalingSeries<'a> {
    /// Legend name ("DP only", "PP+DP", …).
    pub name: &'a str,
    /// Its points, by GPU count.
    pub points: &'a [GpuPoint],
}

/// The scaling chart's input.
#[derive(Clone, Copy, Debug)]
pub struct ScalingData<'a> {
    /// One or more strategies.
    pub series: &'a [ScalingSeries<'a>],
    /// Strong or weak scaling (named in the title).
    pub scaling: Scaling,
    /// The current scenario's GPU count, marked with a vertical line.
    pub current_gpus: Option<u64>,
    /// Expected relative error of the first series (0.07 = ±7 %): a shaded band around it.
    pub band: Option<f64>,
    /// The first series without calibration, drawn faint beside the calibrated one.
    pub uncalibrated: Option<&'a [GpuPoint]>,
}

struct Pt {
    x: f64,
    gpus: f64,
    tps: f64,
    /// The engine's scaling efficiency, %.
    eff_pct: f64,
    fits: bool,
}

struct Prepared<'a> {
    series: Vec<(&'a str, Vec<Pt>)>,
    /// Reference tokens/s per GPU (the ideal line's slope).
    per_gpu: f64,
    x: Range<f64>,
}

fn prepare<'a>(d: &ScalingData<'a>) -> Option<Prepared<'a>> {
    let mut series = Vec::new();
    for s in d.series.iter().take(MAX_SERIES) {
        let mut pts: Vec<Pt> = s
            .points
            .iter()
            .filter(|p| p.error.is_none() && p.num_gpus > 0 && clean(p.tokens_per_s) > 0.0)
            .take(MAX_POINTS)
            .map(|p| Pt {
                x: (p.num_gpus as f64).log2(),
                gpus: p.num_gpus as f64,
                tps: p.tokens_per_s,
                eff_pct: clean(p.scaling_efficiency) * 100.0,
                fits: p.fits,
            })
            .collect();
        crate::sort::sort_by(&mut pts, |a, b| a.x.total_cmp(&b.x));
        series.push((s.name, pts));
    }
    let all = || series.iter().flat_map(|s| s.1.iter());
    let per_gpu = efficiency_reference(
        d.series
            .iter()
            .take(MAX_SERIES)
            .flat_map(|s| s.points.iter().take(MAX_POINTS)),
    )?;
    let lo = all().map(|p| p.x).fold(f64::INFINITY, f64::min);
    let hi = all().map(|p| p.x).fold(f64::NEG_INFINITY, f64::max);
    let x = if hi - lo < 1.0 {
        (lo - 1.0)..(hi + 1.0)
    } else {
        (lo - 0.3)..(hi + 0.3)
    };
    Some(Prepared { series, per_gpu, x })
}

/// Pointer distance (px, horizontal) within which a GPU count counts as hit.
pub const HIT_PX: f64 = 12.0;

/// The GPU count whose column is under pixel (`x`, `y`) of a `width × height` scaling chart
/// (within [`HIT_PX`] horizontally, between the legend and the x axis), same layout as [`draw`].
pub fn gpus_at(data: &ScalingData<'_>, width: u32, height: u32, x: f64, y: f64) -> Option<u64> {
    let d = prepare(data)?;
    let rect = stacked_hit_rect(width, height);
    if !rect.is_usable() || !rect.contains(x, y) {
        return None;
    }
    let (dist, gpus) = d
        .series
        .iter()
        .flat_map(|s| s.1.iter())
        .map(|p| ((rect.map_x(p.x, &d.x) - x).abs(), p.gpus))
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    (dist <= HIT_PX).then_some(gpus as u64)
}

/// What the upper panel draws beside the series: the expected-error band around the first
/// series, its uncalibrated twin (`(log₂ GPUs, tokens/s)`) and the current GPU count.
struct Extras {
    band: Option<f64>,
    uncal: Vec<(f64, f64)>,
    current_gpus: Option<u64>,
}

impl Extras {
    fn of(data: &ScalingData<'_>) -> Extras {
        let uncal = data
            .uncalibrated
            .unwrap_or(&[])
            .iter()
            .filter(|q| q.error.is_none() && q.num_gpus > 0 && clean(q.tokens_per_s) > 0.0)
            .take(MAX_POINTS)
            .map(|q| ((q.num_gpus as f64).log2(), q.tokens_per_s))
            .collect();
        Extras {
            band: data.band.filter(|b| b.is_finite() && *b > 0.0 && *b < 1.0),
            uncal,
            current_gpus: data.current_gpus.filter(|&n| n > 0),
        }
    }
}

/// Series `i`'s colour.
fn color(style: &ChartStyle, i: usize) -> RGBColor {
    let p = &style.palette;
    p.series.get(i % p.series.len()).copied().unwrap_or(p.step)
}

/// The legend: each series, the band, the uncalibrated twin, the ideal, the current count and
/// "does not fit" when a point does not.
fn legend(d: &Prepared<'_>, x: &Extras, style: &ChartStyle) -> Vec<LegendItem> {
    let p = &style.palette;
    let mut legend: Vec<LegendItem> = d
        .series
        .iter()
        .enumerate()
        .map(|(i, (name, _))| LegendItem::new(*name, color(style, i), Swatch::Line))
        .collect();
    if let Some(b) = x.band {
        legend.push(LegendItem::new(
            format!("±{} % expected error", Fixed(100.0 * b, 0)),
            color(style, 0),
            Swatch::Faded,
        ));
    }
    if !x.uncal.is_empty() {
        legend.push(LegendItem::new(
            "Uncalibrated",
            style.faded(color(style, 0), 0.6),
            Swatch::Line,
        ));
    }
    legend.push(LegendItem::new("Linear ideal", p.reference, Swatch::Dashed));
    if x.current_gpus.is_some() {
        legend.push(LegendItem::new("Current GPUs", p.current, Swatch::Dashed));
    }
    if d.series.iter().any(|s| s.1.iter().any(|p| !p.fits)) {
        legend.push(LegendItem::new("Does not fit", p.danger, Swatch::Dot));
    }
    legend
}

/// The GPU count from which the first series' fixed costs are named
/// ([`crate::engine::advice::fixed::bend`]), and the share and largest of them there.
fn bend(data: &ScalingData<'_>) -> Option<(u64, f64, &'static str)> {
    let (n, note) = crate::engine::advice::fixed::bend(data.series.first()?.points)?;
    Some((n, note.share, note.parts.first()?.0))
}

/// "efficiency vs linear: DP only 71 % at 1024 · …" (the first four series' last points), then
/// where the first series' fixed costs take over ("fixed costs 19 % of the step from 512 GPUs,
/// most of it …").
fn caption(d: &Prepared<'_>, bend: Option<(u64, f64, &'static str)>) -> String {
    let parts: Vec<String> = d
        .series
        .iter()
        .filter_map(|(name, pts)| {
            let last = pts.last()?;
            Some(format!(
                "{name} {} at {}",
                fmt_pct(last.eff_pct / 100.0),
                Fixed(last.gpus, 0)
            ))
        })
        .take(4)
        .collect();
    // Above 100 %: per GPU, the larger count runs faster than the reference (the best rate
    // at the smallest count), e.g. with less recomputation or a smaller pipeline bubble.
    let above = d
        .series
        .iter()
        .any(|(_, pts)| pts.iter().any(|p| p.eff_pct > 100.5));
    let fixed = match bend {
        Some((n, share, largest)) => format!(
            "; fixed costs per step {} of the step from {n} GPUs, most of it {largest}",
            fmt_pct(share)
        ),
        None => String::new(),
    };
    format!(
        "efficiency vs linear: {}{}{fixed}",
        parts.join(" · "),
        if above {
            " (over 100 %: more GPUs run faster per GPU than the smallest count did)"
        } else {
            ""
        }
    )
}

/// Each series as a line with a dot per point (red where it does not fit), at `y` of a point.
fn draw_series<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    d: &Prepared<'_>,
    style: &ChartStyle,
    y: impl Fn(&Pt) -> f64,
) -> Result<(), ChartError> {
    for (i, (_, pts)) in d.series.iter().enumerate() {
        let c = color(style, i);
        chart.draw_series(LineSeries::new(
            pts.iter().map(|q| (q.x, y(q))),
            c.stroke_width(2),
        ))?;
        chart.draw_series(pts.iter().map(|q| {
            let fill = if q.fits { c } else { style.palette.danger };
            Circle::new((q.x, y(q)), 3, fill.filled())
        }))?;
    }
    Ok(())
}

/// `2^x` (GPUs at a point of the log₂ axis), through `powf` with a base the optimiser does not
/// see: LLVM turns `2f64.powf(x)` into `exp2`, whose 4 KB table (incompressible) would enter
/// the WebAssembly bundle for these three values only; `powf` is in it anyway.
fn pow2(x: f64) -> f64 {
    std::hint::black_box(2f64).powf(x)
}

/// The upper panel: tokens/s on a log₁₀ axis with the linear ideal, the band, the
/// uncalibrated twin, the series and the current GPU count.
fn draw_throughput<DB: DrawingBackend>(
    d: &Prepared<'_>,
    x: &Extras,
    (area, rect): &Panel<DB>,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    let p = &style.palette;
    let ideal_lo = d.per_gpu * pow2(d.x.start);
    let ideal_hi = d.per_gpu * pow2(d.x.end);
    let all = || d.series.iter().flat_map(|s| s.1.iter());
    let b = x.band.unwrap_or(0.0);
    let ylo = all()
        .map(|p| p.tps * (1.0 - b))
        .chain(x.uncal.iter().map(|q| q.1))
        .fold(ideal_lo, f64::min)
        .log10();
    let yhi = all()
        .map(|p| p.tps * (1.0 + b))
        .chain(x.uncal.iter().map(|q| q.1))
        .fold(ideal_hi, f64::max)
        .log10();
    let mut chart = build(area, *rect, d.x.clone(), padded(ylo, yhi, 0.05))?;
    let y_fmt = |v: &f64| si_tick(10f64.powf(*v));
    pow2_mesh(&mut chart, style, ("", "Throughput (tokens/s)"), 12, &y_fmt)?;
    // Dashes cut in data space: DashedLineSeries rounds each dash to pixels, which makes a
    // sloped line look jagged.
    let ideal = |x: f64| (d.per_gpu * pow2(x)).log10();
    chart.draw_series(super::frame::dashes(
        (d.x.start, ideal(d.x.start)),
        (d.x.end, ideal(d.x.end)),
        48,
        p.reference.stroke_width(1),
    ))?;
    // The expected-error band around the current layout's curve, then its uncalibrated twin.
    if let (Some(b), Some((_, pts))) = (x.band, d.series.first()) {
        if pts.len() >= 2 {
            let upper = pts.iter().map(|q| (q.x, (q.tps * (1.0 + b)).log10()));
            let lower = pts.iter().rev().map(|q| (q.x, (q.tps * (1.0 - b)).log10()));
            chart.draw_series(std::iter::once(Polygon::new(
                upper.chain(lower).collect::<Vec<_>>(),
                color(style, 0).mix(0.3).filled(),
            )))?;
        }
    }
    if !x.uncal.is_empty() {
        chart.draw_series(LineSeries::new(
            x.uncal.iter().map(|q| (q.0, q.1.log10())),
            style.faded(color(style, 0), 0.6).stroke_width(2),
        ))?;
    }
    draw_series(&mut chart, d, style, |q| q.tps.log10())?;
    if let Some(n) = x.current_gpus {
        let x = (n as f64).log2();
        if d.x.contains(&x) {
            let r = chart.y_range();
            chart.draw_series(DashedLineSeries::new(
                [(x, r.start), (x, r.end)],
                3,
                3,
                p.current.stroke_width(1),
            ))?;
        }
    }
    Ok(())
}

/// The lower panel: each series' scaling efficiency, %, with the 100 % line.
fn draw_efficiency<DB: DrawingBackend>(
    d: &Prepared<'_>,
    (area, rect): &Panel<DB>,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    let max_eff = d
        .series
        .iter()
        .flat_map(|s| s.1.iter())
        .map(|p| p.eff_pct)
        .fold(110.0, f64::max);
    let mut chart = build(area, *rect, d.x.clone(), 0.0..max_eff * 1.02)?;
    let axes = ("GPUs (log₂ scale)", "Scaling efficiency (%)");
    pow2_mesh(&mut chart, style, axes, 12, &|v| tick(*v))?;
    chart.draw_series(DashedLineSeries::new(
        [(d.x.start, 100.0), (d.x.end, 100.0)],
        6,
        4,
        style.palette.reference.stroke_width(1),
    ))?;
    draw_series(&mut chart, d, style, |q| q.eff_pct)
}

/// Draws the scaling chart: the header, then throughput above and efficiency below.
///
/// # Errors
/// Only backend failures; no valid points draws a message.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ScalingData<'_>,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    let title = match data.scaling {
        Scaling::Strong => "Strong scaling: throughput vs GPUs (global batch fixed)",
        Scaling::Weak => "Weak scaling: throughput vs GPUs (batch per replica fixed)",
    };
    let (w, _) = root.dim_in_pixel();
    let Some(d) = prepare(data) else {
        return draw_message(root, style, title, "No scaling points to show.");
    };
    let extras = Extras::of(data);
    let legend = legend(&d, &extras, style);
    draw_header(root, style, title, &caption(&d, bend(data)), &legend)?;
    let header = header_height(w, &legend);
    let (top, bottom) = stacked_panels(root, header, 0.56);
    if !top.1.is_usable() || !bottom.1.is_usable() {
        return draw_message(root, style, title, "Too small to draw.");
    }
    draw_throughput(&d, &extras, &top, style)?;
    draw_efficiency(&d, &bottom, style)?;
    root.present()?;
    Ok(())
}

/// Tooltip text for pixel (`x`, `y`) of a `width × height` scaling chart: "1024 GPUs", then
/// one line per series at that count with the engine's scaling efficiency.
pub fn tooltip(d: &ScalingData<'_>, width: u32, height: u32, x: f64, y: f64) -> Option<String> {
    let gpus = gpus_at(d, width, height, x, y)?;
    let parts: Vec<String> = d
        .series
        .iter()
        .filter_map(|s| {
            let p = s
                .points
                .iter()
                .find(|p| p.num_gpus == gpus && p.error.is_none())?;
            let fit = if p.fits { "" } else { ", does not fit" };
            Some(format!(
                "{} {} ({} eff., fixed costs {} of the step{fit})",
                s.name,
                fmt_rate(p.tokens_per_s, "tokens/s"),
                fmt_pct(p.scaling_efficiency),
                fmt_pct(clean(p.fixed.total_s() / p.step_s))
            ))
        })
        .collect();
    Some(format!("{gpus} GPUs\n{}", parts.join("\n")))
}

/// The chart's text summary (its accessible name): each series' last point with its
/// throughput and the engine's scaling efficiency.
pub fn summary(d: &ScalingData<'_>) -> String {
    let parts: Vec<String> = d
        .series
        .iter()
        .filter_map(|s| {
            let last = s.points.iter().rev().find(|p| p.error.is_none())?;
            Some(format!(
                "{}: {} at {} GPUs ({} efficiency)",
                s.name,
                fmt_rate(last.tokens_per_s, "tokens/s"),
                last.num_gpus,
                fmt_pct(last.scaling_efficiency)
            ))
        })
        .collect();
    let mode = match d.scaling {
        Scaling::Strong => "Strong",
        Scaling::Weak => "Weak",
    };
    let fixed = match bend(d) {
        Some((n, share, largest)) => format!(
            " From {n} GPUs the costs paid once per step are {} of the step, most of it {largest}.",
            fmt_pct(share)
        ),
        None => String::new(),
    };
    format!("{mode} scaling. {}.{fixed}", parts.join("; "))
}
