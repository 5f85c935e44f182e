//! SVG output (downloads, native tests): each drawing call written as one SVG element, byte for
//! byte as plotters' SVG backend writes it, with its numbers written by [`crate::text::num`]
//! (plotters' `format!("{}", alpha)` and font sizes would bring core's float formatting into the
//! WebAssembly bundle), and text at the canvas's size.

use super::error::ChartError;
use crate::text::num::Plain;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontStyle,
    FontTransform,
};
use std::fmt::Write as _;

/// An SVG document being written into a string.
pub struct Svg<'a> {
    out: &'a mut String,
    size: (u32, u32),
    closed: bool,
}

/// `#RRGGBB`.
fn color(c: BackendColor) -> String {
    let (r, g, b) = c.rgb;
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// The `opacity` and `#RRGGBB` of an element drawn in `c`, or `None` for a transparent colour,
/// which plotters' SVG backend draws nothing for.
fn paint(c: BackendColor) -> Option<(String, String)> {
    (c.alpha != 0.0).then(|| (Plain(c.alpha).to_string(), color(c)))
}

/// `points="x,y x,y "` of a polyline or polygon.
fn points(path: &[BackendCoord]) -> String {
    path.iter().fold(String::new(), |mut s, (x, y)| {
        let _ = write!(s, "{x},{y} ");
        s
    })
}

/// `value` with `<>&"'` escaped.
fn escape(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            other => out.push(other),
        }
    }
}

impl<'a> Svg<'a> {
    /// Starts a `width × height` document in `out`.
    pub fn new(out: &'a mut String, size: (u32, u32)) -> Self {
        let mut svg = Svg {
            out,
            size,
            closed: false,
        };
        let (w, h) = (size.0.to_string(), size.1.to_string());
        svg.tag(
            "svg",
            &[
                ("width", &w),
                ("height", &h),
                ("viewBox", &format!("0 0 {w} {h}")),
                ("xmlns", "http://www.w3.org/2000/svg"),
            ],
            false,
        );
        svg
    }

    /// The document's size.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// `<name a="v" …/>` (`close`) or `<name …>`, each on its own line.
    fn tag(&mut self, name: &str, attrs: &[(&str, &str)], close: bool) {
        self.out.push('<');
        self.out.push_str(name);
        for (key, value) in attrs {
            self.out.push(' ');
            self.out.push_str(key);
            self.out.push_str("=\"");
            escape(self.out, value);
            self.out.push('"');
        }
        self.out.push_str(if close { "/>\n" } else { ">\n" });
    }

    /// Closes the document (once).
    pub fn present(&mut self) {
        if !self.closed {
            self.out.push_str("</svg>\n");
            self.closed = true;
        }
    }

    /// A one-pixel square.
    pub fn pixel(&mut self, (x, y): BackendCoord, c: BackendColor) {
        let Some((opacity, fill)) = paint(c) else {
            return;
        };
        let (x, y) = (x.to_string(), y.to_string());
        let attrs = [
            ("x", x.as_str()),
            ("y", &y),
            ("width", "1"),
            ("height", "1"),
            ("stroke", "none"),
            ("opacity", &opacity),
            ("fill", &fill),
        ];
        self.tag("rect", &attrs, true);
    }

    /// A straight line.
    pub fn line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) {
        let Some((opacity, stroke)) = paint(style.color()) else {
            return;
        };
        let v = [from.0, from.1, to.0, to.1].map(|n| n.to_string());
        let width = style.stroke_width().to_string();
        let attrs = [
            ("opacity", opacity.as_str()),
            ("stroke", &stroke),
            ("stroke-width", &width),
            ("x1", &v[0]),
            ("y1", &v[1]),
            ("x2", &v[2]),
            ("y2", &v[3]),
        ];
        self.tag("line", &attrs, true);
    }

    /// A rectangle, filled or outlined.
    pub fn rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) {
        let Some((opacity, rgb)) = paint(style.color()) else {
            return;
        };
        let (fill, stroke) = if fill {
            (rgb, "none".to_string())
        } else {
            ("none".to_string(), rgb)
        };
        let v = [
            upper_left.0,
            upper_left.1,
            bottom_right.0 - upper_left.0,
            bottom_right.1 - upper_left.1,
        ]
        .map(|n| n.to_string());
        let attrs = [
            ("x", v[0].as_str()),
            ("y", &v[1]),
            ("width", &v[2]),
            ("height", &v[3]),
            ("opacity", &opacity),
            ("fill", &fill),
            ("stroke", &stroke),
        ];
        self.tag("rect", &attrs, true);
    }

    /// A polyline through `path`.
    pub fn path<S: BackendStyle>(&mut self, path: &[BackendCoord], style: &S) {
        let Some((opacity, stroke)) = paint(style.color()) else {
            return;
        };
        let width = style.stroke_width().to_string();
        let points = points(path);
        let attrs = [
            ("fill", "none"),
            ("opacity", &opacity),
            ("stroke", &stroke),
            ("stroke-width", &width),
            ("points", &points),
        ];
        self.tag("polyline", &attrs, true);
    }

    /// A filled polygon.
    pub fn polygon<S: BackendStyle>(&mut self, path: &[BackendCoord], style: &S) {
        let Some((opacity, fill)) = paint(style.color()) else {
            return;
        };
        let points = points(path);
        let attrs = [
            ("opacity", opacity.as_str()),
            ("fill", &fill),
            ("points", &points),
        ];
        self.tag("polygon", &attrs, true);
    }

    /// A circle, filled or outlined.
    pub fn circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) {
        let Some((opacity, rgb)) = paint(style.color()) else {
            return;
        };
        let (stroke, fill) = if fill {
            ("none".to_string(), rgb)
        } else {
            (rgb, "none".to_string())
        };
        let v = [center.0, center.1, radius as i32].map(|n| n.to_string());
        let width = style.stroke_width().to_string();
        let attrs = [
            ("cx", v[0].as_str()),
            ("cy", &v[1]),
            ("r", &v[2]),
            ("opacity", &opacity),
            ("fill", &fill),
            ("stroke", &stroke),
            ("stroke-width", &width),
        ];
        self.tag("circle", &attrs, true);
    }

    /// A text at `pos`, anchored and rotated as `style` says. Its font size is the canvas's:
    /// plotters' SVG backend wrote `size × 1.24 / 1.24` (its text scale undone by paracalc's),
    /// kept to the last bit so the files do not change.
    pub fn text<S: BackendTextStyle>(&mut self, text: &str, style: &S, (x, y): BackendCoord) {
        let Some((opacity, fill)) = paint(style.color()) else {
            return;
        };
        let anchor = match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "middle",
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => "0.76em",
            VPos::Center => "0.5ex",
            VPos::Bottom => "-0.5ex",
        };
        let (xs, ys) = (x.to_string(), y.to_string());
        let size = Plain(style.size() * 1.24 / 1.24).to_string();
        let family = style.family();
        let mut attrs = vec![
            ("x", xs.as_str()),
            ("y", &ys),
            ("dy", dy),
            ("text-anchor", anchor),
            ("font-family", family.as_str()),
            ("font-size", &size),
            ("opacity", &opacity),
            ("fill", &fill),
        ];
        let font_style = style.style();
        match &font_style {
            FontStyle::Normal => {}
            FontStyle::Bold => attrs.push(("font-weight", "bold")),
            other => attrs.push(("font-style", other.as_str())),
        }
        let degrees = match style.transform() {
            FontTransform::Rotate90 => 90,
            FontTransform::Rotate180 => 180,
            FontTransform::Rotate270 => 270,
            FontTransform::None => 0,
        };
        let rotate = format!("rotate({degrees}, {x}, {y})");
        if degrees != 0 {
            attrs.push(("transform", &rotate));
        }
        self.tag("text", &attrs, false);
        escape(self.out, text);
        self.out.push_str("\n</text>\n");
    }
}

/// The width and height `text` takes in `style`'s font, as plotters' SVG backend estimates it:
/// natively from plotters' font metrics, in the browser by laying the text out in a hidden
/// `<span>` (plotters' web font code, with the size written by [`Plain`]).
///
/// # Errors
/// No document to measure in (browser only).
pub fn text_size<S: BackendTextStyle>(
    text: &str,
    style: &S,
) -> Result<(u32, u32), DrawingErrorKind<ChartError>> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let ((x0, y0), (x1, y1)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::DrawingError(ChartError::new(e.to_string())))?;
        Ok(((x1 - x0) as u32, (y1 - y0) as u32))
    }
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let fail = || DrawingErrorKind::DrawingError(ChartError::new("svg: text measuring failed"));
        let document = web_sys::window()
            .and_then(|w| w.document())
            .ok_or_else(fail)?;
        let body = document.body().ok_or_else(fail)?;
        let span = document.create_element("span").map_err(|_| fail())?;
        span.set_text_content(Some(text));
        let css = format!(
            "display: inline-block; font-family:{}; font-style:{}; font-size: {}px; position: fixed; top: 100%",
            style.family().as_str(),
            style.style().as_str(),
            Plain(style.size())
        );
        span.set_attribute("style", &css).map_err(|_| fail())?;
        body.append_child(&span).map_err(|_| fail())?;
        let span: web_sys::HtmlElement = span.dyn_into().map_err(|_| fail())?;
        let (w, h) = (span.offset_width(), span.offset_height());
        span.remove();
        Ok((w as u32, h as u32))
    }
}
