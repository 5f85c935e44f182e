//! The drawing calls on a canvas's 2D context ([`Painter`]), which the canvas side of
//! [`super::backend::ChartBackend`] makes. Apart from [`super::canvas`] (which builds the
//! backend), so the backend does not import the module that uses it.

use super::error::ChartError;
use crate::text::num::Plain;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, FontTransform};
use web_sys::CanvasRenderingContext2d;

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
