//! The larger and the smaller of two numbers in one instruction, for the estimate's hot path.
//!
//! `f64::max` and `f64::min` return the other operand when one is NaN; on x86-64 that costs a
//! NaN test and a blend beside the `maxsd`/`minsd` (four more instructions each, and an
//! estimate takes some fifty of them). Where the second operand is a number (a constant, or a
//! rate or a byte count of a validated scenario), [`max_num`] and [`min_num`] give the same
//! value with the one instruction: the first operand when it is larger (smaller), else the
//! second, so a NaN first operand gives the second, as `f64::max` does. Of `+0` and `−0` they
//! give the second (`f64::max` may give either).

/// The larger of `a` and `b`, for a `b` that is a number: `a.max(b)` in one `maxsd`.
#[inline(always)]
pub fn max_num(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// The smaller of `a` and `b`, for a `b` that is a number: `a.min(b)` in one `minsd`.
#[inline(always)]
pub fn min_num(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_f64_max_and_min_when_the_second_is_a_number() {
        let xs = [
            f64::NEG_INFINITY,
            -3.5,
            -1.0,
            0.0,
            1e-300,
            0.5,
            1.0,
            2.0,
            1e300,
            f64::INFINITY,
        ];
        for a in xs.iter().copied().chain([f64::NAN]) {
            for b in xs {
                assert_eq!(max_num(a, b).to_bits(), a.max(b).to_bits(), "max {a} {b}");
                assert_eq!(min_num(a, b).to_bits(), a.min(b).to_bits(), "min {a} {b}");
            }
        }
    }
}
