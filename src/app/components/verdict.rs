//! The verdict line under the key numbers: what dominates the step, the largest exposed cost,
//! and the changes the engine computes would help most, each with a one-click "Try it"
//! ([`crate::engine::advice::verdict`]).

use std::rc::Rc;

use yew::prelude::*;

use crate::app::click::emit_on_click;
use crate::app::format;
use crate::app::state::Action;
use crate::engine::advice::{self, Goal, Suggestion, Verdict};
use crate::engine::Estimate;
use crate::scenario::{Scenario, ScenarioError};
use crate::text::num::Plain;

/// What [`verdict`] shows.
#[derive(Clone, Debug, PartialEq)]
pub struct VerdictProps {
    /// The scenario.
    pub scenario: Rc<Scenario>,
    /// Its estimate.
    pub estimate: Rc<Result<Estimate, ScenarioError>>,
    /// Its verdict ([`use_advice`](crate::app::hooks::use_advice)).
    pub verdict: Rc<Option<Verdict>>,
    /// Dispatches a tried suggestion.
    pub on_action: Callback<Action>,
}

/// What a suggestion does, in numbers: "step 14.9 s → 13.9 s (−6.8 %)" and the memory when it
/// matters.
pub fn effect(sug: &Suggestion, before: &Estimate) -> String {
    let step = format!(
        "step {} → {} ({})",
        format::duration(before.time.step_s),
        format::duration(sug.step_s),
        format::delta(before.time.step_s, sug.step_s)
    );
    let mem = format!(
        "peak {} → {} per GPU",
        format::gib(before.memory.peak_bytes),
        format::gib(sug.peak_bytes)
    );
    match sug.goal {
        Goal::Faster => format!("{step}, MFU {}", format::pct(sug.mfu)),
        Goal::Fits => format!("fits: {mem}; {step}"),
        Goal::LessMemory => format!("still does not fit: {mem}"),
    }
}

/// One suggestion of a list: the change, its effect on `before` and a "Try it" button with id
/// `{prefix}-{i}` (the verdict's suggestions, and the memory savers of a plan that does not fit).
pub fn suggestion_item(
    prefix: &str,
    i: usize,
    sug: &Suggestion,
    s: &Scenario,
    before: &Estimate,
    on_action: &Callback<Action>,
) -> Html {
    html! {
        <li>
            <span class="change">{ sug.describe(s) }</span>
            { ": " }
            <span class="effect">{ effect(sug, before) }</span>
            { " " }
            <button type="button" class="try" id={format!("{prefix}-{i}")}
                onclick={emit_on_click(on_action, Action::Try(Box::new(sug.clone())))}>{ "Try it" }</button>
        </li>
    }
}

/// The verdict card. For a plan that does not fit, the sentence is about the step "if it fit";
/// the fixes are in [`super::fixes::fixes`].
pub fn verdict(props: &VerdictProps) -> Html {
    let (Some(v), Ok(e)) = (&*props.verdict, &*props.estimate) else {
        return html! {};
    };
    let s = &props.scenario;
    let sentence = advice::sentence(v);
    html! {
        <section class="verdict card" id="verdict" aria-labelledby="verdict-title">
            <h2 id="verdict-title" class="sr-only">{ "Verdict" }</h2>
            <p id="verdict-line">
                <strong>{ if v.fits { "Verdict: " } else { "If it fit: " } }</strong>
                { sentence }
            </p>
            if v.fits {
                if v.suggestions.is_empty() {
                    <p class="muted small" id="verdict-none">{ format!(
                        "None of the single changes the engine tried (bucket size, pp, vp, tp, cp, recomputation, TP and DP overlap, micro-batch, ZeRO stage, SP, FP8 primary weights, the MoE dispatcher, and for an eager stack a compiled graph) shortens the step by {} % or more while fitting.",
                        Plain(advice::MIN_GAIN * 100.0)) }</p>
                } else {
                    <p class="small">{ "What would help most (each computed with the same estimate):" }</p>
                    <ul class="suggestions" id="verdict-suggestions">
                        { for v.suggestions.iter().enumerate().map(|(i, sug)| suggestion_item("try", i, sug, s, e, &props.on_action)) }
                    </ul>
                }
            }
            { for v.stack_notes.iter().enumerate().map(|(i, n)| html! {
                <p class="small stack-note" id={format!("verdict-stack-note-{i}")}>
                    <strong>{ "Stack: " }</strong>
                    { format!("{}: step {}, peak {} per GPU{}.", n.text, format::duration(n.step_s),
                        format::gib(n.peak_bytes), if n.fits { "" } else { " (does not fit)" }) }
                </p>
            }) }
        </section>
    }
}
