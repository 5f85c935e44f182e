//! One stable sort for the whole crate.
//!
//! Every `slice::sort_by` call with its own element type and closure compiles its own copy of
//! the standard library's sort (driftsort / ipnsort: several kilobytes of WebAssembly each;
//! thirteen call sites took 57 KB of the bundle). [`sort_by`] instead orders *indices* with one
//! comparator behind `dyn`, so the library sort is compiled once, and then moves the elements
//! into that order by following the permutation's cycles (linear, no allocation of `T`).
//! The result is stable: equal elements keep their order (ties are broken by index).

use std::cmp::Ordering;

/// Sorts `v` by `cmp`, stably (`slice::sort_by`'s contract).
///
/// # Example
/// ```
/// let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (0, 'd')];
/// paracalc::sort::sort_by(&mut v, |a, b| a.0.cmp(&b.0));
/// assert_eq!(v, [(0, 'd'), (1, 'b'), (2, 'a'), (2, 'c')]);
/// ```
pub fn sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = order(v.len(), &|i, j| cmp(&v[i], &v[j]));
    permute(v, &order);
}

/// Sorts `v` by the key `f`, stably (`slice::sort_by_key`'s contract).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], f: impl Fn(&T) -> K) {
    sort_by(v, |a, b| f(a).cmp(&f(b)));
}

/// The indices `0..n` in the order `cmp` gives, ties by index: the only instance of the standard
/// library's sort that this function's callers need.
fn order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_unstable_by(|&a, &b| cmp(a, b).then(a.cmp(&b)));
    idx
}

/// Rearranges `v` so that `v[i]` becomes the old `v[order[i]]`, one cycle of the permutation at a
/// time with swaps (each element moves once).
fn permute<T>(v: &mut [T], order: &[usize]) {
    let mut done = vec![false; v.len()];
    for start in 0..v.len() {
        if done[start] {
            continue;
        }
        let mut i = start;
        loop {
            done[i] = true;
            let j = order[i];
            if j == start {
                break;
            }
            v.swap(i, j);
            i = j;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_standard_stable_sort() {
        // A fixed pseudo-random sequence with many ties.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let v: Vec<(u8, usize)> = (0..500)
            .map(|i| ((crate::xorshift::next_u64(&mut x) % 17) as u8, i))
            .collect();
        let mut ours = v.clone();
        sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
        let mut std_sorted = v;
        std_sorted.sort_by_key(|a| a.0);
        assert_eq!(ours, std_sorted);
    }

    #[test]
    fn empty_and_single() {
        let mut e: Vec<f64> = vec![];
        sort_by(&mut e, f64::total_cmp);
        assert!(e.is_empty());
        let mut one = vec![3.0];
        sort_by(&mut one, f64::total_cmp);
        assert_eq!(one, [3.0]);
        let mut keyed = vec!["ccc", "a", "bb"];
        sort_by_key(&mut keyed, |s| s.len());
        assert_eq!(keyed, ["a", "bb", "ccc"]);
    }
}
