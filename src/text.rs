//! Small helpers for the sentences the engine, the CLI and the app write.

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
        format!("{:.0} ms", x * 1e3)
    }
}

/// Three significant digits, without trailing noise: 80 → "80.0", 1.234 → "1.23", 512 → "512".
pub fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    let a = x.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        let decimals = (2.0 - a.log10().floor()).clamp(2.0, 9.0) as usize;
        format!("{x:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::capitalized;

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
