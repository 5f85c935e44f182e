//! The error bands the page shows beside its numbers: from the published runs most like the plan
//! ([`band::band`]), recomputed when the plan or the loaded runs change; the calibrated band pairs
//! those runs, so it is recomputed only when the set of runs changes.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::components::summary::BandTexts;
use crate::evidence::band::{self, Band};
use crate::evidence::Case;
use crate::scenario::Scenario;

/// What [`use_bands`] gives: the band, the scaling chart's fraction and the tiles' texts (all
/// `None` until the published runs are loaded, or when none is like the plan).
pub struct Bands {
    /// The band of the runs most like the plan.
    pub band: Option<Rc<Band>>,
    /// The scaling chart's band: the farther end of the out-of-sample step band (calibrated when
    /// the plan is), the in-sample calibrated or plain MAPE when there is none.
    pub frac: Option<f64>,
    /// The texts beside the key numbers.
    pub texts: Option<Rc<BandTexts>>,
}

/// The error bands of plan `s` from the published runs `cases` (once loaded).
#[hook]
pub fn use_bands(s: &Scenario, cases: Option<Rc<Vec<Case>>>) -> Bands {
    let loaded = cases.as_ref().map(|c| Rc::as_ptr(c) as usize);
    let band = use_memo((s.clone(), loaded), {
        let cases = cases.clone();
        move |(s, _)| cases.as_ref().and_then(|c| band::band(c, s)).map(Rc::new)
    });
    let band: Option<Rc<Band>> = (*band).clone();
    let calibrated = !s.calibration.is_default();
    let cal_band = use_memo(
        (band.as_ref().map(|b| b.runs.clone()), loaded, calibrated),
        move |(runs, _, on)| match (cases.as_ref(), runs, on) {
            (Some(c), Some(runs), true) => band::calibrated(c, runs),
            _ => None,
        },
    );
    let frac = band
        .as_ref()
        .map(|b| match (b.step_reach_for(s), *cal_band) {
            (Some(r), _) => r.fraction(),
            (None, Some((pct, _))) if calibrated => pct / 100.0,
            _ => b.time_pct / 100.0,
        });
    let texts = band.as_ref().map(|b| {
        Rc::new(BandTexts {
            step: band::step_text(b, s, *cal_band),
            step_spread: (!calibrated).then(|| b.spread.tile_text()),
            rate: b.rate_text(s),
            memory: b.memory_text(s),
            memory_spread: b.memory_spread.map(|m| m.peak_tile_text()),
            memory_frac: b.memory_frac(s),
        })
    });
    Bands { band, frac, texts }
}
