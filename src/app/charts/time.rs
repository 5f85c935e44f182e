//! Step-time breakdown: one horizontal stacked bar for the critical path (compute forward and
//! backward, recompute, exposed TP/CP/EP/PP/DP communication, pipeline bubble, optimizer) and a
//! second, lighter bar for the communication hidden behind compute. MFU and tokens/s are in the
//! caption; the legend carries each part's time.

use super::error::ChartError;
use super::frame::{
    build, draw_header, draw_message, header_height, mesh, plot_rect, Axes, LegendItem, Margins,
    PlotRect, Swatch,
};
use super::style::{clean, fmt_pct, fmt_rate, fmt_seconds, tick, time_unit, ChartStyle, Palette};
use crate::engine::{CommTimes, Throughput, TimeEstimate};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

const TITLE: &str = "Step time breakdown";

/// The time chart's input.
#[derive(Clone, Copy, Debug)]
pub struct TimeData<'a> {
    /// Step time by component.
    pub time: &'a TimeEstimate,
    /// Rates for the caption.
    pub throughput: &'a Throughput,
    /// Time axis maximum, s, when several charts must share one scale (A/B comparison); the
    /// axis still covers this chart's own bars.
    pub scale_s: Option<f64>,
    /// The step time without the scenario's calibration, drawn as a faint marker beside the
    /// calibrated bar (`None` when the scenario is not calibrated).
    pub uncalibrated_s: Option<f64>,
}

/// A part of the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// Forward compute.
    Forward,
    /// Backward compute.
    Backward,
    /// Compute, when the engine does not split forward and backward.
    Compute,
    /// Recomputed forward work.
    Recompute,
    /// Tensor-parallel communication.
    Tp,
    /// Context-parallel communication.
    Cp,
    /// Expert-parallel communication.
    Ep,
    /// Pipeline point-to-point communication.
    Pp,
    /// Data-parallel communication.
    Dp,
    /// Pipeline bubble.
    Bubble,
    /// Optimizer step.
    Optimizer,
    /// Host-link transfers of offloaded optimizer states and activations.
    Offload,
    /// The GPU waiting for the eager host to issue operators.
    Host,
}

impl Part {
    /// Legend name.
    pub fn label(self) -> &'static str {
        match self {
            Part::Forward => "Forward",
            Part::Backward => "Backward",
            Part::Compute => "Compute",
            Part::Recompute => "Recompute",
            Part::Tp => "TP comm",
            Part::Cp => "CP comm",
            Part::Ep => "EP comm",
            Part::Pp => "PP comm",
            Part::Dp => "DP comm",
            Part::Bubble => "Bubble",
            Part::Optimizer => "Optimizer",
            Part::Offload => "Host offload",
            Part::Host => "Host-bound wait",
        }
    }

    /// Its colour (the same in every chart).
    pub fn color(self, p: &Palette) -> RGBColor {
        match self {
            Part::Forward | Part::Compute => p.forward,
            Part::Backward => p.backward,
            Part::Recompute => p.recompute,
            Part::Tp => p.tp,
            Part::Cp => p.cp,
            Part::Ep => p.ep,
            Part::Pp => p.pp,
            Part::Dp => p.dp,
            Part::Bubble => p.bubble,
            Part::Optimizer => p.optimizer,
            Part::Offload => p.offload,
            Part::Host => p.host,
        }
    }
}

/// The segment under the pointer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// In the hidden-communication bar (else the critical path).
    pub hidden: bool,
    /// Which part.
    pub part: Part,
    /// Its time, s.
    pub seconds: f64,
}

fn comm(c: &CommTimes) -> [(Part, f64); 5] {
    [
        (Part::Tp, clean(c.tp)),
        (Part::Cp, clean(c.cp)),
        (Part::Ep, clean(c.ep)),
        (Part::Pp, clean(c.pp)),
        (Part::Dp, clean(c.dp)),
    ]
}

/// Parts with their seconds, in drawing order.
type Parts = Vec<(Part, f64)>;

/// Critical-path parts and hidden parts, in drawing order, zeros dropped.
fn parts(t: &TimeEstimate) -> (Parts, Parts) {
    let (f, b) = (clean(t.forward_s), clean(t.backward_s));
    let mut step = Vec::with_capacity(10);
    if f + b > 0.0 {
        step.push((Part::Forward, f));
        step.push((Part::Backward, b));
    } else {
        step.push((Part::Compute, clean(t.compute_s)));
    }
    step.push((Part::Recompute, clean(t.recompute_s)));
    step.extend(comm(&t.exposed_comm_s));
    step.push((Part::Bubble, clean(t.bubble_s)));
    step.push((Part::Optimizer, clean(t.optimizer_s)));
    step.push((Part::Offload, clean(t.offload_s)));
    step.push((Part::Host, clean(t.host_s)));
    step.retain(|&(_, s)| s > 0.0);
    let mut hidden = comm(&t.hidden_comm_s).to_vec();
    hidden.retain(|&(_, s)| s > 0.0);
    (step, hidden)
}

fn legend(style: &ChartStyle, t: &TimeEstimate, uncalibrated_s: Option<f64>) -> Vec<LegendItem> {
    let p = &style.palette;
    let (step, hidden) = parts(t);
    let mut items: Vec<LegendItem> = step
        .iter()
        .map(|&(part, s)| {
            LegendItem::new(
                format!("{} {}", part.label(), fmt_seconds(s)),
                part.color(p),
                Swatch::Fill,
            )
        })
        .collect();
    items.extend(hidden.iter().map(|&(part, s)| {
        LegendItem::new(
            format!("hidden {} {}", part.label(), fmt_seconds(s)),
            part.color(p),
            Swatch::Faded,
        )
    }));
    if let Some(u) = uncalibrated_s {
        items.push(LegendItem::new(
            format!("uncalibrated step {}", fmt_seconds(u)),
            style.faded(p.text, 0.5),
            Swatch::Dashed,
        ));
    }
    items
}

const ROW_HALF: f64 = 0.3;
const STEP_ROW: f64 = 1.0;
const HIDDEN_ROW: f64 = 0.0;
const MARGINS: Margins = Margins {
    left: 104,
    right: 18,
    bottom: 42,
};

struct Geometry {
    rect: PlotRect,
    x: Range<f64>,
    y: Range<f64>,
    /// Seconds → axis unit.
    factor: f64,
    unit: &'static str,
}

fn geometry(d: &TimeData<'_>, width: u32, height: u32) -> Option<Geometry> {
    let t = d.time;
    let (step, hidden) = parts(t);
    let a: f64 = step.iter().map(|p| p.1).sum();
    let b: f64 = hidden.iter().map(|p| p.1).sum();
    let max = a
        .max(b)
        .max(clean(t.step_s))
        .max(d.scale_s.map_or(0.0, clean))
        .max(d.uncalibrated_s.map_or(0.0, clean));
    if max <= 0.0 {
        return None;
    }
    let (factor, unit) = time_unit(max);
    let header = header_height(width, &legend(&ChartStyle::light(), t, d.uncalibrated_s));
    let rect = plot_rect(width, height, header, MARGINS);
    if !rect.is_usable() {
        return None;
    }
    Some(Geometry {
        rect,
        x: 0.0..max * factor * 1.04,
        y: -0.6..1.6,
        factor,
        unit,
    })
}

/// Draws the step-time chart.
///
/// # Errors
/// Only backend failures; an all-zero breakdown draws a message.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &TimeData<'_>,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    let t = data.time;
    let (w, h) = root.dim_in_pixel();
    let Some(g) = geometry(data, w, h) else {
        return draw_message(
            root,
            style,
            TITLE,
            "All step-time parts are zero: nothing to draw yet.",
        );
    };
    let p = &style.palette;
    let (step, hidden) = parts(t);
    let step_s = clean(t.step_s).max(step.iter().map(|x| x.1).sum());
    let th = data.throughput;
    let caption = format!(
        "step {}{} · MFU {} · {} · {}",
        fmt_seconds(step_s),
        match data.uncalibrated_s {
            Some(u) => format!(" (calibrated; uncalibrated {})", fmt_seconds(u)),
            None => String::new(),
        },
        fmt_pct(clean(th.mfu)),
        fmt_rate(clean(th.tokens_per_s), "tokens/s"),
        fmt_rate(clean(th.samples_per_s), "samples/s"),
    );
    draw_header(
        root,
        style,
        TITLE,
        &caption,
        &legend(style, t, data.uncalibrated_s),
    )?;

    let mut chart = build(root, g.rect, g.x.clone(), g.y.clone())?;
    let x_desc = format!("Time per step ({})", g.unit);
    let x_fmt = |v: &f64| tick(*v);
    let y_fmt = |_: &f64| String::new();
    mesh(
        &mut chart,
        style,
        &Axes {
            x_desc: &x_desc,
            y_desc: "",
            x_labels: 8,
            y_labels: 0,
            x_fmt: &x_fmt,
            y_fmt: &y_fmt,
        },
    )?;

    let mut rects = Vec::with_capacity(step.len() + 2 * hidden.len());
    let mut x = 0.0;
    for &(part, s) in &step {
        let e = x + s * g.factor;
        rects.push(Rectangle::new(
            [(x, STEP_ROW - ROW_HALF), (e, STEP_ROW + ROW_HALF)],
            part.color(p).filled(),
        ));
        x = e;
    }
    let mut x = 0.0;
    for &(part, s) in &hidden {
        let e = x + s * g.factor;
        rects.push(Rectangle::new(
            [(x, HIDDEN_ROW - ROW_HALF), (e, HIDDEN_ROW + ROW_HALF)],
            style.faded(part.color(p), 0.55).filled(),
        ));
        rects.push(Rectangle::new(
            [(x, HIDDEN_ROW - ROW_HALF), (e, HIDDEN_ROW + ROW_HALF)],
            part.color(p).stroke_width(1),
        ));
        x = e;
    }
    chart.draw_series(rects)?;
    // The uncalibrated step: a faint dashed marker across the critical-path row.
    if let Some(u) = data.uncalibrated_s.map(clean).filter(|u| *u > 0.0) {
        let ux = u * g.factor;
        let faint = style.faded(p.text, 0.5);
        let (y0, y1) = (STEP_ROW - ROW_HALF - 0.12, STEP_ROW + ROW_HALF + 0.12);
        let dashes = 6;
        chart.draw_series((0..dashes).filter(|i| i % 2 == 0).map(|i| {
            let a = y0 + (y1 - y0) * f64::from(i) / f64::from(dashes);
            let b = y0 + (y1 - y0) * f64::from(i + 1) / f64::from(dashes);
            PathElement::new(vec![(ux, a), (ux, b)], faint.stroke_width(2))
        }))?;
    }

    // Row labels left of the plot.
    let label = style
        .text(super::style::px::AXIS, p.text)
        .pos(Pos::new(HPos::Right, VPos::Center));
    let lx = g.rect.left - 8;
    root.draw_text(
        "Critical path",
        &label,
        (lx, g.rect.map_y(STEP_ROW, &g.y).round() as i32),
    )?;
    let hidden_label = if hidden.is_empty() {
        "Hidden: none"
    } else {
        "Hidden comm"
    };
    root.draw_text(
        hidden_label,
        &label,
        (lx, g.rect.map_y(HIDDEN_ROW, &g.y).round() as i32),
    )?;
    root.present()?;
    Ok(())
}

/// The segment at pixel (`x`, `y`) of a `width × height` time chart, if any (same layout as
/// [`draw`]).
pub fn segment_at(data: &TimeData<'_>, width: u32, height: u32, x: f64, y: f64) -> Option<Segment> {
    let g = geometry(data, width, height)?;
    if !g.rect.contains(x, y) {
        return None;
    }
    let vy = g.rect.unmap_y(y, &g.y);
    let hidden = if (vy - STEP_ROW).abs() <= ROW_HALF {
        false
    } else if (vy - HIDDEN_ROW).abs() <= ROW_HALF {
        true
    } else {
        return None;
    };
    let at = g.rect.unmap_x(x, &g.x) / g.factor;
    let (step, hid) = parts(data.time);
    let list = if hidden { hid } else { step };
    let mut base = 0.0;
    for (part, s) in list {
        if at >= base && at < base + s {
            return Some(Segment {
                hidden,
                part,
                seconds: s,
            });
        }
        base += s;
    }
    None
}

/// Tooltip text for pixel (`x`, `y`) of a `width × height` time chart: the part's seconds and
/// its share of the step.
pub fn tooltip(d: &TimeData<'_>, width: u32, height: u32, x: f64, y: f64) -> Option<String> {
    let s = segment_at(d, width, height, x, y)?;
    let step = d.time.step_s;
    let share = if step > 0.0 && !s.hidden {
        format!(" ({} of the step)", fmt_pct(s.seconds / step))
    } else {
        String::new()
    };
    Some(format!(
        "{}{}: {}{share}",
        if s.hidden { "hidden " } else { "" },
        s.part.label(),
        fmt_seconds(s.seconds)
    ))
}

/// The chart's text summary (its accessible name).
pub fn summary(d: &TimeData<'_>) -> String {
    let t = d.time;
    format!(
        "Step time {}{}: compute {}, recompute {}, exposed communication {}, bubble {}, optimizer {}{}{}; hidden communication {}. MFU {}, {}.",
        fmt_seconds(t.step_s),
        match d.uncalibrated_s {
            Some(u) => format!(" (calibrated; {} uncalibrated)", fmt_seconds(u)),
            None => String::new(),
        },
        fmt_seconds(t.compute_s),
        fmt_seconds(t.recompute_s),
        fmt_seconds(t.exposed_comm_s.total()),
        fmt_seconds(t.bubble_s),
        fmt_seconds(t.optimizer_s),
        if t.offload_s > 0.0 {
            format!(", host offload {}", fmt_seconds(t.offload_s))
        } else {
            String::new()
        },
        if t.host_s > 0.0 {
            format!(", waiting for the host {}", fmt_seconds(t.host_s))
        } else {
            String::new()
        },
        fmt_seconds(t.hidden_comm_s.total()),
        fmt_pct(d.throughput.mfu),
        fmt_rate(d.throughput.tokens_per_s, "tokens/s")
    )
}
