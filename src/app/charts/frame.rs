//! The frame every chart draws in: the header (title, caption, legend), the plot rectangle
//! and its margins, the axes' mesh, the sentence drawn instead of a plot, and the small range
//! and line helpers the charts share.

use super::error::ChartError;
use super::style::{self, px, text_width, ChartStyle};
use crate::text::num::{Fixed, Plain};
use plotters::chart::ChartContext;
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

/// The plotting area of a chart, in pixels of its drawing area (right and bottom exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlotRect {
    /// Left edge.
    pub left: i32,
    /// Top edge.
    pub top: i32,
    /// Right edge (exclusive).
    pub right: i32,
    /// Bottom edge (exclusive).
    pub bottom: i32,
}

impl PlotRect {
    /// Whether the rectangle has room to plot in.
    pub fn is_usable(&self) -> bool {
        self.right - self.left >= 20 && self.bottom - self.top >= 20
    }

    /// Whether pixel (`x`, `y`) is inside.
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= f64::from(self.left)
            && x < f64::from(self.right)
            && y >= f64::from(self.top)
            && y < f64::from(self.bottom)
    }

    fn span_x(&self) -> f64 {
        f64::from(self.right - 1 - self.left).max(1.0)
    }

    fn span_y(&self) -> f64 {
        f64::from(self.bottom - 1 - self.top).max(1.0)
    }

    /// Data x → pixel x (plotters' linear mapping onto `left..right-1`).
    pub fn map_x(&self, v: f64, r: &Range<f64>) -> f64 {
        f64::from(self.left) + (v - r.start) / (r.end - r.start) * self.span_x()
    }

    /// Pixel x → data x.
    pub fn unmap_x(&self, px: f64, r: &Range<f64>) -> f64 {
        r.start + (px - f64::from(self.left)) / self.span_x() * (r.end - r.start)
    }

    /// Data y → pixel y (up is larger).
    pub fn map_y(&self, v: f64, r: &Range<f64>) -> f64 {
        f64::from(self.bottom - 1) - (v - r.start) / (r.end - r.start) * self.span_y()
    }

    /// Pixel y → data y.
    pub fn unmap_y(&self, px: f64, r: &Range<f64>) -> f64 {
        r.start + (f64::from(self.bottom - 1) - px) / self.span_y() * (r.end - r.start)
    }
}

/// How a legend swatch is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Swatch {
    /// A filled square.
    Fill,
    /// A lighter square with a coloured outline (hidden communication).
    Faded,
    /// A short line.
    Line,
    /// A short dashed line.
    Dashed,
    /// A dot.
    Dot,
    /// A tinted square with a coloured outline (over capacity: the tinted overflow of an
    /// outlined bar).
    Outline,
    /// A ring (the current layout).
    Ring,
}

/// One legend entry.
#[derive(Clone, Debug)]
pub(crate) struct LegendItem {
    pub label: String,
    pub color: RGBColor,
    pub swatch: Swatch,
}

impl LegendItem {
    pub fn new(label: impl Into<String>, color: RGBColor, swatch: Swatch) -> Self {
        LegendItem {
            label: label.into(),
            color,
            swatch,
        }
    }
}

const PAD: i32 = 12;
const LEGEND_TOP: i32 = 46;
const LEGEND_ROW: i32 = 16;

/// Positions of legend entries (x, y of the swatch's top-left) for a chart `width` px wide.
fn legend_positions(width: u32, legend: &[LegendItem]) -> Vec<(i32, i32)> {
    let max_x = width as i32 - PAD;
    let (mut x, mut y) = (PAD, LEGEND_TOP);
    let mut out = Vec::with_capacity(legend.len());
    for item in legend {
        let w = 12 + 5 + text_width(&item.label, px::LEGEND).ceil() as i32 + 14;
        if x > PAD && x + w > max_x {
            x = PAD;
            y += LEGEND_ROW;
        }
        out.push((x, y));
        x += w;
    }
    out
}

/// Height taken by the title, caption and legend.
pub(crate) fn header_height(width: u32, legend: &[LegendItem]) -> i32 {
    match legend_positions(width, legend).last() {
        Some(&(_, y)) => y + LEGEND_ROW + 4,
        None => LEGEND_TOP,
    }
}

/// Fills the background and draws title, caption and legend.
pub(crate) fn draw_header<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    style: &ChartStyle,
    title: &str,
    caption: &str,
    legend: &[LegendItem],
) -> Result<(), ChartError> {
    let p = &style.palette;
    root.fill(&p.background)?;
    let top_left = Pos::new(HPos::Left, VPos::Top);
    root.draw_text(
        title,
        &style.text(px::TITLE, p.text).pos(top_left),
        (PAD, 8),
    )?;
    let (w, _) = root.dim_in_pixel();
    for (line, size, y) in caption_lines(caption, w) {
        root.draw_text(&line, &style.text(size, p.muted).pos(top_left), (PAD, y))?;
    }
    for (item, (x, y)) in legend.iter().zip(legend_positions(w, legend)) {
        let c = item.color;
        match item.swatch {
            Swatch::Fill => {
                root.draw(&Rectangle::new([(x, y + 1), (x + 11, y + 12)], c.filled()))?
            }
            Swatch::Faded | Swatch::Outline => {
                // A tint inside an outline of the colour. Outline is the overflow's (the danger
                // colour at 35 % over the background, as the bars draw it, inside the bar's red
                // outline).
                let (fade, width) = match item.swatch {
                    Swatch::Faded => (0.55, 1),
                    _ => (0.65, 2),
                };
                let corners = [(x, y + 1), (x + 11, y + 12)];
                root.draw(&Rectangle::new(corners, style.faded(c, fade).filled()))?;
                root.draw(&Rectangle::new(corners, c.stroke_width(width)))?;
            }
            Swatch::Line => root.draw(&PathElement::new(
                vec![(x, y + 6), (x + 12, y + 6)],
                c.stroke_width(2),
            ))?,
            Swatch::Dashed => {
                root.draw(&PathElement::new(
                    vec![(x, y + 6), (x + 4, y + 6)],
                    c.stroke_width(2),
                ))?;
                root.draw(&PathElement::new(
                    vec![(x + 8, y + 6), (x + 12, y + 6)],
                    c.stroke_width(2),
                ))?;
            }
            Swatch::Dot => root.draw(&Circle::new((x + 6, y + 6), 4, c.filled()))?,
            Swatch::Ring => root.draw(&Circle::new((x + 6, y + 6), 5, c.stroke_width(2)))?,
        }
        root.draw_text(
            &item.label,
            &style
                .text(px::LEGEND, p.text)
                .pos(Pos::new(HPos::Left, VPos::Center)),
            (x + 17, y + 6),
        )?;
    }
    Ok(())
}

/// The caption under the title as lines that fit a chart `width` px wide, each with its font
/// size and top: one line at the subtitle size when it fits, else one line a little smaller,
/// else two lines (broken between words) in the same band above the legend, so no caption is
/// ever cut off at the canvas edge.
pub(crate) fn caption_lines(caption: &str, width: u32) -> Vec<(String, f64, i32)> {
    if caption.is_empty() {
        return Vec::new();
    }
    // The width estimate is approximate: keep 5 % spare.
    let avail = (f64::from(width) - 2.0 * f64::from(PAD)).max(1.0) * 0.95;
    let full = text_width(caption, px::SUBTITLE);
    if full <= avail {
        return vec![(caption.to_string(), px::SUBTITLE, 27)];
    }
    const SMALLEST_ONE_LINE: f64 = 10.5;
    let one = px::SUBTITLE * avail / full;
    if one >= SMALLEST_ONE_LINE {
        return vec![(caption.to_string(), one, 27)];
    }
    // Two lines at 10 px: the first takes every " · "-separated item that fits whole (an item
    // such as "PP + DP 29.9% at 4096" is not split), else every word that fits; the second the
    // rest (smaller still if it must).
    const TWO: f64 = 10.0;
    const SEP: &str = " · ";
    let mut cut = None;
    for (i, _) in caption.match_indices(SEP) {
        if text_width(&caption[..i], TWO) <= avail {
            cut = Some(i);
        } else {
            break;
        }
    }
    if let Some(i) = cut {
        let rest = &caption[i + SEP.len()..];
        let second = (TWO * avail / text_width(rest, TWO).max(1.0)).min(TWO);
        return vec![
            (format!("{} ·", &caption[..i]), TWO, 24),
            (rest.to_string(), second, 35),
        ];
    }
    let mut first = String::new();
    let mut rest = String::new();
    for word in caption.split(' ') {
        let next = if first.is_empty() {
            word.to_string()
        } else {
            format!("{first} {word}")
        };
        if rest.is_empty() && (first.is_empty() || text_width(&next, TWO) <= avail) {
            first = next;
        } else {
            if !rest.is_empty() {
                rest.push(' ');
            }
            rest.push_str(word);
        }
    }
    let second = (TWO * avail / text_width(&rest, TWO).max(1.0)).min(TWO);
    vec![(first, TWO, 24), (rest, second, 35)]
}

/// Draws title and a centred sentence instead of a plot (empty or degenerate data).
pub(crate) fn draw_message<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    style: &ChartStyle,
    title: &str,
    message: &str,
) -> Result<(), ChartError> {
    draw_header(root, style, title, "", &[])?;
    let (w, h) = root.dim_in_pixel();
    root.draw_text(
        message,
        &style
            .text(px::AXIS, style.palette.muted)
            .pos(Pos::new(HPos::Center, VPos::Center)),
        (w as i32 / 2, (h as i32 + LEGEND_TOP) / 2),
    )?;
    root.present()?;
    Ok(())
}

/// Margins around the plot: left (tick labels + rotated axis title), right, bottom.
#[derive(Clone, Copy)]
pub(crate) struct Margins {
    pub left: i32,
    pub right: i32,
    pub bottom: i32,
}

pub(crate) const MARGINS: Margins = Margins {
    left: 64,
    right: 18,
    bottom: 42,
};

/// The plot rectangle below a header of `header` px.
pub(crate) fn plot_rect(width: u32, height: u32, header: i32, m: Margins) -> PlotRect {
    PlotRect {
        left: m.left,
        top: header,
        right: width as i32 - m.right,
        bottom: height as i32 - m.bottom,
    }
}

/// A plot panel: its drawing area and the plot rectangle inside it.
pub(crate) type Panel<DB> = (DrawingArea<DB, Shift>, PlotRect);

/// The two stacked plot panels of a chart whose panels share an x axis (bucket, scaling): the
/// area below a header of `header` px is split at `top_share` of its height; the upper panel
/// leaves 24 px above the split for its x tick labels, the lower one 8 px at its top.
pub(crate) fn stacked_panels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    header: i32,
    top_share: f64,
) -> (Panel<DB>, Panel<DB>) {
    let (w, h) = root.dim_in_pixel();
    let split = header + ((h as i32 - header) as f64 * top_share) as i32;
    let (top, bottom) = root.split_vertically(split.max(header + 1));
    let (_, bh) = bottom.dim_in_pixel();
    let top_rect = PlotRect {
        left: 64,
        top: header,
        right: w as i32 - 18,
        bottom: split - 24,
    };
    let bottom_rect = PlotRect {
        left: 64,
        top: 8,
        right: w as i32 - 18,
        bottom: bh as i32 - 42,
    };
    ((top, top_rect), (bottom, bottom_rect))
}

/// The rectangle a pointer hit-test of a `width × height` stacked-panel chart looks in: between
/// the legend (40 px) and the lower x axis.
pub(crate) fn stacked_hit_rect(width: u32, height: u32) -> PlotRect {
    PlotRect {
        left: 64,
        top: 40,
        right: width as i32 - 18,
        bottom: height as i32 - 42,
    }
}

pub(crate) type Chart2d<'a, DB> = ChartContext<'a, DB, Cartesian2d<Axis, Axis>>;

/// A linear axis: plotters' [`RangedCoordf64`] whose default label text is [`Plain`] (every
/// mesh sets its own formatter, [`Axes`]; plotters' default, `FloatPrettyPrinter`, would bring
/// core's float formatting into the WebAssembly bundle).
pub(crate) struct Axis(RangedCoordf64);

impl Ranged for Axis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.0.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        self.0.key_points(hint)
    }

    fn range(&self) -> Range<f64> {
        self.0.range()
    }
}

impl ValueFormatter<f64> for Axis {
    fn format(value: &f64) -> String {
        Plain(*value).to_string()
    }
}

/// A linear chart whose plotting area is exactly `rect` of `area`.
pub(crate) fn build<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    rect: PlotRect,
    x: Range<f64>,
    y: Range<f64>,
) -> Result<Chart2d<'a, DB>, ChartError> {
    let (w, h) = area.dim_in_pixel();
    let chart = ChartBuilder::on(area)
        .margin_top(rect.top.max(0) as u32)
        .margin_right((w as i32 - rect.right).max(0) as u32)
        .x_label_area_size((h as i32 - rect.bottom).max(0) as u32)
        .y_label_area_size(rect.left.max(0) as u32)
        .build_cartesian_2d(Axis(x.into()), Axis(y.into()))?;
    Ok(chart)
}

/// Axis titles, label counts and tick formatters.
pub(crate) struct Axes<'f> {
    pub x_desc: &'f str,
    pub y_desc: &'f str,
    pub x_labels: usize,
    pub y_labels: usize,
    pub x_fmt: &'f dyn Fn(&f64) -> String,
    pub y_fmt: &'f dyn Fn(&f64) -> String,
}

/// The house mesh: faint major grid, no minor grid, themed axes and labels.
pub(crate) fn mesh<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    style: &ChartStyle,
    axes: &Axes<'_>,
) -> Result<(), ChartError> {
    let p = &style.palette;
    chart
        .configure_mesh()
        .bold_line_style(p.grid.stroke_width(1))
        .light_line_style(TRANSPARENT)
        .axis_style(p.axis.stroke_width(1))
        .label_style(style.text(px::TICK, p.text))
        .axis_desc_style(style.text(px::AXIS, p.text))
        .x_desc(axes.x_desc)
        .y_desc(axes.y_desc)
        .x_labels(axes.x_labels)
        .y_labels(axes.y_labels)
        .x_label_formatter(axes.x_fmt)
        .y_label_formatter(axes.y_fmt)
        .draw()?;
    Ok(())
}

/// The [`mesh`] of a panel over a log₂ axis (GPU counts, bucket sizes; x labelled `2^n` by
/// [`pow2_label`]) with `x_labels` ticks on x and five on y, labelled by `y_fmt`.
pub(crate) fn pow2_mesh<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    style: &ChartStyle,
    (x_desc, y_desc): (&str, &str),
    x_labels: usize,
    y_fmt: &dyn Fn(&f64) -> String,
) -> Result<(), ChartError> {
    let axes = Axes {
        x_desc,
        y_desc,
        x_labels,
        y_labels: 5,
        x_fmt: &|v: &f64| pow2_label(*v),
        y_fmt,
    };
    mesh(chart, style, &axes)
}

/// Tick label for a log2 axis value: the power of two, or nothing between powers.
pub(crate) fn pow2_label(v: f64) -> String {
    if (v - v.round()).abs() > 1e-6 || !(0.0..=62.0).contains(&v.round()) {
        return String::new();
    }
    let n = 2f64.powi(v.round() as i32);
    if n >= 1e6 {
        style::fmt_si(n).replace(' ', "")
    } else {
        Fixed(n, 0).to_string()
    }
}

/// Every other one of `n` equal pieces of the straight line `from → to` (data coordinates): a
/// dashed line whose dashes stay collinear on a slope.
pub(crate) fn dashes(
    from: (f64, f64),
    to: (f64, f64),
    n: usize,
    style: ShapeStyle,
) -> impl Iterator<Item = PathElement<(f64, f64)>> {
    let n = n.max(2);
    let at = move |i: usize| {
        let t = i as f64 / n as f64;
        (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
    };
    (0..n)
        .step_by(2)
        .map(move |i| PathElement::new(vec![at(i), at(i + 1)], style))
}

/// A non-empty range around `lo..hi` (adds room when they are equal).
pub(crate) fn padded(lo: f64, hi: f64, frac: f64) -> Range<f64> {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() {
        (lo.min(hi), lo.max(hi))
    } else {
        (0.0, 1.0)
    };
    let span = hi - lo;
    if span <= 1e-12 {
        let d = if lo.abs() > 1e-12 {
            lo.abs() * 0.1
        } else {
            1.0
        };
        return (lo - d)..(hi + d);
    }
    (lo - span * frac)..(hi + span * frac)
}
