//! Numbers as text with units, for the summary, the comparison and the embed line.

use crate::text::num::Fixed;

/// Seconds as `412 ms`, `3.52 s`, `12.4 min`, `5.2 h`, `38.1 days`, `2.3 years`.
pub fn duration(s: f64) -> String {
    if !s.is_finite() || s < 0.0 {
        return "–".into();
    }
    let (v, unit) = if s < 1.0 {
        (s * 1e3, "ms")
    } else if s < 120.0 {
        (s, "s")
    } else if s < 7200.0 {
        (s / 60.0, "min")
    } else if s < 3.0 * 86400.0 {
        (s / 3600.0, "h")
    } else if s < 730.0 * 86400.0 {
        (s / 86400.0, "days")
    } else {
        (s / (365.25 * 86400.0), "years")
    };
    format!("{} {unit}", sig(v))
}

/// Three significant figures, no exponent for everyday magnitudes.
pub fn sig(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let a = v.abs();
    let decimals = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 || a == 0.0 {
        2
    } else {
        3
    };
    Fixed(v, decimals).to_string()
}

/// Bytes as GiB.
pub fn gib(bytes: f64) -> String {
    format!("{} GiB", sig(bytes / (1u64 << 30) as f64))
}

/// A count with SI prefix: `1.23M`, `45.6k`.
pub fn si(v: f64) -> String {
    const SI: [(f64, &str); 5] = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    let (x, p) = scaled(v, &SI).unwrap_or((v, ""));
    format!("{}{p}", sig(x))
}

/// `v` over the largest factor of `prefixes` (largest first) that `|v|` reaches, with its
/// suffix; `None` below the smallest.
fn scaled(v: f64, prefixes: &[(f64, &'static str)]) -> Option<(f64, &'static str)> {
    let a = v.abs();
    prefixes
        .iter()
        .find(|(f, _)| a >= *f)
        .map(|&(f, p)| (v / f, p))
}

/// A fraction as a percentage: `0.456` → `45.6 %`.
pub fn pct(f: f64) -> String {
    format!("{} %", sig(f * 100.0))
}

/// Money to three significant figures, the precision of an estimate (no cents): `$ 840`,
/// `$ 12.3 k`, `$ 4.56 M`, `$ 1.20 B`.
pub fn money(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    const MONEY: [(f64, &str); 3] = [(1e9, "\u{a0}B"), (1e6, "\u{a0}M"), (1e3, "\u{a0}k")];
    match scaled(v, &MONEY) {
        Some((x, p)) => format!("$\u{a0}{}{p}", sig(x)),
        None => format!("$\u{a0}{}", Fixed(v, 0)),
    }
}

/// Relative change from `a` to `b` as `+12.3 %` (`–` when `a` is 0).
pub fn delta(a: f64, b: f64) -> String {
    if a == 0.0 || !a.is_finite() || !b.is_finite() {
        return "–".into();
    }
    let d = (b - a) / a * 100.0;
    if d.abs() < 0.05 {
        "±0 %".into()
    } else {
        format!("{}{} %", if d > 0.0 { "+" } else { "" }, sig(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(duration(0.4123), "412 ms");
        assert_eq!(duration(3.521), "3.52 s");
        assert_eq!(duration(3600.0 * 5.2), "5.20 h");
        assert_eq!(duration(86400.0 * 38.14), "38.1 days");
        assert_eq!(gib(80.0 * 1073741824.0), "80.0 GiB");
        assert_eq!(si(1_234_000.0), "1.23M");
        assert_eq!(pct(0.4567), "45.7 %");
        assert_eq!(money(1234567.891), "$\u{a0}1.23\u{a0}M");
        assert_eq!(money(839.6), "$\u{a0}840");
        assert_eq!(money(12_345.0), "$\u{a0}12.3\u{a0}k");
        assert_eq!(delta(2.0, 3.0), "+50.0 %");
        assert_eq!(delta(0.0, 3.0), "–");
    }
}
