//! Memory per pipeline stage: one stacked bar per stage (weights, gradients, optimizer states,
//! activations, overhead), the GPU's usable memory as a dashed line, stages over it outlined in
//! red with the overflow tinted. Bars thin out and stage labels get sparse as `pp` grows (readable
//! at pp = 64 and beyond). [`segment_at`] tells the app which segment the pointer is on.

use super::error::ChartError;
use super::frame::{
    build, draw_header, draw_message, header_height, mesh, plot_rect, Axes, Chart2d, LegendItem,
    PlotRect, Swatch, MARGINS,
};
use super::style::{clean, fmt_bytes, tick, ChartStyle, Palette, GIB};
use crate::engine::{MemoryEstimate, StageMemory};
use crate::text::num::Fixed;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

const TITLE: &str = "Memory per GPU by pipeline stage";

/// A part of a stage's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// Weights.
    Weights,
    /// Gradients.
    Gradients,
    /// Optimizer states.
    OptimizerStates,
    /// The routed experts' weights, gradients and optimizer states (MoE models; the three parts
    /// above are then the dense parameters' only).
    ExpertStates,
    /// Activations.
    Activations,
    /// Framework overhead (CUDA context, communication buffers, allocator reserve, …).
    Other,
}

impl Component {
    /// Bottom to top.
    pub const ALL: [Component; 6] = [
        Component::Weights,
        Component::Gradients,
        Component::OptimizerStates,
        Component::ExpertStates,
        Component::Activations,
        Component::Other,
    ];

    /// Legend name.
    pub fn label(self) -> &'static str {
        match self {
            Component::Weights => "Weights",
            Component::Gradients => "Gradients",
            Component::OptimizerStates => "Optimizer states",
            Component::ExpertStates => "Expert states",
            Component::Activations => "Activations",
            Component::Other => "Overhead",
        }
    }

    /// Its colour (the same in every chart).
    pub fn color(self, p: &Palette) -> RGBColor {
        match self {
            Component::Weights => p.weights,
            Component::Gradients => p.gradients,
            Component::OptimizerStates => p.optimizer,
            Component::ExpertStates => p.ep,
            Component::Activations => p.activations,
            Component::Other => p.other,
        }
    }

    /// Its bytes in `s` (0 for NaN or negative).
    pub fn bytes(self, s: &StageMemory) -> f64 {
        clean(match self {
            Component::Weights => s.weights_bytes - s.expert_weights_bytes,
            Component::Gradients => s.gradients_bytes - s.expert_gradients_bytes,
            Component::OptimizerStates => s.optimizer_bytes - s.expert_optimizer_bytes,
            Component::ExpertStates => {
                s.expert_weights_bytes + s.expert_gradients_bytes + s.expert_optimizer_bytes
            }
            Component::Activations => s.activations_bytes,
            Component::Other => s.other_bytes,
        })
    }
}

/// The segment under the pointer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// Pipeline stage.
    pub stage: u64,
    /// Which component.
    pub component: Component,
    /// Its size, bytes.
    pub bytes: f64,
    /// The whole stage's total, bytes.
    pub stage_total_bytes: f64,
}

fn stage_total(s: &StageMemory) -> f64 {
    Component::ALL.iter().map(|c| c.bytes(s)).sum()
}

/// Whether any stage holds routed experts (the legend lists expert states only then).
fn any_experts(data: &MemoryEstimate) -> bool {
    data.stages()
        .iter()
        .any(|s| Component::ExpertStates.bytes(s) > 0.0)
}

fn legend(style: &ChartStyle, any_over: bool, experts: bool) -> Vec<LegendItem> {
    let p = &style.palette;
    let mut items: Vec<LegendItem> = Component::ALL
        .iter()
        .filter(|&&c| experts || c != Component::ExpertStates)
        .map(|c| LegendItem::new(c.label(), c.color(p), Swatch::Fill))
        .collect();
    items.push(LegendItem::new("GPU capacity", p.reference, Swatch::Dashed));
    if any_over {
        items.push(LegendItem::new(
            "Over capacity (tinted)",
            p.danger,
            Swatch::Outline,
        ));
    }
    items
}

/// Where everything goes for a chart of `width × height`.
struct Geometry {
    rect: PlotRect,
    x: Range<f64>,
    y: Range<f64>,
    /// Half the bar width in stage units.
    half: f64,
}

fn geometry(data: &MemoryEstimate, width: u32, height: u32) -> Option<Geometry> {
    let n = data.stages().len();
    if n == 0 {
        return None;
    }
    let capacity = clean(data.capacity_bytes);
    let any_over = capacity > 0.0 && data.stages().iter().any(|s| stage_total(s) > capacity);
    let top = data
        .stages()
        .iter()
        .map(stage_total)
        .fold(capacity, f64::max)
        / GIB;
    if top <= 0.0 {
        return None;
    }
    let header = header_height(
        width,
        &legend(&ChartStyle::light(), any_over, any_experts(data)),
    );
    let rect = plot_rect(width, height, header, MARGINS);
    if !rect.is_usable() {
        return None;
    }
    let slot = f64::from(rect.right - rect.left) / n as f64;
    // Gaps between bars while there is room; touching bars when there is not.
    let half = if slot >= 8.0 {
        0.35
    } else if slot >= 3.0 {
        0.4
    } else {
        0.5
    };
    Some(Geometry {
        rect,
        x: -0.5..(n as f64 - 0.5),
        y: 0.0..top * 1.08,
        half,
    })
}

/// Each stage's total against the usable capacity.
struct Totals {
    /// Usable bytes per GPU (0: unknown).
    capacity: f64,
    /// Each stage's total bytes.
    totals: Vec<f64>,
    /// Whether each stage is over the capacity.
    over: Vec<bool>,
    /// How many are.
    n_over: usize,
    /// The stage with the largest total, and that total.
    peak_stage: usize,
    peak: f64,
}

impl Totals {
    fn of(data: &MemoryEstimate) -> Totals {
        let capacity = clean(data.capacity_bytes);
        let totals: Vec<f64> = data.stages().iter().map(stage_total).collect();
        let over: Vec<bool> = totals
            .iter()
            .map(|&t| capacity > 0.0 && t > capacity)
            .collect();
        let n_over = over.iter().filter(|&&o| o).count();
        let (peak_stage, peak) =
            totals
                .iter()
                .copied()
                .enumerate()
                .fold(
                    (0, 0.0),
                    |best, (i, t)| if t > best.1 { (i, t) } else { best },
                );
        Totals {
            capacity,
            totals,
            over,
            n_over,
            peak_stage,
            peak,
        }
    }

    /// The caption: the peak, and whether it fits with what headroom.
    fn caption(&self) -> String {
        let (peak, peak_stage, capacity) = (self.peak, self.peak_stage, self.capacity);
        if capacity <= 0.0 {
            format!(
                "peak {} on stage {peak_stage}; GPU capacity unknown",
                fmt_bytes(peak)
            )
        } else if self.n_over == 0 {
            format!(
                "peak {} on stage {peak_stage} of {} usable: fits, {} headroom",
                fmt_bytes(peak),
                fmt_bytes(capacity),
                fmt_bytes(capacity - peak)
            )
        } else {
            format!(
                "{} of {} stages over the {} usable (peak {} on stage {peak_stage}): does not fit",
                self.n_over,
                self.totals.len(),
                fmt_bytes(capacity),
                fmt_bytes(peak)
            )
        }
    }
}

/// The bars: one rectangle per non-zero component of each stage, stacked; over capacity the
/// overflow tinted and the whole bar outlined in red.
fn draw_bars<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    data: &MemoryEstimate,
    t: &Totals,
    g: &Geometry,
    p: &Palette,
) -> Result<(), ChartError> {
    let mut rects = Vec::with_capacity(data.stages().len() * Component::ALL.len());
    for (i, s) in data.stages().iter().enumerate() {
        let x = i as f64;
        let mut base = 0.0;
        for c in Component::ALL {
            let b = c.bytes(s) / GIB;
            if b > 0.0 {
                rects.push(Rectangle::new(
                    [(x - g.half, base), (x + g.half, base + b)],
                    c.color(p).filled(),
                ));
            }
            base += b;
        }
    }
    chart.draw_series(rects)?;
    if t.n_over == 0 {
        return Ok(());
    }
    let cap = t.capacity / GIB;
    // (x, total in GiB) of each bar over capacity.
    let over_bars = || {
        t.over
            .iter()
            .zip(&t.totals)
            .enumerate()
            .filter(|(_, (o, _))| **o)
            .map(|(i, (_, &t))| (i as f64, t / GIB))
    };
    chart.draw_series(over_bars().map(|(x, top)| {
        Rectangle::new(
            [(x - g.half, cap), (x + g.half, top)],
            p.danger.mix(0.35).filled(),
        )
    }))?;
    chart.draw_series(over_bars().map(|(x, top)| {
        Rectangle::new(
            [(x - g.half, 0.0), (x + g.half, top)],
            p.danger.stroke_width(2),
        )
    }))?;
    Ok(())
}

/// The capacity line and its label, on a background-coloured plate so it stays legible over
/// bars.
fn draw_capacity<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    capacity: f64,
    g: &Geometry,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    let p = &style.palette;
    let y = g.rect.map_y(capacity / GIB, &g.y).round() as i32;
    dashed(
        root,
        g.rect.left,
        g.rect.right - 1,
        y,
        p.reference.stroke_width(2),
    )?;
    let label = format!("capacity {}", fmt_bytes(capacity));
    let tw = super::style::text_width(&label, super::style::px::TICK).ceil() as i32;
    let (x1, yb) = (g.rect.right - 4, y - 3);
    root.draw(&Rectangle::new(
        [(x1 - tw - 4, yb - 14), (x1 + 2, yb)],
        p.background.mix(0.85).filled(),
    ))?;
    root.draw_text(
        &label,
        &style
            .text(super::style::px::TICK, p.reference)
            .pos(Pos::new(HPos::Right, VPos::Bottom)),
        (x1, yb),
    )?;
    Ok(())
}

/// Draws the memory chart: the header, the axes, the stacked bars, the overflow and the
/// capacity line.
///
/// # Errors
/// Only backend failures; no stages or all-zero memory draws a message.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &MemoryEstimate,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    let (w, h) = root.dim_in_pixel();
    let Some(g) = geometry(data, w, h) else {
        let msg = if data.stages().is_empty() {
            "No pipeline stages to show."
        } else {
            "All memory figures are zero: nothing to draw yet."
        };
        return draw_message(root, style, TITLE, msg);
    };
    let p = &style.palette;
    let t = Totals::of(data);
    draw_header(
        root,
        style,
        TITLE,
        &t.caption(),
        &legend(style, t.n_over > 0, any_experts(data)),
    )?;

    let n = data.stages().len();
    let mut chart = build(root, g.rect, g.x.clone(), g.y.clone())?;
    let x_fmt = |v: &f64| {
        let r = v.round();
        if (v - r).abs() < 1e-6 && r >= 0.0 && r < n as f64 {
            Fixed(r, 0).to_string()
        } else {
            String::new()
        }
    };
    let y_fmt = |v: &f64| tick(*v);
    mesh(
        &mut chart,
        style,
        &Axes {
            x_desc: "Pipeline stage",
            y_desc: "Memory per GPU (GiB)",
            x_labels: n.clamp(1, 16),
            y_labels: 6,
            x_fmt: &x_fmt,
            y_fmt: &y_fmt,
        },
    )?;
    draw_bars(&mut chart, data, &t, &g, p)?;
    if t.capacity > 0.0 {
        draw_capacity(root, t.capacity, &g, style)?;
    }
    root.present()?;
    Ok(())
}

/// A horizontal dashed line from `x0` to `x1` at `y` (root pixels).
pub(crate) fn dashed<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    x0: i32,
    x1: i32,
    y: i32,
    style: ShapeStyle,
) -> Result<(), ChartError> {
    let mut x = x0;
    while x < x1 {
        let e = (x + 7).min(x1);
        root.draw(&PathElement::new(vec![(x, y), (e, y)], style))?;
        x += 11;
    }
    Ok(())
}

/// The segment at pixel (`x`, `y`) of a `width × height` memory chart of `data`, if any.
/// Same layout as [`draw`]; pass CSS pixels for a canvas drawn by the canvas helper.
pub fn segment_at(
    data: &MemoryEstimate,
    width: u32,
    height: u32,
    x: f64,
    y: f64,
) -> Option<Segment> {
    let g = geometry(data, width, height)?;
    if !g.rect.contains(x, y) {
        return None;
    }
    let sx = g.rect.unmap_x(x, &g.x);
    let i = sx.round();
    if (sx - i).abs() > g.half || i < 0.0 {
        return None;
    }
    let stage = &data.stage(i as u64)?;
    let at = g.rect.unmap_y(y, &g.y) * GIB;
    let mut base = 0.0;
    for c in Component::ALL {
        let b = c.bytes(stage);
        if b > 0.0 && at >= base && at < base + b {
            return Some(Segment {
                stage: stage.stage,
                component: c,
                bytes: b,
                stage_total_bytes: stage_total(stage),
            });
        }
        base += b;
    }
    None
}

/// Centre pixel of `stage`'s `component` segment (for tests and keyboard focus), if drawn.
pub fn segment_center(
    data: &MemoryEstimate,
    width: u32,
    height: u32,
    stage: usize,
    component: Component,
) -> Option<(f64, f64)> {
    let g = geometry(data, width, height)?;
    let s = &data.stage(stage as u64)?;
    let mut base = 0.0;
    for c in Component::ALL {
        let b = c.bytes(s);
        if c == component {
            if b <= 0.0 {
                return None;
            }
            let x = g.rect.map_x(stage as f64, &g.x);
            let y = g.rect.map_y((base + b / 2.0) / GIB, &g.y);
            return Some((x, y));
        }
        base += b;
    }
    None
}

/// Tooltip text for pixel (`x`, `y`) of a `width × height` memory chart: the segment's exact
/// bytes and its stage's total.
pub fn tooltip(m: &MemoryEstimate, width: u32, height: u32, x: f64, y: f64) -> Option<String> {
    let s = segment_at(m, width, height, x, y)?;
    Some(format!(
        "Stage {}: {} {} of {}",
        s.stage,
        s.component.label(),
        fmt_bytes(s.bytes),
        fmt_bytes(s.stage_total_bytes)
    ))
}

/// The chart's text summary (its accessible name).
pub fn summary(m: &MemoryEstimate) -> String {
    format!(
        "Memory per GPU for {} pipeline stages: peak {} on stage {} of {} usable; {}.",
        m.stages().len(),
        fmt_bytes(m.peak_bytes),
        m.peak_stage,
        fmt_bytes(m.capacity_bytes),
        if m.fits { "fits" } else { "does not fit" }
    )
}
