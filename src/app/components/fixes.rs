//! Fixes for a plan that does not fit: the overflow by stage and part
//! ([`crate::engine::advice::overflow`]) and the closest layouts that fit on the same GPUs
//! ([`crate::engine::advice::closest_fitting`]), each with its step time and one click to apply,
//! plus a way into the full search.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::charts::ChartKind;
use crate::app::click::emit_on_click;
use crate::app::components::verdict::suggestion_item;
use crate::app::format;
use crate::app::state::Action;
use crate::engine::advice::{self, Goal, Suggestion, Verdict};
use crate::engine::Estimate;
use crate::scenario::{Scenario, ScenarioError};

/// Stages listed in the overflow breakdown (the worst first).
pub const STAGES_LISTED: usize = 4;

/// What [`fixes`] shows.
#[derive(Clone, Debug, PartialEq)]
pub struct FixesProps {
    /// The scenario.
    pub scenario: Rc<Scenario>,
    /// Its estimate.
    pub estimate: Rc<Result<Estimate, ScenarioError>>,
    /// The closest layouts that fit ([`use_advice`](crate::app::hooks::use_advice)).
    pub near: Rc<Vec<Suggestion>>,
    /// The scenario's verdict (the same hook's): its memory savers
    /// are offered when no layout fits.
    pub verdict: Rc<Option<Verdict>>,
    /// Dispatches an applied layout.
    pub on_action: Callback<Action>,
}

/// Brings the charts panel (now on its search tab) into view.
fn show_charts() {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("charts"))
    {
        el.scroll_into_view();
    }
}

/// Renders nothing for a plan that fits.
pub fn fixes(props: &FixesProps) -> Html {
    let near = &*props.near;
    let Ok(e) = &*props.estimate else {
        return html! {};
    };
    if e.memory.fits {
        return html! {};
    }
    let s = &props.scenario;
    let m = &e.memory;
    let over = advice::overflow(m);
    // When no layout fits: the verdict's single changes that save memory.
    let less: Vec<&Suggestion> = match &*props.verdict {
        Some(v) if near.is_empty() => v
            .suggestions
            .iter()
            .filter(|x| x.goal == Goal::LessMemory)
            .collect(),
        _ => Vec::new(),
    };
    let stages = over.len();
    let search = {
        let on_action = props.on_action.clone();
        Callback::from(move |_| {
            on_action.emit(Action::SelectChart(ChartKind::Search));
            show_charts();
        })
    };
    html! {
        <section class="fixes card" id="fixes" aria-labelledby="fixes-title">
            <h2 id="fixes-title">{ "Does not fit: where and what to change" }</h2>
            <p>{ format!("{stages} of {} pipeline stage{} exceed{} the {} a GPU can use:",
                m.rows.len(), if m.rows.len() == 1 { "" } else { "s" },
                if stages == 1 { "s" } else { "" }, format::gib(m.capacity_bytes)) }</p>
            <ul class="overflow" id="fixes-overflow">
                { for over.iter().take(STAGES_LISTED).map(|o| {
                    let largest = o.parts.iter().map(|p| p.1).fold(0.0, f64::max);
                    html! {
                        <li>
                            <strong>{ format!("Stage {}: {} over", o.stage, format::gib(o.over_bytes)) }</strong>
                            { " — " }
                            { for o.parts.iter().enumerate().map(|(i, (name, bytes))| html! {
                                <>
                                    if i > 0 { { ", " } }
                                    <span class={classes!((*bytes == largest).then_some("largest"))}>
                                        { format!("{name} {}", format::gib(*bytes)) }
                                    </span>
                                </>
                            }) }
                        </li>
                    }
                }) }
                if stages > STAGES_LISTED {
                    <li class="muted">{ format!("… and {} more stages.", stages - STAGES_LISTED) }</li>
                }
            </ul>
            if near.is_empty() {
                <p id="fixes-none">{ format!("No layout within two changes fits on these {} GPUs.", s.cluster.num_gpus) }</p>
                if !less.is_empty() {
                    <ul class="suggestions" id="fixes-less">
                        { for less.iter().enumerate().map(|(i, sug)| suggestion_item("less", i, sug, s, e, &props.on_action)) }
                    </ul>
                }
            } else {
                <p>{ format!("Closest layouts that fit on the same {} GPUs (computed by the engine, fewest changes first):", s.cluster.num_gpus) }</p>
                <ul class="suggestions" id="fixes-layouts">
                    { for near.iter().enumerate().map(|(i, sug)| html! {
                        <li>
                            <span class="change">{ sug.describe(s) }</span>{ ": " }
                            <span class="effect">{ format!("step {}, {} tokens/s·GPU, MFU {}, peak {}",
                                format::duration(sug.step_s),
                                format::si(s.training.global_batch as f64 * s.model.seq_len as f64 / sug.step_s / s.cluster.num_gpus.max(1) as f64),
                                format::pct(sug.mfu), format::gib(sug.peak_bytes)) }</span>{ " " }
                            <button type="button" class="try" id={format!("fix-{i}")} onclick={emit_on_click(&props.on_action, Action::Try(Box::new(sug.clone())))}>{ "Apply" }</button>
                        </li>
                    }) }
                </ul>
            }
            <p class="small">
                <button type="button" class="link" id="fixes-search" onclick={search}>
                    { "Search every layout for these GPUs" }
                </button>
                { " (the Search chart ranks all layouts that fit by throughput)." }
            </p>
        </section>
    }
}
