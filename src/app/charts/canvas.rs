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
use super::painter::Painter;
use super::style::ChartStyle;
use plotters::prelude::*;
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
