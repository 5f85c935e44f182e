//! Search results: every sampled feasible layout as a point (peak memory per GPU vs cluster
//! throughput), the Pareto front (most throughput for its memory) highlighted and joined, the
//! current layout ringed. [`point_at`] returns the layout under the pointer so a click can apply
//! it. Point counts are bounded ([`MAX_POINTS`]) so the chart redraws within a frame.

use super::error::ChartError;
use super::frame::{
    build, draw_header, draw_message, header_height, mesh, plot_rect, Axes, LegendItem, PlotRect,
    Swatch, MARGINS,
};
use super::style::{clean, fmt_bytes, fmt_rate, si_tick, tick, ChartStyle, GIB};
use crate::engine::search::{Layout, Ranked, SearchReport};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

const TITLE: &str = "Layout search: throughput vs peak memory";
/// Most sampled points drawn (evenly strided over `report.points`).
pub const MAX_POINTS: usize = 600;
/// Most Pareto points drawn.
pub const MAX_PARETO: usize = 400;
/// Pointer distance (px) within which a point counts as hit.
pub const HIT_RADIUS: f64 = 8.0;

/// The search chart's input.
#[derive(Clone, Copy, Debug)]
pub struct SearchData<'a> {
    /// The search result.
    pub report: &'a SearchReport,
    /// The scenario's current layout (ringed if it is among the points).
    pub current: Option<Layout>,
    /// Where the current layout sits (peak bytes, tokens/s) when it is not among the points.
    pub current_at: Option<(f64, f64)>,
    /// GPU memory, bytes, drawn as a vertical line.
    pub capacity_bytes: Option<f64>,
}

/// A short name for a layout: "TP4 PP2 DP8 mb1 ZeRO1".
pub fn layout_label(l: &Layout) -> String {
    let mut s = format!("TP{} PP{} DP{}", l.tp, l.pp, l.dp);
    if l.cp > 1 {
        s.push_str(&format!(" CP{}", l.cp));
    }
    if l.ep > 1 {
        s.push_str(&format!(" EP{}", l.ep));
    }
    if l.vp > 1 {
        s.push_str(&format!(" VP{}", l.vp));
    }
    s.push_str(&format!(" mb{} ZeRO{}", l.micro_batch, l.zero_stage));
    if let Some(sched) = l.schedule {
        s.push_str(&format!(" {}", sched.as_str()));
    }
    if let Some((f, last)) = l.first_last {
        s.push_str(&format!(" split {f}/…/{last}"));
    }
    s
}

fn usable(r: &Ranked) -> bool {
    clean(r.peak_bytes) > 0.0 && clean(r.tokens_per_s) > 0.0
}

/// The points drawn, in drawing order: sampled points, then the Pareto front.
fn drawn(report: &SearchReport) -> (Vec<&Ranked>, Vec<&Ranked>) {
    let n = report.points.len();
    let stride = n.div_ceil(MAX_POINTS).max(1);
    let pts = report
        .points
        .iter()
        .step_by(stride)
        .filter(|r| usable(r))
        .collect();
    let mut front: Vec<&Ranked> = report
        .pareto
        .iter()
        .filter(|r| usable(r))
        .take(MAX_PARETO)
        .collect();
    crate::sort::sort_by(&mut front, |a, b| a.peak_bytes.total_cmp(&b.peak_bytes));
    (pts, front)
}

fn current_point(d: &SearchData<'_>) -> Option<(f64, f64)> {
    let r = &d.report;
    if let Some(l) = d.current {
        if let Some(hit) = r
            .pareto
            .iter()
            .chain(&r.points)
            .chain(&r.best)
            .find(|x| x.layout == l && usable(x))
        {
            return Some((hit.peak_bytes, hit.tokens_per_s));
        }
    }
    d.current_at
        .filter(|&(b, t)| clean(b) > 0.0 && clean(t) > 0.0)
}

struct Geometry {
    rect: PlotRect,
    x: Range<f64>,
    y: Range<f64>,
}

fn legend(style: &ChartStyle, has_current: bool, has_capacity: bool) -> Vec<LegendItem> {
    let p = &style.palette;
    let mut items = vec![
        LegendItem::new("Feasible layout", p.point, Swatch::Dot),
        LegendItem::new("Pareto front", p.pareto, Swatch::Line),
    ];
    if has_current {
        items.push(LegendItem::new("Current layout", p.current, Swatch::Ring));
    }
    if has_capacity {
        items.push(LegendItem::new("GPU capacity", p.reference, Swatch::Dashed));
    }
    items
}

fn geometry(d: &SearchData<'_>, width: u32, height: u32) -> Option<Geometry> {
    let (pts, front) = drawn(d.report);
    let cur = current_point(d);
    let cap = d.capacity_bytes.map(clean).filter(|&c| c > 0.0);
    let all = pts
        .iter()
        .chain(&front)
        .map(|r| (r.peak_bytes, r.tokens_per_s))
        .chain(cur);
    let (mut xmax, mut ymax, mut any) = (0.0f64, 0.0f64, false);
    for (b, t) in all {
        xmax = xmax.max(b);
        ymax = ymax.max(t);
        any = true;
    }
    if !any {
        return None;
    }
    if let Some(c) = cap {
        xmax = xmax.max(c);
    }
    let header = header_height(
        width,
        &legend(&ChartStyle::light(), cur.is_some(), cap.is_some()),
    );
    let rect = plot_rect(width, height, header, MARGINS);
    if !rect.is_usable() {
        return None;
    }
    Some(Geometry {
        rect,
        x: 0.0..xmax / GIB * 1.08,
        y: 0.0..ymax * 1.1,
    })
}

/// Draws the search chart.
///
/// # Errors
/// Only backend failures; no feasible layouts draws a message.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &SearchData<'_>,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    let (w, h) = root.dim_in_pixel();
    let r = data.report;
    let Some(g) = geometry(data, w, h) else {
        let msg = if r.evaluated == 0 {
            "No search results yet.".to_string()
        } else {
            format!(
                "None of the {} layouts evaluated fits in memory.",
                r.evaluated
            )
        };
        return draw_message(root, style, TITLE, &msg);
    };
    let p = &style.palette;
    let (pts, front) = drawn(r);
    let cur = current_point(data);
    let cap = data.capacity_bytes.map(clean).filter(|&c| c > 0.0);
    let mut caption = format!(
        "{} evaluated, {} fit · {} shown · Pareto front {}",
        r.evaluated,
        r.feasible,
        pts.len(),
        front.len()
    );
    if let Some(best) = r.best.first() {
        caption.push_str(&format!(
            " · best {} ({}, {})",
            fmt_rate(best.tokens_per_s, "tokens/s"),
            layout_label(&best.layout),
            fmt_bytes(best.peak_bytes)
        ));
    }
    if r.truncated {
        caption.push_str(" · enumeration capped");
    }
    draw_header(
        root,
        style,
        TITLE,
        &caption,
        &legend(style, cur.is_some(), cap.is_some()),
    )?;

    let mut chart = build(root, g.rect, g.x.clone(), g.y.clone())?;
    let x_fmt = |v: &f64| tick(*v);
    let y_fmt = |v: &f64| si_tick(*v);
    mesh(
        &mut chart,
        style,
        &Axes {
            x_desc: "Peak memory per GPU (GiB)",
            y_desc: "Throughput (tokens/s)",
            x_labels: 8,
            y_labels: 6,
            x_fmt: &x_fmt,
            y_fmt: &y_fmt,
        },
    )?;
    if let Some(c) = cap {
        let x = g.rect.map_x(c / GIB, &g.x).round() as i32;
        let mut y = g.rect.top;
        while y < g.rect.bottom {
            let e = (y + 7).min(g.rect.bottom - 1);
            root.draw(&PathElement::new(
                vec![(x, y), (x, e)],
                p.reference.stroke_width(1),
            ))?;
            y += 11;
        }
    }
    chart.draw_series(pts.iter().map(|q| {
        Circle::new(
            (q.peak_bytes / GIB, q.tokens_per_s),
            3,
            p.point.mix(0.75).filled(),
        )
    }))?;
    chart.draw_series(LineSeries::new(
        front.iter().map(|q| (q.peak_bytes / GIB, q.tokens_per_s)),
        p.pareto.stroke_width(2),
    ))?;
    chart.draw_series(
        front
            .iter()
            .map(|q| Circle::new((q.peak_bytes / GIB, q.tokens_per_s), 4, p.pareto.filled())),
    )?;
    if let Some((b, t)) = cur {
        let (x, y) = (g.rect.map_x(b / GIB, &g.x), g.rect.map_y(t, &g.y));
        let c = (x.round() as i32, y.round() as i32);
        root.draw(&Circle::new(c, 7, p.current.stroke_width(2)))?;
        root.draw_text(
            "current",
            &style
                .text(super::style::px::TICK, p.current)
                .pos(Pos::new(HPos::Left, VPos::Bottom)),
            (c.0 + 8, c.1 - 6),
        )?;
    }
    root.present()?;
    Ok(())
}

/// The layout (with its numbers) nearest to pixel (`x`, `y`) within [`HIT_RADIUS`], preferring
/// the Pareto front; same layout as [`draw`].
pub fn ranked_at(data: &SearchData<'_>, width: u32, height: u32, x: f64, y: f64) -> Option<Ranked> {
    let g = geometry(data, width, height)?;
    let (pts, front) = drawn(data.report);
    let dist = |r: &Ranked| {
        let px = g.rect.map_x(r.peak_bytes / GIB, &g.x);
        let py = g.rect.map_y(r.tokens_per_s, &g.y);
        ((px - x).powi(2) + (py - y).powi(2)).sqrt()
    };
    let nearest = |list: &[&Ranked]| {
        list.iter()
            .map(|r| (dist(r), *r))
            .filter(|(d, _)| *d <= HIT_RADIUS)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, r)| *r)
    };
    nearest(&front).or_else(|| nearest(&pts))
}

/// The layout under pixel (`x`, `y`), for click-to-apply.
pub fn point_at(data: &SearchData<'_>, width: u32, height: u32, x: f64, y: f64) -> Option<Layout> {
    ranked_at(data, width, height, x, y).map(|r| r.layout)
}

/// Pixel position of `r` in a `width × height` chart (for tests and keyboard focus).
pub fn position_of(
    data: &SearchData<'_>,
    width: u32,
    height: u32,
    r: &Ranked,
) -> Option<(f64, f64)> {
    let g = geometry(data, width, height)?;
    Some((
        g.rect.map_x(r.peak_bytes / GIB, &g.x),
        g.rect.map_y(r.tokens_per_s, &g.y),
    ))
}

/// Tooltip text for pixel (`x`, `y`) of a `width × height` search chart: the ranked layout
/// under it (clicking applies it).
pub fn tooltip(d: &SearchData<'_>, width: u32, height: u32, x: f64, y: f64) -> Option<String> {
    let r = ranked_at(d, width, height, x, y)?;
    Some(format!(
        "{}: {}, MFU {}, peak {} (click to apply)",
        layout_label(&r.layout),
        fmt_rate(r.tokens_per_s, "tokens/s"),
        super::style::fmt_pct(r.mfu),
        fmt_bytes(r.peak_bytes)
    ))
}

/// The chart's text summary (its accessible name).
pub fn summary(d: &SearchData<'_>) -> String {
    let r = d.report;
    match r.best.first() {
        Some(b) => format!(
            "{} layouts evaluated, {} fit. Best: {} at {}, peak {}.",
            r.evaluated,
            r.feasible,
            layout_label(&b.layout),
            fmt_rate(b.tokens_per_s, "tokens/s"),
            fmt_bytes(b.peak_bytes)
        ),
        None => format!("{} layouts evaluated, none fits.", r.evaluated),
    }
}
