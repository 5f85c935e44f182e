//! The fit verdict a planner acts on: **fits**, **may not fit** or **does not fit**, and which
//! term of the peak stage would have to be wrong, by how much, for it to flip
//! ([interval.md](crate::docs::formulas::interval) §2).
//!
//! The peak prediction misses published runs by some band `b` (a fraction of the peak: how far
//! the predicted peak memory misses on comparable published runs). With the predicted peak `P`
//! and the usable capacity `C`:
//! - **fits** when `P + b·P ≤ C` (even a peak `b` higher fits);
//! - **does not fit** when `P − b·P > C` (even a peak `b` lower does not);
//! - **may not fit** otherwise: the limit lies inside the band.
//!
//! The band comes from the evidence (`crate::evidence::band::memory_verdict_frac`, the runs most
//! like the plan); without evidence (the search, the engine alone) it is
//! [`DEFAULT_BAND_FRAC`].
//!
//! # Example
//! ```
//! use paracalc::engine::memory::verdict::{judge, Verdict};
//! // 70 GiB predicted on 80 GiB with a ±6 % band: 74.2 ≤ 80, fits.
//! assert_eq!(judge(70.0, 80.0, 0.06), Verdict::Fits);
//! assert_eq!(judge(78.0, 80.0, 0.06), Verdict::MayNotFit);
//! assert_eq!(judge(82.0, 80.0, 0.06), Verdict::MayNotFit);
//! assert_eq!(judge(90.0, 80.0, 0.06), Verdict::DoesNotFit);
//! ```

use super::rows::StageMemory;
use crate::text::num::Fixed;
use serde::Serialize;

/// The peak-memory band the engine uses when no evidence is at hand, as a fraction of the peak:
/// 0.093, the peak-memory MAPE over the 47 published runs with a measured peak (9.28 %,
/// `tests/memory.rs`, which checks that the measured MAPE stays at or below it), rounded up. An
/// end-to-end constant, measured in sample; the evidence's own band for a plan (the runs most
/// like it) replaces it wherever the published runs are loaded.
pub const DEFAULT_BAND_FRAC: f64 = 0.093;

/// Whether a plan fits in GPU memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The peak fits even if the prediction is a band too low.
    #[default]
    Fits,
    /// The usable capacity lies within the band of the predicted peak.
    MayNotFit,
    /// The peak exceeds the capacity even if the prediction is a band too high.
    DoesNotFit,
}

impl Verdict {
    /// "fits", "may not fit", "does not fit".
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Fits => "fits",
            Verdict::MayNotFit => "may not fit",
            Verdict::DoesNotFit => "does not fit",
        }
    }

    /// The JSON spelling: `fits`, `may_not_fit`, `does_not_fit`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Fits => "fits",
            Verdict::MayNotFit => "may_not_fit",
            Verdict::DoesNotFit => "does_not_fit",
        }
    }
}

/// The verdict for a predicted peak `peak` on a usable capacity `capacity` (any unit, both
/// the same) with a band `frac` (module docs). A zero or negative band reduces it to
/// `peak ≤ capacity`.
pub fn judge(peak: f64, capacity: f64, frac: f64) -> Verdict {
    let b = frac.max(0.0) * peak.max(0.0);
    if peak + b <= capacity {
        Verdict::Fits
    } else if peak - b > capacity {
        Verdict::DoesNotFit
    } else {
        Verdict::MayNotFit
    }
}

/// The term of the peak stage that would have to be wrong for the fit to flip (peak = capacity),
/// and by how much.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Flip {
    /// The term: "activations", "optimizer states", "gradients", "weights" or "other".
    pub term: &'static str,
    /// How much it would have to change, percent of the term: positive = larger than predicted
    /// (a plan that fits would stop fitting), negative = smaller (a plan that does not fit would
    /// fit).
    pub pct: f64,
}

impl Flip {
    /// The flip for the peak stage `row` on `capacity` bytes: of the row's terms (weights,
    /// gradients, optimizer states, activations and the rest: context, buffers, reserve), the
    /// one that needs the smallest relative change to close the headroom, i.e. the largest.
    pub fn of(row: &StageMemory, capacity: f64) -> Flip {
        let terms = [
            ("activations", row.activations_bytes),
            ("optimizer states", row.optimizer_bytes),
            ("gradients", row.gradients_bytes),
            ("weights", row.weights_bytes),
            ("other", row.other_bytes),
        ];
        let (term, bytes) =
            terms
                .iter()
                .copied()
                .fold(("activations", 0.0), |a, t| if t.1 > a.1 { t } else { a });
        let pct = if bytes > 0.0 {
            100.0 * (capacity - row.total_bytes) / bytes
        } else {
            0.0
        };
        Flip { term, pct }
    }

    /// "activations 12 % higher than predicted would make it not fit" or "... lower ... fit".
    pub fn text(&self) -> String {
        if self.pct >= 0.0 {
            format!(
                "{} {} % higher than predicted would make it not fit",
                self.term,
                Fixed(self.pct, 0)
            )
        } else {
            format!(
                "{} {} % lower than predicted would make it fit",
                self.term,
                Fixed(-self.pct, 0)
            )
        }
    }
}

/// The verdict and its flip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Fit {
    /// Fits, may not fit, does not fit.
    pub verdict: Verdict,
    /// The band it was judged with, fraction of the peak.
    pub band_frac: f64,
    /// What would flip it.
    pub flip: Flip,
}

impl Fit {
    /// The verdict for the peak stage `row` (whose total is the peak) on `capacity` bytes with
    /// the band `frac`.
    pub fn of(row: &StageMemory, capacity: f64, frac: f64) -> Fit {
        Fit {
            verdict: judge(row.total_bytes, capacity, frac),
            band_frac: frac,
            flip: Flip::of(row, capacity),
        }
    }

    /// "may not fit (limit inside the ±6 % band; activations 3 % higher than predicted would
    /// make it not fit)".
    pub fn text(&self) -> String {
        format!(
            "{} (±{} % band; {})",
            self.verdict.words(),
            Fixed(100.0 * self.band_frac, 0),
            self.flip.text()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band_decides_between_the_three_states() {
        // 80 GiB usable, ±10 %: fits up to 80/1.1 = 72.7, does not fit above 80/0.9 = 88.9.
        assert_eq!(judge(72.7, 80.0, 0.10), Verdict::Fits);
        assert_eq!(judge(72.8, 80.0, 0.10), Verdict::MayNotFit);
        assert_eq!(judge(88.8, 80.0, 0.10), Verdict::MayNotFit);
        assert_eq!(judge(88.9, 80.0, 0.10), Verdict::DoesNotFit);
        // No band: the bare comparison.
        assert_eq!(judge(80.0, 80.0, 0.0), Verdict::Fits);
        assert_eq!(judge(80.1, 80.0, 0.0), Verdict::DoesNotFit);
    }

    #[test]
    fn the_flip_names_the_largest_term_and_the_change_that_closes_the_headroom() {
        let row = StageMemory {
            weights_bytes: 10.0,
            gradients_bytes: 5.0,
            optimizer_bytes: 20.0,
            activations_bytes: 40.0,
            other_bytes: 5.0,
            total_bytes: 80.0,
            ..StageMemory::default()
        };
        // 8 bytes of headroom on 88: activations 8/40 = 20 % higher.
        let f = Flip::of(&row, 88.0);
        assert_eq!((f.term, f.pct), ("activations", 20.0));
        // 10 bytes over on 70: activations 25 % lower.
        assert_eq!(Flip::of(&row, 70.0).pct, -25.0);
        assert_eq!(
            Flip::of(&row, 70.0).text(),
            "activations 25 % lower than predicted would make it fit"
        );
    }
}
