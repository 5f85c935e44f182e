//! The engine's advice on the plan, computed again only when the scenario or its estimate
//! changes: the verdict ([`advice::verdict`]) and, for a plan that does not fit, the closest
//! layouts that do ([`advice::closest_fitting`]). The verdict and fixes cards render it.

use std::rc::Rc;

use yew::prelude::*;

use crate::engine::advice::{self, Suggestion, Verdict};
use crate::engine::Estimate;
use crate::scenario::{Scenario, ScenarioError};

/// Fitting layouts offered for a plan that does not fit.
pub const OFFERED: usize = 3;

/// What [`use_advice`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Advice {
    /// The verdict; `None` while the scenario does not estimate.
    pub verdict: Rc<Option<Verdict>>,
    /// The closest layouts that fit on the same GPUs when the plan does not fit (at most
    /// [`OFFERED`]); empty otherwise.
    pub near: Rc<Vec<Suggestion>>,
}

/// The advice on `scenario`; see the module docs.
#[hook]
pub fn use_advice(scenario: Rc<Scenario>, estimate: Rc<Result<Estimate, ScenarioError>>) -> Advice {
    let deps = (scenario, estimate);
    let verdict = use_memo(deps.clone(), |(s, e)| match &**e {
        Ok(e) => Some(advice::verdict(s, e)),
        Err(_) => None,
    });
    let near = use_memo(deps, |(s, e)| match &**e {
        Ok(e) if !e.memory.fits => advice::closest_fitting(s, OFFERED),
        _ => Vec::new(),
    });
    Advice { verdict, near }
}
