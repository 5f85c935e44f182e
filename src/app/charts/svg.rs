//! SVG output at the same text size as the canvas.

use plotters::prelude::{DrawingBackend, SVGBackend};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform,
};

/// plotters' SVG backend writes `font-size = size / 1.24`; the canvas uses `size`. This wrapper
/// undoes the factor so an SVG download has the same text size as the chart on screen.
pub(crate) struct TrueSizeSvg<'a>(pub SVGBackend<'a>);

/// A text style with its size multiplied by 1.24 (see [`TrueSizeSvg`]).
struct SvgSized<'s, S>(&'s S);

impl<S: BackendTextStyle> BackendTextStyle for SvgSized<'_, S> {
    type FontError = S::FontError;
    fn color(&self) -> BackendColor {
        self.0.color()
    }
    fn size(&self) -> f64 {
        self.0.size() * 1.24
    }
    fn transform(&self) -> FontTransform {
        self.0.transform()
    }
    fn style(&self) -> plotters_backend::FontStyle {
        self.0.style()
    }
    fn anchor(&self) -> plotters_backend::text_anchor::Pos {
        self.0.anchor()
    }
    fn family(&self) -> plotters_backend::FontFamily<'_> {
        self.0.family()
    }
    fn layout_box(&self, text: &str) -> Result<((i32, i32), (i32, i32)), Self::FontError> {
        self.0.layout_box(text)
    }
    fn draw<E, F: FnMut(i32, i32, BackendColor) -> Result<(), E>>(
        &self,
        text: &str,
        pos: BackendCoord,
        draw: F,
    ) -> Result<Result<(), E>, Self::FontError> {
        self.0.draw(text, pos, draw)
    }
}

impl DrawingBackend for TrueSizeSvg<'_> {
    type ErrorType = <SVGBackend<'static> as DrawingBackend>::ErrorType;
    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }
    fn draw_pixel(
        &mut self,
        p: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_path(path, s)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        c: BackendCoord,
        r: u32,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_circle(c, r, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vert, s)
    }
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        s: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_text(text, &SvgSized(s), pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        s: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.0.estimate_text_size(text, s)
    }
}
