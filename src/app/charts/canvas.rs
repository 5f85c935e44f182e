//! Drawing a chart on an HTML canvas, crisp on high-DPI screens.
//!
//! [`draw_on_canvas`] sizes the canvas's backing store to its CSS size × `devicePixelRatio`, sets
//! a matching scale transform, and hands plotters a canvas backend that reports the CSS
//! size, so every chart lays out in CSS pixels (the same numbers the hit-tests use) while the
//! browser rasterises at device resolution. Text size is estimated arithmetically instead of
//! through plotters' DOM measuring, which forces a layout per call. Every failure is a
//! [`ChartError`], never a panic.

use super::data::{draw, ChartData};
use super::error::ChartError;
use super::input::Chart;
use super::style::ChartStyle;
use crate::text::num::Plain;
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, FontTransform};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

fn js_err(what: &str) -> impl Fn(wasm_bindgen::JsValue) -> ChartError + '_ {
    move |_| ChartError::new(format!("canvas: {what} failed"))
}

/// The CSS size the chart should use: the canvas's laid-out size (0 × 0 when it is not laid out,
/// e.g. hidden). Never the backing-store size, which already includes the pixel ratio.
pub fn css_size(canvas: &HtmlCanvasElement) -> (u32, u32) {
    (
        canvas.client_width().max(0) as u32,
        canvas.client_height().max(0) as u32,
    )
}

/// Draws `data` on `canvas` at its CSS size, sharp at the window's `devicePixelRatio`. Returns
/// the CSS size used (0 × 0, drawing nothing, when the canvas is not laid out), which is what the hit-tests (`memory::segment_at`, `search::point_at`…)
/// need together with pointer offsets in CSS pixels.
///
/// # Errors
/// No 2D context, a failed transform, or a drawing failure.
pub fn draw_on_canvas(
    canvas: &HtmlCanvasElement,
    data: &ChartData<'_>,
    style: &ChartStyle,
) -> Result<(u32, u32), ChartError> {
    draw_with(canvas, |root| draw(root, data, style))
}

/// [`draw_on_canvas`] for an owned [`Chart`] (what the app's canvas component holds).
///
/// # Errors
/// As [`draw_on_canvas`].
pub fn draw_chart_on_canvas(
    canvas: &HtmlCanvasElement,
    chart: &Chart,
    style: &ChartStyle,
) -> Result<(u32, u32), ChartError> {
    draw_with(canvas, |root| chart.draw(root, style))
}

/// Sizes `canvas` for its CSS size × DPR and runs `draw` on a CSS-pixel drawing area.
fn draw_with(
    canvas: &HtmlCanvasElement,
    draw: impl FnOnce(
        &DrawingArea<super::backend::ChartBackend<'static>, plotters::coord::Shift>,
    ) -> Result<(), ChartError>,
) -> Result<(u32, u32), ChartError> {
    let dpr = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
        .min(4.0);
    let (w, h) = css_size(canvas);
    if w == 0 || h == 0 {
        // Not laid out (hidden tab, display: none): nothing to draw until it is resized.
        return Ok((0, 0));
    }
    let (pw, ph) = (
        (f64::from(w) * dpr).round() as u32,
        (f64::from(h) * dpr).round() as u32,
    );
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(js_err("getContext"))?
        .ok_or_else(|| ChartError::new("canvas: no 2D context"))?
        .dyn_into()
        .map_err(|_| ChartError::new("canvas: not a 2D context"))?;
    ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0)
        .map_err(js_err("setTransform"))?;
    let root = super::backend::ChartBackend::Canvas {
        painter: Painter(ctx),
        size: (w, h),
    }
    .into_drawing_area();
    draw(&root)?;
    Ok((w, h))
}

/// The drawing calls on a canvas's 2D context, as plotters' canvas backend makes them, with
/// colours and fonts written by [`Plain`] (plotters' `format!("{}", alpha)` would bring core's
/// float formatting into the WebAssembly bundle).
pub struct Painter(pub CanvasRenderingContext2d);

/// `rgba(r,g,b,a)`.
fn rgba(c: BackendColor) -> String {
    let (r, g, b) = c.rgb;
    format!("rgba({r},{g},{b},{})", Plain(c.alpha))
}

/// A failed canvas call as a [`ChartError`].
fn failed(_: wasm_bindgen::JsValue) -> ChartError {
    ChartError::new("canvas: drawing failed")
}

impl Painter {
    fn line_style<S: BackendStyle>(&self, style: &S) {
        self.0.set_stroke_style_str(&rgba(style.color()));
        self.0.set_line_width(f64::from(style.stroke_width()));
    }

    /// A one-pixel square.
    pub fn pixel(&self, (x, y): BackendCoord, c: BackendColor) {
        if c.alpha != 0.0 {
            self.0.set_fill_style_str(&rgba(c));
            self.0.fill_rect(f64::from(x), f64::from(y), 1.0, 1.0);
        }
    }

    /// A straight line; a horizontal or vertical one moved half a pixel onto the pixel grid.
    pub fn line<S: BackendStyle>(&self, from: BackendCoord, to: BackendCoord, style: &S) {
        if style.color().alpha == 0.0 {
            return;
        }
        let (mut a, mut b) = (
            (f64::from(from.0), f64::from(from.1)),
            (f64::from(to.0), f64::from(to.1)),
        );
        if a.0 == b.0 {
            a.0 -= 0.5;
            b.0 -= 0.5;
        }
        if a.1 == b.1 {
            a.1 -= 0.5;
            b.1 -= 0.5;
        }
        self.line_style(style);
        self.0.begin_path();
        self.0.move_to(a.0, a.1);
        self.0.line_to(b.0, b.1);
        self.0.stroke();
    }

    /// A rectangle, filled or outlined.
    pub fn rect<S: BackendStyle>(&self, ul: BackendCoord, br: BackendCoord, style: &S, fill: bool) {
        if style.color().alpha == 0.0 {
            return;
        }
        let (x, y) = (f64::from(ul.0), f64::from(ul.1));
        let (w, h) = (f64::from(br.0 - ul.0), f64::from(br.1 - ul.1));
        if fill {
            self.0.set_fill_style_str(&rgba(style.color()));
            self.0.fill_rect(x, y, w, h);
        } else {
            self.line_style(style);
            self.0.stroke_rect(x, y, w, h);
        }
    }

    /// The path through `points`, stroked (`fill` false) or closed and filled.
    pub fn path<S: BackendStyle>(&self, points: &[BackendCoord], style: &S, fill: bool) {
        if style.color().alpha == 0.0 {
            return;
        }
        self.0.begin_path();
        if let Some((first, rest)) = points.split_first() {
            if fill {
                self.0.set_fill_style_str(&rgba(style.color()));
            } else {
                self.line_style(style);
            }
            self.0.move_to(f64::from(first.0), f64::from(first.1));
            for p in rest {
                self.0.line_to(f64::from(p.0), f64::from(p.1));
            }
            if fill {
                self.0.close_path();
            }
        }
        if fill {
            self.0.fill();
        } else {
            self.0.stroke();
        }
    }

    /// A circle, filled or outlined.
    ///
    /// # Errors
    /// The canvas refuses the arc.
    pub fn circle<S: BackendStyle>(
        &self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), ChartError> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        if fill {
            self.0.set_fill_style_str(&rgba(style.color()));
        } else {
            self.line_style(style);
        }
        self.0.begin_path();
        let (x, y) = (f64::from(center.0), f64::from(center.1));
        self.0
            .arc(x, y, f64::from(radius), 0.0, std::f64::consts::PI * 2.0)
            .map_err(failed)?;
        if fill {
            self.0.fill();
        } else {
            self.0.stroke();
        }
        Ok(())
    }

    /// A text at `pos`, anchored and rotated as `style` says.
    ///
    /// # Errors
    /// The canvas refuses the transform or the text.
    pub fn text<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), ChartError> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (mut x, mut y) = pos;
        let degrees = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        };
        let c = &self.0;
        if degrees != 0.0 {
            c.save();
            c.translate(f64::from(x), f64::from(y)).map_err(failed)?;
            c.rotate(degrees / 180.0 * std::f64::consts::PI)
                .map_err(failed)?;
            (x, y) = (0, 0);
        }
        c.set_text_baseline(match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        });
        c.set_text_align(match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        });
        c.set_fill_style_str(&rgba(style.color()));
        c.set_font(&format!(
            "{} {}px {}",
            style.style().as_str(),
            Plain(style.size()),
            style.family().as_str()
        ));
        c.fill_text(text, f64::from(x), f64::from(y))
            .map_err(failed)?;
        if degrees != 0.0 {
            c.restore();
        }
        Ok(())
    }
}
