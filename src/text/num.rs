//! Floating-point numbers as text, byte for byte what the standard library's `format!` writes,
//! without core's float formatting (Grisu with its Dragon fallback, their big-number code and
//! tables of powers of ten: about 17 KB of the WebAssembly bundle).
//!
//! - [`Fixed`]`(x, n)` writes `format!("{x:.n$}")`: exactly `n` decimals, the exact binary value
//!   rounded half to even (0.125 → `0.12`, 2.5 → `2`), computed with a small big integer.
//! - [`Plain`]`(x)` writes `format!("{x}")` and [`Exp`]`(x)` writes `format!("{x:e}")`: the
//!   shortest digits that read back as `x`. In the browser the digits come from JavaScript's
//!   `String(x)` (ECMAScript's Number::toString: the shortest digits that round-trip, the closest
//!   to `x` when several do, the digits core's algorithms give); natively from `{x:e}`. Only the
//!   layout (point, zeros, exponent) is done here, the same code on both.
//!
//! NaN is `NaN`, infinities `inf` and `-inf`; a negative number, zero included, keeps its `-`
//! (`-0.0` → `-0`, `-0.001` to one decimal → `-0.0`), as the standard library writes them.
//! Width and alignment (`{:>8}`) are honoured, and `{:+}` on [`Fixed`]; a precision on these
//! types is not (use [`Fixed`]).
//! Tests: this module's property tests against `format!` natively; `tests/web.rs` compares
//! [`Plain`] and [`Exp`] with `format!` in the browser.

use std::fmt;

/// `x` with `n` decimals, as `format!("{x:.n$}")`.
#[derive(Clone, Copy, Debug)]
pub struct Fixed(pub f64, pub usize);

/// `x` with `n` decimals after one digit and an exponent, as `format!("{x:.n$e}")`.
#[derive(Clone, Copy, Debug)]
pub struct ExpFixed(pub f64, pub usize);

/// `x` in its shortest round-trip form, as `format!("{x}")`.
#[derive(Clone, Copy, Debug)]
pub struct Plain(pub f64);

/// `x` in its shortest round-trip form with an exponent, as `format!("{x:e}")`.
#[derive(Clone, Copy, Debug)]
pub struct Exp(pub f64);

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        if f.sign_plus() && !self.0.is_nan() && self.0.is_sign_positive() {
            s.push('+');
        }
        if signed(&mut s, self.0) {
            fixed_digits(&mut s, self.0.abs(), self.1);
        }
        f.pad(&s)
    }
}

impl fmt::Display for ExpFixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        if signed(&mut s, self.0) {
            let (d, point) = exact(self.0.abs());
            let (d, point) = round(d, point, self.1 as i32 + 1);
            push_exp(&mut s, &d, point, self.1 + 1);
        }
        f.pad(&s)
    }
}

impl fmt::Display for Plain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&shortest(self.0, false))
    }
}

impl fmt::Display for Exp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&shortest(self.0, true))
    }
}

/// Writes the sign (or all of a NaN or an infinity) of `x` to `s`; `true` when digits follow.
fn signed(s: &mut String, x: f64) -> bool {
    if x.is_nan() {
        s.push_str("NaN");
        return false;
    }
    if x.is_sign_negative() {
        s.push('-');
    }
    if x.is_infinite() {
        s.push_str("inf");
        return false;
    }
    true
}

/// The exact decimal expansion of a finite `x ≥ 0`: its digits without leading or trailing zeros
/// (none for zero) and the power of ten of the point in front of them (`x = 0.D · 10^point`).
/// `x = m · 2^e` is `m · 2^e` for `e ≥ 0` and `m · 5^-e / 10^-e` below: a big integer (32-bit
/// limbs, least significant first) multiplied by 2 or by 5, then written out nine digits at a time.
pub fn exact(x: f64) -> (Vec<u8>, i32) {
    let bits = x.to_bits();
    let biased = (bits >> 52) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), biased - 1075)
    };
    let mut v: Vec<u32> = vec![m as u32, (m >> 32) as u32];
    for _ in 0..e.unsigned_abs() {
        let k = if e > 0 { 2 } else { 5 };
        let mut carry = 0u64;
        for w in v.iter_mut() {
            let t = u64::from(*w) * k + carry;
            *w = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            v.push(carry as u32);
        }
    }
    // Nine digits per division by 10^9, least significant first.
    let mut digits = Vec::new();
    while v.iter().any(|w| *w != 0) {
        let mut rem = 0u64;
        for w in v.iter_mut().rev() {
            let t = (rem << 32) | u64::from(*w);
            *w = (t / 1_000_000_000) as u32;
            rem = t % 1_000_000_000;
        }
        for _ in 0..9 {
            digits.push(b'0' + (rem % 10) as u8);
            rem /= 10;
        }
    }
    let point = digits.len() as i32 + e.min(0);
    digits.reverse();
    trim(digits, point)
}

/// `digits` (most significant first) less their leading and trailing zeros, `point` moved with
/// the leading ones (0 for zero).
fn trim(mut digits: Vec<u8>, mut point: i32) -> (Vec<u8>, i32) {
    let lead = digits.iter().take_while(|d| **d == b'0').count();
    digits.drain(..lead);
    point -= lead as i32;
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        point = 0;
    }
    (digits, point)
}

/// `0.D · 10^point` rounded half to even to its first `keep` digits (none kept: to a multiple of
/// `10^point`). The digits must be exact: a `5` followed by nothing is a tie.
fn round(mut digits: Vec<u8>, mut point: i32, keep: i32) -> (Vec<u8>, i32) {
    if keep >= digits.len() as i32 {
        return (digits, point);
    }
    if keep < 0 {
        return (Vec::new(), point);
    }
    let k = keep as usize;
    let next = digits[k];
    let odd = k > 0 && digits[k - 1] % 2 == 1;
    let up = next > b'5' || (next == b'5' && (digits.len() > k + 1 || odd));
    digits.truncate(k);
    if up {
        // Add one in the last kept place; 9s carry, and all 9s become 1 with the point moved.
        while digits.last() == Some(&b'9') {
            digits.pop();
        }
        match digits.last_mut() {
            Some(d) => *d += 1,
            None => {
                digits.push(b'1');
                point += 1;
            }
        }
    }
    trim(digits, point)
}

/// Writes `x ≥ 0` (finite) with `n` decimals to `s`.
fn fixed_digits(s: &mut String, x: f64, n: usize) {
    let (d, point) = exact(x);
    let (d, point) = round(d, point, point + n as i32);
    let digit = |i: i32| {
        usize::try_from(i)
            .ok()
            .and_then(|i| d.get(i))
            .map_or('0', |b| char::from(*b))
    };
    if point <= 0 {
        s.push('0');
    }
    (0..point).for_each(|i| s.push(digit(i)));
    if n > 0 {
        s.push('.');
        (point..point + n as i32).for_each(|i| s.push(digit(i)));
    }
}

/// The shortest round-trip digits of `x` laid out as `{x}` (`exp` false) or `{x:e}` (true).
fn shortest(x: f64, exp: bool) -> String {
    let mut s = String::new();
    if !signed(&mut s, x) {
        return s;
    }
    let (digits, point) = shortest_digits(x.abs());
    if exp {
        push_exp(&mut s, &digits, point, digits.len());
        return s;
    }
    if digits.is_empty() {
        s.push('0');
    } else if point <= 0 {
        s.push_str("0.");
        (0..-point).for_each(|_| s.push('0'));
        digits.iter().for_each(|d| s.push(char::from(*d)));
    } else {
        let p = point as usize;
        for (i, d) in digits.iter().enumerate() {
            if i == p {
                s.push('.');
            }
            s.push(char::from(*d));
        }
        (digits.len()..p).for_each(|_| s.push('0'));
    }
    s
}

/// Writes `0.D · 10^point` as `d.ddd` (`len` digits, zeros after `D`) then `e` and the exponent
/// of the first digit; zero as `0.000e0`.
fn push_exp(s: &mut String, digits: &[u8], point: i32, len: usize) {
    for i in 0..len.max(1) {
        if i == 1 {
            s.push('.');
        }
        s.push(digits.get(i).map_or('0', |d| char::from(*d)));
    }
    s.push('e');
    let p = if digits.is_empty() { 0 } else { point - 1 };
    s.push_str(&p.to_string());
}

/// The shortest round-trip digits of a finite `x ≥ 0` as `{x}` writes them (an exact tie between
/// two shortest spellings broken upwards) and the power of ten of the point in front of them
/// (`0.D · 10^point`); no digits for zero.
pub fn shortest_digits(x: f64) -> (Vec<u8>, i32) {
    up_on_tie(x, &source(x))
}

/// The shortest digits of `x ≥ 0` read from `text`, a shortest form written by any of the usual
/// algorithms, with an exact tie between two shortest spellings broken upwards as core's
/// formatter does: JavaScript (V8) and serde_json (Ryū) take the even one (`…562.25` →
/// `…562.2`, core `…562.3`). A tie needs 16 or more digits; `x`'s exact expansion says whether
/// it lies halfway.
fn up_on_tie(x: f64, text: &str) -> (Vec<u8>, i32) {
    let (digits, point) = decimal(text);
    if digits.len() < 16 {
        return (digits, point);
    }
    let (e, e_point) = exact(x);
    let halfway = e_point == point
        && e.len() == digits.len() + 1
        && e.starts_with(&digits)
        && e.last() == Some(&b'5');
    if halfway {
        let keep = digits.len() as i32;
        let mut up = digits;
        up.push(b'6');
        return round(up, point, keep);
    }
    (digits, point)
}

/// Reads a shortest form (`123.45`, `0.000001`, `1.5e-7`, `1e+21`, `1.25e2`) as its significant
/// digits without leading or trailing zeros and the power of ten of the point in front of them
/// (`0.D · 10^point`); no digits for zero.
fn decimal(text: &str) -> (Vec<u8>, i32) {
    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let mut e = 0i32;
    for b in exponent.bytes().filter(u8::is_ascii_digit) {
        e = e * 10 + i32::from(b - b'0');
    }
    if exponent.starts_with('-') {
        e = -e;
    }
    let mut digits = Vec::new();
    let mut point = None;
    for b in mantissa.bytes() {
        match b {
            b'.' => point = Some(digits.len()),
            b'0'..=b'9' => digits.push(b),
            _ => {}
        }
    }
    let point = point.unwrap_or(digits.len()) as i32 + e;
    trim(digits, point)
}

/// The shortest round-trip text of a finite `x ≥ 0` in any layout [`decimal`] reads.
#[cfg(not(target_arch = "wasm32"))]
fn source(x: f64) -> String {
    format!("{x:e}")
}

/// The shortest round-trip text of a finite `x ≥ 0`: JavaScript's `String(x)`.
#[cfg(target_arch = "wasm32")]
fn source(x: f64) -> String {
    #[wasm_bindgen::prelude::wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_name = String)]
        fn js_string(x: f64) -> String;
    }
    js_string(x)
}

#[cfg(test)]
mod tests {
    use super::{Exp, ExpFixed, Fixed, Plain};
    use proptest::prelude::*;

    /// Everyday values, exact ties (k / 2^j), signs, zeros, extremes and non-finite values.
    fn edges() -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            0.125,
            0.375,
            -0.01,
            0.05,
            0.15,
            0.25,
            9.995,
            99.95,
            0.1 + 0.2,
            1e21,
            1e-7,
            1.234_567_890_123_456_8e20,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e300,
            1e-300,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4_503_599_627_370_496.5,
            9_007_199_254_740_993.0,
        ];
        // Exact ties between two shortest spellings: 2^50 + k/4 lies halfway between two
        // 17-digit decimals (…624.25: …624.2 or …624.3).
        for k in 0..40 {
            v.push(1_125_899_906_842_624.0 + f64::from(k) / 4.0);
        }
        for j in 0..12 {
            for k in -40..40 {
                v.push(f64::from(k) / f64::from(1 << j));
            }
        }
        v
    }

    fn check(x: f64) {
        for n in 0..=12 {
            assert_eq!(Fixed(x, n).to_string(), format!("{x:.n$}"), "{x:e} to {n}");
        }
        for p in [0, 1, 2, 3, 11] {
            assert_eq!(
                ExpFixed(x, p).to_string(),
                format!("{x:.p$e}"),
                "{x:e} to {p}"
            );
        }
        assert_eq!(Plain(x).to_string(), format!("{x}"), "{x:e}");
        assert_eq!(Exp(x).to_string(), format!("{x:e}"), "{x:e}");
        // The digits as V8 and Ryū write them (ties to even) give core's (ties upwards).
        if x.is_finite() {
            let ryu = serde_json::to_string(&x.abs()).unwrap_or_default();
            assert_eq!(
                super::up_on_tie(x.abs(), &ryu),
                super::decimal(&format!("{:e}", x.abs())),
                "{x:e}"
            );
        }
    }

    #[test]
    fn edges_as_std() {
        for x in edges() {
            check(x);
        }
        assert_eq!(format!("[{:>6}]", Fixed(2.5, 1)), "[   2.5]");
        for x in [
            1.234,
            -1.234,
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
        ] {
            assert_eq!(format!("{:+}", Fixed(x, 2)), format!("{x:+.2}"));
        }
        assert_eq!(Fixed(2.5, 0).to_string(), "2");
        assert_eq!(Fixed(-0.001, 1).to_string(), "-0.0");
        // 2^50 + 1/4, exactly halfway between two 17-digit spellings.
        let tie = 1_125_899_906_842_624.0 + 0.25;
        assert_eq!(Plain(tie).to_string(), "1125899906842624.3");
        assert_eq!(serde_json::to_string(&tie).unwrap(), "1125899906842624.2");
    }

    proptest! {
        // Each case writes one value 24 ways, most with exact expansions of hundreds of digits.
        #![proptest_config(ProptestConfig::with_cases(3_000))]

        /// Any bit pattern: every magnitude, subnormals, NaNs and infinities.
        #[test]
        fn any_bits_as_std(bits in any::<u64>()) {
            check(f64::from_bits(bits));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Values of everyday size, where decimals matter, with ties near each rounding step.
        #[test]
        fn everyday_as_std(m in -1_000_000i64..1_000_000, scale in 0u32..8, n in 0usize..10) {
            let x = m as f64 / 10f64.powi(scale as i32);
            prop_assert_eq!(Fixed(x, n).to_string(), format!("{x:.n$}"));
            let tie = (m as f64 + 0.5) / f64::from(1u32 << scale);
            prop_assert_eq!(Fixed(tie, n).to_string(), format!("{tie:.n$}"));
            prop_assert_eq!(Plain(x).to_string(), format!("{x}"));
        }
    }
}
