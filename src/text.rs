//! Small helpers for the sentences the engine, the CLI and the app write.
//!
//! - [`num`]: floating-point numbers as text (`{x:.n$}`, `{x}`, `{x:e}`) without core's float
//!   formatting in the WebAssembly bundle.

pub mod num;

/// `s` with its first letter in upper case ("on those runs …" → "On those runs …"): ASCII and
/// Latin-1 letters ([`upper`]); the sentences paracalc writes start with one.
pub fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => std::iter::once(upper(f)).chain(c).collect(),
        None => String::new(),
    }
}

/// The capital of an ASCII or Latin-1 letter (`é` → `É`: U+00E0–U+00FE less `÷` sit 32 above
/// their capitals), any other character unchanged. Not `char::to_uppercase`: that links the
/// whole Unicode case table (12 KB) into the WebAssembly bundle for text that never needs it.
pub fn upper(c: char) -> char {
    match c {
        'a'..='z' => c.to_ascii_uppercase(),
        'à'..='þ' if c != '÷' => char::from_u32(u32::from(c) - 32).unwrap_or(c),
        _ => c,
    }
}

/// Seconds with about three significant digits ("5.21 s", "812 ms").
pub fn secs(x: f64) -> String {
    if x >= 1.0 {
        format!("{} s", sig3(x))
    } else {
        format!("{} ms", num::Fixed(x * 1e3, 0))
    }
}

/// Three significant digits, without trailing noise: 80 → "80.0", 1.234 → "1.23", 512 → "512".
pub fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    let a = x.abs();
    let decimals = if a >= 100.0 || a == 0.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        (2.0 - a.log10().floor()).clamp(2.0, 9.0) as usize
    };
    num::Fixed(x, decimals).to_string()
}

/// `s` as a number, exactly as `s.parse::<f64>()` reads it (`None` where that fails): an
/// optional sign, then `inf`, `infinity` or `nan` (any case) or decimal digits with at most one
/// point and an optional exponent; no spaces.
///
/// In the browser the digits are converted by JavaScript's `parseFloat`, which rounds a decimal
/// to the nearest double just as Rust's parser does, so the value is the same; the shape is
/// checked here first ([`float_shape`]), so nothing `parse` rejects is accepted. Rust's decimal
/// parser (its code and a 10 KB table of powers of five that gzip cannot shrink) then stays out of
/// the WebAssembly bundle. `tests/web.rs` compares the two on the same texts.
pub fn parse_f64(s: &str) -> Option<f64> {
    #[cfg(target_arch = "wasm32")]
    {
        match float_shape(s)? {
            FloatShape::Decimal => Some(js_sys::parse_float(s)),
            FloatShape::Infinite(negative) => Some(if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }),
            FloatShape::Nan => Some(f64::NAN),
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        s.parse::<f64>().ok()
    }
}

/// What a text `f64::from_str` accepts is: see [`float_shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatShape {
    /// Digits, at most one point, an optional exponent (with its sign, if any).
    Decimal,
    /// `inf` or `infinity`; `true` when negative.
    Infinite(bool),
    /// `nan`.
    Nan,
}

/// The shape of `s` if `f64::from_str` accepts it, else `None`: `[+-]?` then `inf`, `infinity`,
/// `nan` (ASCII case-insensitive), or `digits`, `digits.`, `.digits` or `digits.digits`
/// followed by an optional `[eE][+-]?digits` (the grammar of core's `dec2flt`).
pub fn float_shape(s: &str) -> Option<FloatShape> {
    let b = s.as_bytes();
    let (negative, rest) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    if rest.eq_ignore_ascii_case(b"inf") || rest.eq_ignore_ascii_case(b"infinity") {
        return Some(FloatShape::Infinite(negative));
    }
    if rest.eq_ignore_ascii_case(b"nan") {
        return Some(FloatShape::Nan);
    }
    let digits = |from: usize| {
        from + rest[from..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let int_end = digits(0);
    let mut end = int_end;
    let mut mantissa_digits = int_end;
    if rest.get(end) == Some(&b'.') {
        let frac_end = digits(end + 1);
        mantissa_digits += frac_end - end - 1;
        end = frac_end;
    }
    if mantissa_digits == 0 {
        return None;
    }
    if matches!(rest.get(end), Some(b'e' | b'E')) {
        let mut at = end + 1;
        if matches!(rest.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let exp_end = digits(at);
        if exp_end == at {
            return None;
        }
        end = exp_end;
    }
    (end == rest.len()).then_some(FloatShape::Decimal)
}

#[cfg(test)]
mod tests {
    use super::capitalized;

    /// Every text in a wide sample is accepted by [`super::float_shape`] exactly when
    /// `f64::from_str` accepts it, and [`super::parse_f64`] gives the same bits.
    #[test]
    fn float_shape_accepts_what_from_str_accepts() {
        let pieces = [
            "", "+", "-", "0", "7", "12", ".", "e", "E", "e5", "e-3", "E+2", "x", " ", "_", "inf",
            "Infinity", "NaN", "nan", "infinit", "1_0", "0x1", ",",
        ];
        let mut n = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = format!("{a}{b}{c}");
                    let want = s.parse::<f64>().ok();
                    let got = super::float_shape(&s);
                    assert_eq!(got.is_some(), want.is_some(), "{s:?}");
                    let parsed = super::parse_f64(&s);
                    assert_eq!(parsed.map(f64::to_bits), want.map(f64::to_bits), "{s:?}");
                    n += 1;
                }
            }
        }
        assert_eq!(n, pieces.len().pow(3));
        assert_eq!(
            super::float_shape("-inf"),
            Some(super::FloatShape::Infinite(true))
        );
        assert_eq!(super::float_shape("+NaN"), Some(super::FloatShape::Nan));
        assert_eq!(super::float_shape("1.e5"), Some(super::FloatShape::Decimal));
        assert_eq!(super::float_shape(".5"), Some(super::FloatShape::Decimal));
        assert_eq!(super::float_shape("1e"), None);
    }

    #[test]
    fn first_letter_only() {
        assert_eq!(
            capitalized("on those runs it was 3 % shorter"),
            "On those runs it was 3 % shorter"
        );
        assert_eq!(capitalized("ébauche"), "Ébauche");
        assert_eq!(capitalized(""), "");
        // Agrees with the standard library on ASCII and Latin-1 (one capital letter each).
        for c in ('a'..='z').chain('à'..='þ').filter(|&c| c != '÷') {
            assert_eq!(Some(super::upper(c)), c.to_uppercase().next(), "{c}");
            assert_ne!(super::upper(c), c, "{c}");
        }
        for c in ['A', 'É', '1', ' ', '÷', 'ß', 'ÿ'] {
            assert_eq!(super::upper(c), c, "{c}");
        }
    }
}
