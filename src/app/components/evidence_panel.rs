//! Published measured runs near the current plan, predicted vs measured step time.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::components::table::col_heads;
use crate::app::components::tool_card::tool_card;
use crate::app::format;
use crate::app::hooks::use_fetched::Evidence;
use crate::engine::estimate;
use crate::evidence::band::Band;
use crate::evidence::{self, first_sight, Case};
use crate::scenario::Scenario;

/// How many runs are listed.
const SHOWN: usize = 6;

/// What [`evidence_panel`] shows.
#[derive(Clone, Debug, PartialEq)]
pub struct EvidencePanelProps {
    /// The current scenario.
    pub scenario: Rc<Scenario>,
    /// The error band of the plan ([`crate::evidence::band`]), whose runs are listed.
    pub band: Option<Rc<Band>>,
    /// The published runs, as the shell loads them at start ([`use_evidence`](crate::app::hooks::use_evidence)).
    pub evidence: Evidence,
}

/// A table of the nearest published runs.
pub fn evidence_panel(props: &EvidencePanelProps) -> Html {
    let body = match &props.evidence {
        Evidence::Idle | Evidence::Loading => {
            html! { <p class="muted">{ "Loading published runs…" }</p> }
        }
        Evidence::Failed(e) => {
            html! { <p class="error">{ format!("The published runs could not be loaded ({e}).") }</p> }
        }
        Evidence::Ready(cases) => html! {
            <>
                { evidence_table(cases, &props.scenario) }
                if let Some(b) = &props.band {
                    { band_runs(cases, b) }
                    { source_errors(cases, b) }
                }
            </>
        },
    };
    tool_card(
        "evidence",
        "How far to trust it: published runs",
        "The measured runs nearest to this plan from paracalc's public validation cases (matched on model size, dense or MoE, sequence length, GPU and count, precision, framework and parallel layout), with the step time paracalc predicts for each.",
        body,
    )
}

/// The runs an error band was measured on (also used by tests through SSR).
pub fn band_runs(cases: &[Case], b: &Band) -> Html {
    html! {
        <div id="band-runs">
            <h3>{ format!("The {} {} behind the error bands", b.runs.len(), b.basis.words()) }</h3>
            <p class="small" id="band-spread">{ crate::text::capitalized(&b.spread.text()) }{ "." }</p>
            if let Some(r) = &b.step_reach {
                <p class="small" id="band-reach">
                    { format!("The bands shown under the key numbers are 80 % bands for a cluster paracalc has not seen: step time {}; {}.", r.text(), r.basis_text()) }
                    if let Some(m) = &b.memory_reach {
                        { format!(" Peak memory {}.", m.text()) }
                    }
                    { " Checked by leaving each published source out (validate; README, \"The error band\"): how often a source's runs fall inside the band built without it." }
                </p>
            }
            <ul class="band-runs small">
                { for b.runs.iter().filter_map(|&i| cases.get(i)).map(|c| html! {
                    <li>{ format!("{} — {} × {} ({})", c.id, c.scenario.cluster.num_gpus, c.scenario.cluster.gpu_name(), c.source) }</li>
                }) }
            </ul>
        </div>
    }
}

/// The sources of a band's runs: paracalc's step-time error on each now (in sample) beside the
/// error the first time it saw the source ([`first_sight::by_source`]; also used by tests
/// through SSR).
pub fn source_errors(cases: &[Case], b: &Band) -> Html {
    let rows = first_sight::by_source(cases, &b.runs);
    if rows.is_empty() {
        return Html::default();
    }
    let cell = |(mape, mean): (f64, f64)| {
        format!(
            "{} % ({}{} %)",
            format::sig(mape),
            if mean > 0.0 { "+" } else { "" },
            format::sig(mean)
        )
    };
    html! {
        <div id="band-sources">
            <h3>{ "Their sources: now and at first sight" }</h3>
            <p class="small">{ "Now: paracalc's step-time error on each source's published runs today (mean absolute, and signed: + predicted slower). The model was shaped with these runs in view, so this is in sample. First sight: its error the first time it saw the source, before any change made with it in view (tests/data/first_sight.json): the better guide to a run it has never seen, such as yours." }</p>
            <div class="table-wrap">
                <table class="cmp" id="band-sources-table">
                    <thead><tr>{ col_heads(&["Source", "Runs", "Now (in sample)", "First sight"]) }</tr></thead>
                    <tbody>
                        { for rows.into_iter().map(|r| html! {
                            <tr>
                                <th scope="row">{ r.group.clone() }</th>
                                <td>{ r.runs }</td>
                                <td>{ cell(r.now) }</td>
                                <td>{ r.first.map_or_else(|| "not recorded".to_string(), |(_, m, s)| cell((m, s))) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </div>
    }
}

/// The table for `cases` nearest to `s` (also used by tests through SSR): each run's layout,
/// precision, batch and measured throughput, what differs from the plan, and a plain sentence
/// when none of them is similar to it ([`evidence::similar`]).
pub fn evidence_table(cases: &[Case], s: &Scenario) -> Html {
    let near = evidence::nearest(cases, s, SHOWN);
    let similar = near
        .iter()
        .filter(|c| evidence::similar(s, &c.scenario))
        .count();
    let verdict = if similar == 0 {
        html! {
            <p class="notice warn" id="evidence-none">
                <strong>{ "No similar published run was checked. " }</strong>
                { "The runs below are the nearest there are, but they differ from this plan as listed in their last column: treat the estimate as an extrapolation." }
            </p>
        }
    } else {
        html! {
            <p id="evidence-similar">{ format!("{similar} of these runs are similar to this plan (same kind of model, GPU family, sequence length within 2×, close in size and layout).") }</p>
        }
    };
    html! {
        <div>
            { verdict }
            <div class="table-wrap">
                <table class="cmp evidence-table">
                    <thead><tr>
                        { col_heads(&["Run", "Error", "Measured", "Predicted", "Setup", "Layout", "Differs in"]) }
                    </tr></thead>
                    <tbody>
                        { for near.into_iter().map(|c| {
                            let r = &c.scenario;
                            let (pred, err, class) = match estimate(r) {
                                Ok(e) => {
                                    let pct = (e.time.step_s - c.step_s) / c.step_s * 100.0;
                                    let class = if pct.abs() <= 10.0 { "better" } else if pct.abs() <= 25.0 { "same" } else { "worse" };
                                    (format::duration(e.time.step_s), format!("{}{} %", if pct > 0.0 { "+" } else { "" }, format::sig(pct)), class)
                                }
                                Err(_) => ("–".to_string(), "not valid".to_string(), "worse"),
                            };
                            let tokens = r.training.global_batch as f64 * r.model.seq_len as f64 / c.step_s;
                            let diffs = evidence::differences(s, r);
                            let like = evidence::similar(s, r);
                            html! {
                                <tr class={classes!(like.then_some("similar"))}>
                                    <th scope="row"><span class="run-name">{ r.model.name.clone() }</span><br/><span class="muted small run-source" title={c.source.clone()}>{ c.source.clone() }</span></th>
                                    <td class={classes!("delta", class)} data-label="Error">{ err }</td>
                                    <td data-label="Measured">{ format::duration(c.step_s) }<br/><span class="muted small">{ format!("{} tokens/s", format::si(tokens)) }</span></td>
                                    <td data-label="Predicted">{ pred }</td>
                                    <td data-label="Setup">{ format!("{} × {}", r.cluster.num_gpus, r.cluster.gpu_name()) }<br/>
                                        <span class="muted small">{ format!("{}, batch {} × {}", r.training.precision.as_str(), r.training.global_batch, r.model.seq_len) }</span></td>
                                    <td data-label="Layout">{ evidence::layout_text(r) }<br/><span class="muted small">{ r.training.framework().as_str() }</span></td>
                                    <td class="small" data-label="Differs in">{ if diffs.is_empty() { "—".to_string() } else { diffs.join(", ") } }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        </div>
    }
}
