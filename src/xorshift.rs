//! Xorshift generators: the fixed pseudo-random sequences the tests draw their inputs from
//! (G. Marsaglia, "Xorshift RNGs", Journal of Statistical Software 8(14), 2003: the 32-bit
//! generator with shifts 13, 17, 5 and the 64-bit one with 13, 7, 17). A seed gives the same
//! sequence on every run and target, so a failing input can be found again.

/// Advances the 64-bit xorshift state `x` (shifts 13, 7, 17) and returns the new state.
/// `x` must not be 0 (0 stays 0).
///
/// # Example
/// ```
/// let mut x = 1u64;
/// assert_eq!(paracalc::xorshift::next_u64(&mut x), 1_082_269_761);
/// assert_eq!(x, 1_082_269_761);
/// ```
#[inline]
pub fn next_u64(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Advances the 32-bit xorshift state `x` (shifts 13, 17, 5) and returns the new state.
/// `x` must not be 0 (0 stays 0).
///
/// # Example
/// ```
/// let mut x = 1u32;
/// assert_eq!(paracalc::xorshift::next_u32(&mut x), 270_369);
/// ```
#[inline]
pub fn next_u32(x: &mut u32) -> u32 {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    *x
}
