//! Numbers as text with units, for the summary, the comparison and the embed line.

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
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 || a == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Bytes as GiB.
pub fn gib(bytes: f64) -> String {
    format!("{} GiB", sig(bytes / (1u64 << 30) as f64))
}

/// A count with SI prefix: `1.23M`, `45.6k`.
pub fn si(v: f64) -> String {
    let a = v.abs();
    let (x, p) = if a >= 1e15 {
        (v / 1e15, "P")
    } else if a >= 1e12 {
        (v / 1e12, "T")
    } else if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    format!("{}{p}", sig(x))
}

/// A fraction as a percentage: `0.456` → `45.6 %`.
pub fn pct(f: f64) -> String {
    format!("{} %", sig(f * 100.0))
}

/// Money with two decimals and thousands separators: `1,234,567.89`.
pub fn money(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let whole = v.trunc().abs() as u128;
    let cents = ((v.abs().fract()) * 100.0).round() as u128;
    let (whole, cents) = if cents == 100 {
        (whole + 1, 0)
    } else {
        (whole, cents)
    };
    let digits = whole.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    format!("{}{out}.{cents:02}", if v < 0.0 { "-" } else { "" })
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
        assert_eq!(money(1234567.891), "1,234,567.89");
        assert_eq!(delta(2.0, 3.0), "+50.0 %");
        assert_eq!(delta(0.0, 3.0), "–");
    }
}
