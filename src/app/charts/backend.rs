//! One drawing backend type for every chart: the canvas on screen or an SVG string, chosen at
//! run time. Each chart's `draw` is generic over the backend; instantiated for this one type
//! only, its code is compiled once into the WebAssembly bundle instead of once per backend.
//!
//! What each needs on top of plotters' own backend: the canvas reports its CSS size (its
//! context carries the device-pixel-ratio scale, [`super::canvas`]) and estimates text size
//! arithmetically instead of a DOM measurement per call; the SVG writes text at the canvas's
//! size ([`SvgSized`]).

use super::error::ChartError;
use super::svg::SvgSized;
use plotters::prelude::{DrawingBackend, SVGBackend};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;

/// The canvas or the SVG backend.
pub enum ChartBackend<'a> {
    /// SVG text (downloads, native tests).
    Svg(SVGBackend<'a>),
    /// An HTML canvas, drawn in CSS pixels.
    Canvas {
        /// plotters' canvas backend.
        inner: CanvasBackend,
        /// The canvas's CSS size.
        size: (u32, u32),
    },
}

/// A backend's error as a [`ChartError`] (its message kept).
fn unify<E: std::error::Error + Send + Sync>(
    e: DrawingErrorKind<E>,
) -> DrawingErrorKind<ChartError> {
    match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(ChartError::new(e.to_string()))
        }
        DrawingErrorKind::FontError(f) => DrawingErrorKind::FontError(f),
    }
}

/// Runs the same call on whichever backend `self` holds.
macro_rules! each {
    ($self:expr, $b:ident => $call:expr) => {
        match $self {
            ChartBackend::Svg($b) => $call.map_err(unify),
            ChartBackend::Canvas { inner: $b, .. } => $call.map_err(unify),
        }
    };
}

impl ChartBackend<'_> {
    /// [`DrawingBackend::draw_path`] through `path`'s points.
    fn draw_points<S: BackendStyle>(
        &mut self,
        path: &[BackendCoord],
        style: &S,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        each!(self, b => b.draw_path(path.iter().copied(), style))
    }
}

impl DrawingBackend for ChartBackend<'_> {
    type ErrorType = ChartError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            ChartBackend::Svg(b) => b.get_size(),
            ChartBackend::Canvas { size, .. } => *size,
        }
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<ChartError>> {
        each!(self, b => b.ensure_prepared())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<ChartError>> {
        each!(self, b => b.present())
    }

    fn draw_pixel(
        &mut self,
        p: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        each!(self, b => b.draw_pixel(p, c))
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        each!(self, b => b.draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        each!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        // Collected first: the backends' path code is then compiled once per style type, not
        // once per kind of point iterator the charts pass.
        let path: Vec<BackendCoord> = path.into_iter().collect();
        self.draw_points(&path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        each!(self, b => b.draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        each!(self, b => b.fill_polygon(vert, style))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<ChartError>> {
        match self {
            ChartBackend::Svg(b) => b.draw_text(text, &SvgSized(style), pos).map_err(unify),
            ChartBackend::Canvas { inner, .. } => inner.draw_text(text, style, pos).map_err(unify),
        }
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<ChartError>> {
        match self {
            ChartBackend::Svg(b) => b.estimate_text_size(text, style).map_err(unify),
            ChartBackend::Canvas { .. } => {
                let size = style.size();
                let w = super::style::text_width(text, size);
                Ok((w.ceil().max(0.0) as u32, size.ceil().max(0.0) as u32))
            }
        }
    }
}
