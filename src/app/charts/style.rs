//! Shared look of every chart: the light and dark palettes (one colour per component, the same in
//! every chart), font sizes, and unit formatting (binary prefixes for memory, SI for rates).

use crate::text::num::Fixed;
use plotters::style::{FontDesc, FontFamily, FontStyle, RGBColor, TextStyle};

/// Light or dark page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// Dark text on white.
    #[default]
    Light,
    /// Light text on a near-black background.
    Dark,
}

/// Every colour a chart uses. A component keeps its colour in every chart (DP communication is
/// the same brown in the time and bucket charts, forward/backward the same in time and schedule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Palette {
    /// Chart background.
    pub background: RGBColor,
    /// Titles, labels.
    pub text: RGBColor,
    /// Subtitles, secondary text.
    pub muted: RGBColor,
    /// Axis lines and ticks.
    pub axis: RGBColor,
    /// Grid lines.
    pub grid: RGBColor,
    /// Over capacity, does not fit.
    pub danger: RGBColor,
    /// GPU capacity line, ideal scaling, reference lines.
    pub reference: RGBColor,
    /// Memory: weights.
    pub weights: RGBColor,
    /// Memory: gradients.
    pub gradients: RGBColor,
    /// Memory: optimizer states; time: optimizer step.
    pub optimizer: RGBColor,
    /// Memory: activations.
    pub activations: RGBColor,
    /// Memory: framework overhead (CUDA context, buffers, allocator).
    pub other: RGBColor,
    /// Time: forward compute (and forward blocks in the schedule).
    pub forward: RGBColor,
    /// Time: backward compute (and backward blocks in the schedule).
    pub backward: RGBColor,
    /// Schedule: weight-gradient (W) blocks run apart from their backward (zero-bubble, DualPipe).
    pub wgrad: RGBColor,
    /// Time: host-link transfers of offloaded optimizer states and activations.
    pub offload: RGBColor,
    /// Time: the GPU waiting for the eager host.
    pub host: RGBColor,
    /// Time: recomputation.
    pub recompute: RGBColor,
    /// Tensor-parallel communication.
    pub tp: RGBColor,
    /// Context-parallel communication.
    pub cp: RGBColor,
    /// Expert-parallel communication.
    pub ep: RGBColor,
    /// Pipeline point-to-point communication.
    pub pp: RGBColor,
    /// Data-parallel communication.
    pub dp: RGBColor,
    /// Pipeline bubble / idle time.
    pub bubble: RGBColor,
    /// Step time / throughput lines.
    pub step: RGBColor,
    /// Search: sampled feasible layouts.
    pub point: RGBColor,
    /// Search: Pareto front.
    pub pareto: RGBColor,
    /// The current layout / setting.
    pub current: RGBColor,
    /// Series colours for several strategies, in order.
    pub series: [RGBColor; 6],
}

const fn c(hex: u32) -> RGBColor {
    RGBColor((hex >> 16) as u8, (hex >> 8) as u8, hex as u8)
}

impl Palette {
    /// For white backgrounds (Tableau-10-like hues, darkened where thin lines need contrast).
    pub const LIGHT: Palette = Palette {
        background: c(0xFFFFFF),
        text: c(0x1F2328),
        muted: c(0x59636E),
        axis: c(0x6E7781),
        grid: c(0xE6E8EB),
        danger: c(0xD62728),
        reference: c(0x3A3F44),
        weights: c(0x4E79A7),
        gradients: c(0x59A14F),
        optimizer: c(0xE377A8),
        activations: c(0xEDC948),
        other: c(0xA9A29D),
        forward: c(0x4E79A7),
        backward: c(0x59A14F),
        wgrad: c(0x1F5E2A),
        offload: c(0x6B6ECF),
        host: c(0x7F6A5A),
        recompute: c(0x9DC3E6),
        tp: c(0xF28E2B),
        cp: c(0xFFBE7D),
        ep: c(0xB07AA1),
        pp: c(0x76B7B2),
        dp: c(0x9C755F),
        bubble: c(0xC9C3BF),
        step: c(0x2F5C8A),
        point: c(0x8A97A6),
        pareto: c(0xE15F00),
        current: c(0xB8008A),
        series: [
            c(0x2F5C8A),
            c(0xE15F00),
            c(0x3B8A3E),
            c(0x8E5BA8),
            c(0x2A9D8F),
            c(0x9C755F),
        ],
    };

    /// For dark backgrounds (the same hues, lightened).
    pub const DARK: Palette = Palette {
        background: c(0x17191C),
        text: c(0xE6E8EB),
        muted: c(0xA3ABB5),
        axis: c(0x8B949E),
        grid: c(0x2D3136),
        danger: c(0xFF6B6B),
        reference: c(0xD0D4D9),
        weights: c(0x6F9BD1),
        gradients: c(0x7CC46F),
        optimizer: c(0xF29BC4),
        activations: c(0xF1D45E),
        other: c(0x8F8882),
        forward: c(0x6F9BD1),
        backward: c(0x7CC46F),
        wgrad: c(0xC7EBB9),
        offload: c(0x9C9EDE),
        host: c(0xB8A595),
        recompute: c(0xA9CBEA),
        tp: c(0xF7A154),
        cp: c(0xFFCC99),
        ep: c(0xC99BBE),
        pp: c(0x8FD0CB),
        dp: c(0xC49A7E),
        bubble: c(0x5A5652),
        step: c(0x8DB8E8),
        point: c(0x7D8894),
        pareto: c(0xFF9A4D),
        current: c(0xFF5FD7),
        series: [
            c(0x8DB8E8),
            c(0xFF9A4D),
            c(0x7CC46F),
            c(0xC49BE0),
            c(0x5CCFC2),
            c(0xC49A7E),
        ],
    };
}

/// Pixel sizes (CSS pixels; the canvas helper scales for high-DPI screens).
pub mod px {
    /// Chart title.
    pub const TITLE: f64 = 15.0;
    /// Subtitle / caption line.
    pub const SUBTITLE: f64 = 12.0;
    /// Axis titles.
    pub const AXIS: f64 = 12.0;
    /// Tick labels.
    pub const TICK: f64 = 11.0;
    /// Legend entries.
    pub const LEGEND: f64 = 11.0;
}

/// Theme, palette and font family for a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartStyle {
    /// Which theme the palette belongs to.
    pub theme: Theme,
    /// Colours.
    pub palette: Palette,
    /// CSS font family (the browser resolves it; SVG viewers too).
    pub font: &'static str,
}

impl Default for ChartStyle {
    fn default() -> Self {
        ChartStyle::light()
    }
}

impl ChartStyle {
    /// Dark text on white.
    pub fn light() -> Self {
        ChartStyle {
            theme: Theme::Light,
            palette: Palette::LIGHT,
            font: "sans-serif",
        }
    }

    /// Light text on near-black.
    pub fn dark() -> Self {
        ChartStyle {
            theme: Theme::Dark,
            palette: Palette::DARK,
            font: "sans-serif",
        }
    }

    /// The style of `theme`.
    pub fn for_theme(theme: Theme) -> Self {
        match theme {
            Theme::Light => ChartStyle::light(),
            Theme::Dark => ChartStyle::dark(),
        }
    }

    /// A font of `size` px. The family goes in by name (the same CSS text): plotters' `From<&str>`
    /// lower-cases it, which links the whole Unicode case table (12 KB) into the bundle.
    pub fn font(&self, size: f64) -> FontDesc<'static> {
        FontDesc::new(FontFamily::Name(self.font), size, FontStyle::Normal)
    }

    /// Text of `size` px in `color`.
    pub fn text(&self, size: f64, color: RGBColor) -> TextStyle<'static> {
        self.font(size).color(&color)
    }

    /// `color` blended toward the background by `t` (0 = unchanged, 1 = background): the lighter
    /// "hidden" variant of a component.
    pub fn faded(&self, color: RGBColor, t: f64) -> RGBColor {
        // Toward near-black a colour turns muddy quickly: fade less on the dark theme so hidden
        // communication keeps its hue there (screenshots of the dark time chart).
        let t = match self.theme {
            Theme::Light => t,
            Theme::Dark => t * 0.6,
        };
        mix(color, self.palette.background, t)
    }
}

/// Linear blend of two colours (`t` in 0..1).
pub fn mix(a: RGBColor, b: RGBColor, t: f64) -> RGBColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let f = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * t).round() as u8;
    RGBColor(f(a.0, b.0), f(a.1, b.1), f(a.2, b.2))
}

/// `x` if finite and positive, else 0 (chart inputs are never NaN past this point).
pub fn clean(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        x
    } else {
        0.0
    }
}

pub use crate::text::sig3;

/// An axis tick: three significant digits with trailing zeros dropped (0, 0.5, 1, 1.5; 20, 40).
pub fn tick(x: f64) -> String {
    let s = sig3(x);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// An axis tick precise enough for an axis spanning `span` (about five labels), so that close
/// ticks never print alike: 21.65 and 21.7 rather than "21.7" twice. Trailing zeros dropped.
pub fn tick_for_span(x: f64, span: f64) -> String {
    let coarse = tick(x);
    if !(span.is_finite() && span > 0.0 && x.is_finite()) {
        return coarse;
    }
    let decimals = (-(span / 5.0).log10()).ceil().clamp(0.0, 6.0) as usize;
    let s = Fixed(x, decimals).to_string();
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s.len() > coarse.len() {
        s
    } else {
        coarse
    }
}

/// Bytes with binary prefixes: "80.0 GiB", "512 MiB", "1.25 TiB".
pub fn fmt_bytes(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    if !bytes.is_finite() {
        return "–".to_string();
    }
    let mut v = bytes;
    let mut i = 0;
    while v.abs() >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    let unit = UNITS.get(i).copied().unwrap_or("B");
    let decimals = if i == 0 || v.abs() >= 100.0 { 0 } else { 1 };
    format!("{} {unit}", Fixed(v, decimals))
}

/// Bytes in GiB (axis unit of the memory charts), the engine's own.
pub use crate::engine::memory::overhead::GIB;

/// A number with an SI prefix: 1234567 → "1.23 M", 950 → "950".
pub fn fmt_si(x: f64) -> String {
    const P: [(f64, &str); 5] = [
        (1e15, " P"),
        (1e12, " T"),
        (1e9, " G"),
        (1e6, " M"),
        (1e3, " k"),
    ];
    if !x.is_finite() {
        return "–".to_string();
    }
    for (scale, prefix) in P {
        if x.abs() >= scale {
            return format!("{}{prefix}", sig3(x / scale));
        }
    }
    sig3(x)
}

/// An axis tick with an SI prefix, trailing zeros dropped: 50000 → "50 k", 1.5e6 → "1.5 M".
pub fn si_tick(x: f64) -> String {
    let s = fmt_si(x);
    match s.split_once(' ') {
        Some((num, prefix)) => format!(
            "{} {prefix}",
            tick(crate::text::parse_f64(num).unwrap_or(0.0))
        ),
        None => tick(x),
    }
}

/// A rate with an SI prefix and unit: "1.23 M tokens/s".
pub fn fmt_rate(x: f64, unit: &str) -> String {
    format!("{} {unit}", fmt_si(x))
}

/// Seconds in a readable unit: "1.23 s", "456 ms", "12.0 µs".
pub fn fmt_seconds(s: f64) -> String {
    let (factor, unit) = time_unit(s);
    format!("{} {unit}", sig3(s * factor))
}

/// A fraction as a percentage: 0.4123 → "41.2%".
pub fn fmt_pct(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    format!("{}%", sig3(x * 100.0))
}

/// The unit to show times up to `max_s` in: (factor to multiply seconds by, unit name).
pub fn time_unit(max_s: f64) -> (f64, &'static str) {
    let a = if max_s.is_finite() { max_s.abs() } else { 0.0 };
    if a >= 1.0 || a == 0.0 {
        (1.0, "s")
    } else if a >= 1e-3 {
        (1e3, "ms")
    } else {
        (1e6, "µs")
    }
}

/// Rough text width in px (0.6 em per character) for layout that must not depend on the backend
/// (hit-testing uses the same layout as drawing).
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.58
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(fmt_bytes(80.0 * GIB), "80.0 GiB");
        assert_eq!(fmt_bytes(512.0 * 1024.0 * 1024.0), "512 MiB");
        assert_eq!(fmt_bytes(1.25 * 1024.0 * GIB), "1.2 TiB");
        assert_eq!(fmt_bytes(12.0), "12 B");
        assert_eq!(fmt_si(1_234_567.0), "1.23 M");
        assert_eq!(fmt_si(950.0), "950");
        assert_eq!(fmt_rate(2.5e6, "tokens/s"), "2.50 M tokens/s");
        assert_eq!(fmt_seconds(1.234), "1.23 s");
        assert_eq!(fmt_seconds(0.456), "456 ms");
        assert_eq!(fmt_seconds(12e-6), "12.0 µs");
        assert_eq!(fmt_pct(0.4123), "41.2%");
        assert_eq!(tick(0.5), "0.5");
        assert_eq!(tick(1.0), "1");
        assert_eq!(tick(60.0), "60");
        assert_eq!(tick(125.0), "125");
        assert_eq!(tick(0.025), "0.025");
        assert_eq!(si_tick(50_000.0), "50 k");
        assert_eq!(si_tick(1.5e6), "1.5 M");
        assert_eq!(si_tick(316_227.0), "316 k");
        assert_eq!(si_tick(0.0), "0");
        assert_eq!(fmt_bytes(f64::NAN), "–");
    }

    #[test]
    fn ticks_follow_the_axis_span() {
        // Span 0.27 s over ~5 labels: steps of 0.05, two decimals.
        assert_eq!(tick_for_span(21.65, 0.27), "21.65");
        assert_eq!(tick_for_span(21.7, 0.27), "21.7");
        // Wide spans keep the short form.
        assert_eq!(tick_for_span(400.0, 500.0), "400");
        assert_eq!(tick_for_span(0.5, 1.0), "0.5");
        assert_eq!(tick_for_span(f64::NAN, 1.0), "–");
    }

    #[test]
    fn mix_ends() {
        let a = RGBColor(0, 100, 200);
        let b = RGBColor(255, 255, 255);
        assert_eq!(mix(a, b, 0.0), a);
        assert_eq!(mix(a, b, 1.0), b);
        assert_eq!(mix(a, b, f64::NAN), a);
    }
}
