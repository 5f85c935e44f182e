//! SVG output at the same text size as the canvas.

use plotters_backend::{BackendColor, BackendCoord, BackendTextStyle, FontTransform};

/// A text style with its size multiplied by 1.24: plotters' SVG backend writes
/// `font-size = size / 1.24`, the canvas uses `size`, so an SVG download has the text size of the
/// chart on screen.
pub(crate) struct SvgSized<'s, S>(pub &'s S);

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
