//! [`Derived`]: everything a render of the app shows that is computed from the [`State`] —
//! the scenario, its estimate and issues, the pinned A with its estimate, and the link query —
//! computed once per state change (the shells memoise it on the state) and shared by `Rc`, so a
//! render clones no scenario or estimate.

use std::rc::Rc;

use crate::app::state::State;
use crate::engine::{estimate, Estimate};
use crate::scenario::{Issue, Model, Scenario, ScenarioError};

/// A scenario and its estimate (the pinned A of a comparison).
pub type Estimated = Rc<(Scenario, Result<Estimate, ScenarioError>)>;

/// What every part of the page reads; see the module docs.
#[derive(Clone, Debug)]
pub struct Derived {
    /// The state it was derived from.
    pub state: Rc<State>,
    /// The current scenario (B).
    pub scenario: Rc<Scenario>,
    /// Its estimate.
    pub estimate: Rc<Result<Estimate, ScenarioError>>,
    /// Its problems (empty when it estimates).
    pub issues: Rc<Vec<Issue>>,
    /// Its model section (the Hugging Face import compares against it).
    pub model: Rc<Model>,
    /// The pinned A and its estimate.
    pub pinned: Option<Estimated>,
    /// The link query of the state (without `?`).
    pub query: Rc<str>,
}

impl Derived {
    /// Everything `state` shows, computed once.
    pub fn of(state: &State) -> Derived {
        let estimate = estimate(&state.scenario);
        let issues = match &estimate {
            Ok(_) => Vec::new(),
            Err(e) => e.issues.clone(),
        };
        Derived {
            state: Rc::new(state.clone()),
            scenario: Rc::new(state.scenario.clone()),
            model: Rc::new(state.scenario.model.clone()),
            estimate: Rc::new(estimate),
            issues: Rc::new(issues),
            pinned: state
                .pinned
                .as_ref()
                .map(|p| Rc::new((p.scenario.clone(), crate::engine::estimate(&p.scenario)))),
            query: state.to_query().into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::state::Action;

    #[test]
    fn one_bundle_holds_the_estimate_issues_and_query_of_the_state() {
        let mut st = State::default();
        let d = Derived::of(&st);
        assert_eq!(*d.estimate, estimate(&st.scenario));
        assert!(d.issues.is_empty() && d.pinned.is_none());
        assert_eq!(&*d.query, st.to_query());
        st.apply(Action::Pin);
        st.apply(Action::SetNum(crate::scenario::FieldId::Tp, Some(3.0)));
        let d = Derived::of(&st);
        assert_eq!(
            d.issues.first().map(|i| i.field.as_str()),
            Some("parallel.tp")
        );
        assert!(d.pinned.as_ref().is_some_and(|p| p.1.is_ok()));
        assert!(d.query.contains("tp=3") && d.query.contains("a.model="));
    }
}
