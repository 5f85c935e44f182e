//! Pipeline schedule timeline: one row per stage (stage 0 on top), a block per forward and
//! backward of every micro-batch (and chunk, interleaved), idle time (the bubble) left visible as
//! the grey row background. The blocks come from [`engine::schedule::timeline`]. Large `m` is cut
//! to a shorter step that still shows warm-up, steady state and cool-down (the caption says so);
//! the bubble fraction in the caption is the estimate's, for the real `m`.
//!
//! [`engine::schedule::timeline`]: crate::engine::schedule::timeline

use super::error::ChartError;
use super::frame::{
    build, draw_header, draw_message, header_height, mesh, plot_rect, Axes, Chart2d, LegendItem,
    Margins, PlotRect, Swatch,
};
use super::style::{clean, fmt_pct, fmt_seconds, tick, time_unit, ChartStyle};
use crate::engine::schedule::{makespan, timeline, Block, BlockKind};
use crate::engine::TimeEstimate;
use crate::scenario::{Scenario, Schedule};
use crate::text::num::Fixed;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

const TITLE: &str = "Pipeline schedule";
/// Most blocks drawn; `m` is cut to stay under it (but never below `min(m, p)` micro-batches
/// unless `p·v` alone exceeds it).
pub const MAX_BLOCKS: u64 = 4096;
/// Blocks get micro-batch numbers only when there are at most this many.
const MAX_LABELLED: usize = 600;

/// The schedule chart's input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScheduleData {
    /// Pipeline stages `p`.
    pub pp: u64,
    /// Micro-batches per step `m`.
    pub micro_batches: u64,
    /// Chunks per stage `v`.
    pub vp: u64,
    /// Which schedule.
    pub schedule: Schedule,
    /// Forward time of one micro-batch on one stage, s (0 = unknown: drawn in relative units).
    pub t_fwd_s: f64,
    /// Backward (with recompute) time of one micro-batch on one stage, s.
    pub t_bwd_s: f64,
    /// Part of `t_bwd_s`: the weight-gradient (W) GEMMs, s; drawn apart by the schedules that
    /// split the backward ([`Schedule::splits_backward`]).
    pub t_wgrad_s: f64,
    /// The estimate's bubble fraction of the step
    /// ([`TimeEstimate::bubble_fraction`]), shown in the caption and summary.
    pub bubble_fraction: f64,
}

impl ScheduleData {
    /// The schedule of `s`, with the micro-batch count, the bubble fraction and the
    /// per-micro-batch times of its estimate `time` (`forward_s / m`,
    /// `(backward_s + recompute_s) / m`).
    pub fn from_scenario(s: &Scenario, time: &TimeEstimate) -> ScheduleData {
        let m = time.micro_batches;
        let mf = m.max(1) as f64;
        ScheduleData {
            pp: s.parallel.pp,
            micro_batches: m,
            vp: s.parallel.vp,
            schedule: s.parallel.schedule(),
            t_fwd_s: clean(time.forward_s) / mf,
            t_bwd_s: (clean(time.backward_s) + clean(time.recompute_s)) / mf,
            t_wgrad_s: clean(time.weight_grad_s) / mf,
            bubble_fraction: clean(time.bubble_fraction()),
        }
    }

    fn v(&self) -> u64 {
        match self.schedule {
            Schedule::Interleaved => self.vp.max(1),
            Schedule::ZbV | Schedule::DualPipeV => 2,
            _ => 1,
        }
    }

    /// The micro-batches actually drawn (≤ `m`).
    pub fn drawn_micro_batches(&self) -> u64 {
        let (p, m, v) = (self.pp.max(1), self.micro_batches, self.v());
        let want = p.saturating_mul(2).max(8);
        let per_mb = p.saturating_mul(v).saturating_mul(2).max(1);
        let budget = (MAX_BLOCKS / per_mb).max(1);
        let mut n = m.min(want.min(budget.max(p.min(m))));
        if n < m && v > 1 && n >= p {
            n -= n % p; // whole groups of p for the interleaved order
        }
        if n < m && v > 1 && n < p {
            n = p.min(m);
        }
        if matches!(self.schedule, Schedule::DualPipe | Schedule::DualPipeV) {
            // DualPipe needs m ≥ 2p (and even); a cut keeps whole pairs.
            n = n.max(p.saturating_mul(2));
            if self.schedule == Schedule::DualPipe {
                n += n % 2;
            }
        }
        n.max(1).min(m)
    }
}

/// Where everything goes in a `width × height` schedule chart.
struct Geometry {
    blocks: Vec<Block>,
    span: f64,
    relative: bool,
    v: u64,
    m_drawn: u64,
    rect: PlotRect,
    x: Range<f64>,
    y: Range<f64>,
    factor: f64,
    unit: &'static str,
}

fn legend(style: &ChartStyle, relative: bool, v: u64, split: bool) -> Vec<LegendItem> {
    let p = &style.palette;
    let mut legend = vec![
        LegendItem::new("Forward", p.forward, Swatch::Fill),
        LegendItem::new(
            if relative {
                "Backward (t = 2·fwd)"
            } else {
                "Backward"
            },
            p.backward,
            Swatch::Fill,
        ),
        LegendItem::new("Idle (bubble)", p.bubble, Swatch::Fill),
    ];
    if split {
        legend.insert(2, LegendItem::new("Weight grad (W)", p.wgrad, Swatch::Fill));
        if let Some(b) = legend.get_mut(1) {
            *b = LegendItem::new("Input grad (B)", p.backward, Swatch::Fill);
        }
    }
    if v > 1 {
        legend.push(LegendItem::new(
            "later chunks faded",
            style.faded(p.forward, 0.5),
            Swatch::Fill,
        ));
    }
    legend
}

/// The layout, or the sentence to show instead.
fn geometry(data: &ScheduleData, width: u32, height: u32) -> Result<Geometry, String> {
    if data.pp == 0 || data.micro_batches == 0 {
        return Err("No stages or no micro-batches to show.".into());
    }
    let relative = !(clean(data.t_fwd_s) > 0.0 && clean(data.t_bwd_s) >= 0.0);
    let (tf, tb) = if relative {
        (1.0, 2.0)
    } else {
        (data.t_fwd_s, clean(data.t_bwd_s))
    };
    let v = data.v();
    let m_drawn = data.drawn_micro_batches();
    let tw = if relative {
        1.0
    } else {
        clean(data.t_wgrad_s).min(tb)
    };
    let blocks = timeline(data.pp, m_drawn, v, data.schedule, tf, tb, Some(tw))
        .map_err(|e| format!("Cannot draw: {e}."))?;
    let span = makespan(&blocks);
    if span <= 0.0 {
        return Err("Zero-length step: nothing to draw.".into());
    }
    let header = header_height(
        width,
        &legend(
            &ChartStyle::light(),
            relative,
            v,
            data.schedule.splits_backward(),
        ),
    );
    let rect = plot_rect(
        width,
        height,
        header,
        Margins {
            left: 64,
            right: 18,
            bottom: 42,
        },
    );
    if !rect.is_usable() {
        return Err("Too small to draw.".into());
    }
    let (factor, unit) = if relative { (1.0, "") } else { time_unit(span) };
    Ok(Geometry {
        blocks,
        span,
        relative,
        v,
        m_drawn,
        rect,
        x: 0.0..span * factor * 1.01,
        y: -0.5..(data.pp as f64 - 0.5),
        factor,
        unit,
    })
}

/// Half the height of a stage's row, in row units.
fn row_half(pp: u64) -> f64 {
    if pp > 24 {
        0.5
    } else {
        0.4
    }
}

/// The block at pixel (`x`, `y`) of a `width × height` schedule chart (same layout as [`draw`]),
/// with times in seconds (or relative units when the engine's times are unknown).
pub fn block_at(data: &ScheduleData, width: u32, height: u32, x: f64, y: f64) -> Option<Block> {
    let g = geometry(data, width, height).ok()?;
    if !g.rect.contains(x, y) {
        return None;
    }
    let t = g.rect.unmap_x(x, &g.x) / g.factor;
    let row = g.rect.unmap_y(y, &g.y);
    let r = row.round();
    if (row - r).abs() > row_half(data.pp) || r < 0.0 {
        return None;
    }
    let stage = (data.pp as f64 - 1.0 - r) as u64;
    g.blocks
        .iter()
        .find(|b| b.stage == stage && t >= b.start && t < b.end)
        .copied()
}

/// Draws the schedule chart.
///
/// # Errors
/// Only backend failures; invalid sizes draw a message.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ScheduleData,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    let (w, h) = root.dim_in_pixel();
    let g = match geometry(data, w, h) {
        Ok(g) => g,
        Err(msg) => return draw_message(root, style, TITLE, &msg),
    };
    draw_header(
        root,
        style,
        TITLE,
        &caption(data, &g),
        &legend(style, g.relative, g.v, data.schedule.splits_backward()),
    )?;
    let pp = data.pp;
    let mut chart = build(root, g.rect, g.x.clone(), g.y.clone())?;
    draw_axes(&mut chart, style, &g, pp)?;
    let min_w = draw_blocks(&mut chart, style, &g, pp)?;
    // Micro-batch numbers when there is room.
    let row_px = f64::from(g.rect.bottom - g.rect.top) / pp as f64;
    if g.blocks.len() <= MAX_LABELLED && row_px >= 12.0 && min_w >= 14.0 {
        draw_numbers(root, style, &g, pp)?;
    }
    root.present()?;
    Ok(())
}

/// The caption: the schedule's name, `p` and `m`, the estimate's bubble (for the real `m`),
/// and how many micro-batches are drawn when fewer.
fn caption(data: &ScheduleData, g: &Geometry) -> String {
    let v = g.v;
    let name = match data.schedule {
        Schedule::OneFOneB => "1F1B".to_string(),
        Schedule::Interleaved => format!("interleaved 1F1B, v = {v}"),
        Schedule::Gpipe => "GPipe".to_string(),
        Schedule::ZbH1 => "ZB-H1".to_string(),
        Schedule::ZbV => "ZB-V".to_string(),
        Schedule::DualPipe => "DualPipe".to_string(),
        Schedule::DualPipeV => "DualPipeV".to_string(),
    };
    let mut caption = format!(
        "{name} · p = {}, m = {} · bubble {} of the step",
        data.pp,
        data.micro_batches,
        fmt_pct(data.bubble_fraction)
    );
    if g.m_drawn < data.micro_batches {
        caption.push_str(&format!(
            " · drawn with {} of {} micro-batches",
            g.m_drawn, data.micro_batches
        ));
    }
    caption
}

/// The row of `stage` among `pp` (stage 0 on top), in row units.
fn row(pp: u64, stage: u64) -> f64 {
    pp as f64 - 1.0 - stage as f64
}

/// The mesh: time on x (the engine's, or in forwards of one micro-batch when its times are
/// unknown), one labelled row per stage on y.
fn draw_axes<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    style: &ChartStyle,
    g: &Geometry,
    pp: u64,
) -> Result<(), ChartError> {
    let x_desc = if g.relative {
        "Time (forward of one micro-batch = 1; engine times not available)".to_string()
    } else {
        format!("Time ({})", g.unit)
    };
    let x_fmt = |v: &f64| tick(*v);
    let y_fmt = |v: &f64| {
        let r = v.round();
        if (v - r).abs() < 1e-6 && r >= 0.0 && r < pp as f64 {
            Fixed(pp as f64 - 1.0 - r, 0).to_string()
        } else {
            String::new()
        }
    };
    mesh(
        chart,
        style,
        &Axes {
            x_desc: &x_desc,
            y_desc: "Pipeline stage",
            x_labels: 8,
            y_labels: (pp as usize).clamp(1, 16),
            x_fmt: &x_fmt,
            y_fmt: &y_fmt,
        },
    )
}

/// Each stage's idle background (whatever the blocks do not cover is the bubble), then the
/// blocks, the chunks of an interleaved schedule shaded lighter; returns the narrowest block's
/// width in pixels.
fn draw_blocks<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    style: &ChartStyle,
    g: &Geometry,
    pp: u64,
) -> Result<f64, ChartError> {
    let p = &style.palette;
    let half = row_half(pp);
    chart.draw_series((0..pp).map(|s| {
        Rectangle::new(
            [
                (0.0, row(pp, s) - half),
                (g.span * g.factor, row(pp, s) + half),
            ],
            style.faded(p.bubble, 0.35).filled(),
        )
    }))?;
    // A hairline gap between neighbouring blocks when they are wide enough to show it.
    let px_per_unit = f64::from(g.rect.right - g.rect.left) / (g.x.end - g.x.start);
    let min_w = g
        .blocks
        .iter()
        .map(|b| (b.end - b.start) * g.factor * px_per_unit)
        .fold(f64::INFINITY, f64::min);
    // From 2.5 px: a 1 px gap still leaves a visible block, and runs of same-coloured blocks
    // (the interleaved warm-up) stay countable.
    let gap = if min_w >= 2.5 { 0.5 / px_per_unit } else { 0.0 };
    let shade = |chunk: u64| {
        if g.v > 1 {
            0.5 * chunk as f64 / (g.v - 1) as f64
        } else {
            0.0
        }
    };
    chart.draw_series(g.blocks.iter().map(|b| {
        let base = match b.kind {
            BlockKind::Forward => p.forward,
            BlockKind::Backward => p.backward,
            BlockKind::WeightGrad => p.wgrad,
        };
        let c = style.faded(base, shade(b.chunk));
        let y = row(pp, b.stage);
        Rectangle::new(
            [
                (b.start * g.factor + gap, y - half),
                (b.end * g.factor - gap, y + half),
            ],
            c.filled(),
        )
    }))?;
    Ok(min_w)
}

/// Each block's micro-batch number, centred on it.
fn draw_numbers<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    style: &ChartStyle,
    g: &Geometry,
    pp: u64,
) -> Result<(), ChartError> {
    let text = style
        .text(10.0, style.palette.background)
        .pos(Pos::new(HPos::Center, VPos::Center));
    for b in &g.blocks {
        let cx = g.rect.map_x((b.start + b.end) / 2.0 * g.factor, &g.x);
        let cy = g.rect.map_y(row(pp, b.stage), &g.y);
        root.draw_text(
            &b.micro_batch.to_string(),
            &text,
            (cx.round() as i32, cy.round() as i32),
        )?;
    }
    Ok(())
}

/// Tooltip text for pixel (`x`, `y`) of a `width × height` schedule chart: the block's stage,
/// micro-batch, chunk and times.
pub fn tooltip(d: &ScheduleData, width: u32, height: u32, x: f64, y: f64) -> Option<String> {
    let b = block_at(d, width, height, x, y)?;
    let kind = match b.kind {
        BlockKind::Forward => "forward",
        BlockKind::Backward => "backward",
        BlockKind::WeightGrad => "weight gradient",
    };
    let chunk = if d.vp > 1 {
        format!(", chunk {}", b.chunk)
    } else {
        String::new()
    };
    let when = if d.t_fwd_s > 0.0 {
        format!("{} → {}", fmt_seconds(b.start), fmt_seconds(b.end))
    } else {
        format!("{} → {} (relative)", Fixed(b.start, 1), Fixed(b.end, 1))
    };
    Some(format!(
        "Stage {}, micro-batch {}{chunk}: {kind} {when}",
        b.stage, b.micro_batch
    ))
}

/// The chart's text summary (its accessible name), with the estimate's bubble fraction.
pub fn summary(d: &ScheduleData) -> String {
    format!(
        "Pipeline schedule {} with {} stages, {} micro-batches, {} chunks per stage: bubble {} of the step.",
        d.schedule.as_str(),
        d.pp,
        d.micro_batches,
        d.vp,
        fmt_pct(d.bubble_fraction)
    )
}
