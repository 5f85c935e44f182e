//! One drawing backend type for every chart: the canvas on screen or an SVG string, chosen at
//! run time. Each chart's `draw` is generic over the backend; instantiated for this one type
//! only, its code is compiled once into the WebAssembly bundle instead of once per backend.
//!
//! Both are paracalc's own, drawing as plotters' canvas and SVG backends do
//! ([`super::painter::Painter`], [`super::svg::Svg`]) but writing numbers through
//! [`crate::text::num`]: plotters' backends format colours' opacity and font sizes with core's
//! float formatting, which is then the only user of it in the WebAssembly bundle. The canvas
//! reports its CSS size (its context carries the device-pixel-ratio scale, [`super::canvas`])
//! and estimates text size arithmetically instead of a DOM measurement per call; the SVG writes
//! text at the canvas's size.

use super::error::ChartError;
use super::painter::Painter;
use super::svg::{self, Svg};
use plotters::prelude::DrawingBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// The canvas or the SVG backend.
pub enum ChartBackend<'a> {
    /// SVG text (downloads, native tests).
    Svg(Svg<'a>),
    /// An HTML canvas, drawn in CSS pixels.
    Canvas {
        /// Its 2D context.
        painter: Painter,
        /// The canvas's CSS size.
        size: (u32, u32),
    },
}

/// A canvas call's failure as plotters' drawing error.
fn drawing(e: ChartError) -> DrawingErrorKind<ChartError> {
    DrawingErrorKind::DrawingError(e)
}

impl DrawingBackend for ChartBackend<'_> {
    type ErrorType = ChartError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            ChartBackend::Svg(b) => b.size(),
            ChartBackend::Canvas { size, .. } => *size,
        }
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<ChartError>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<ChartError>> {
        if let ChartBackend::Svg(b) = self {
            b.present();
        }
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        p: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        match self {
            ChartBackend::Svg(b) => b.pixel(p, c),
            ChartBackend::Canvas { painter, .. } => painter.pixel(p, c),
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        match self {
            ChartBackend::Svg(b) => b.line(from, to, style),
            ChartBackend::Canvas { painter, .. } => painter.line(from, to, style),
        }
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        match self {
            ChartBackend::Svg(b) => b.rect(upper_left, bottom_right, style, fill),
            ChartBackend::Canvas { painter, .. } => {
                painter.rect(upper_left, bottom_right, style, fill)
            }
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        // Collected first: the backends' path code is then compiled once per style type, not
        // once per kind of point iterator the charts pass.
        let path: Vec<BackendCoord> = path.into_iter().collect();
        match self {
            ChartBackend::Svg(b) => b.path(&path, style),
            ChartBackend::Canvas { painter, .. } => painter.path(&path, style, false),
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        match self {
            ChartBackend::Svg(b) => {
                b.circle(center, radius, style, fill);
                Ok(())
            }
            ChartBackend::Canvas { painter, .. } => {
                painter.circle(center, radius, style, fill).map_err(drawing)
            }
        }
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        let vert: Vec<BackendCoord> = vert.into_iter().collect();
        match self {
            ChartBackend::Svg(b) => b.polygon(&vert, style),
            ChartBackend::Canvas { painter, .. } => painter.path(&vert, style, true),
        }
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        match self {
            ChartBackend::Svg(b) => {
                b.text(text, style, pos);
                Ok(())
            }
            ChartBackend::Canvas { painter, .. } => painter.text(text, style, pos).map_err(drawing),
        }
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<ChartError>> {
        match self {
            ChartBackend::Svg(_) => svg::text_size(text, style),
            ChartBackend::Canvas { .. } => {
                let size = style.size();
                let w = super::style::text_width(text, size);
                Ok((w.ceil().max(0.0) as u32, size.ceil().max(0.0) as u32))
            }
        }
    }
}
