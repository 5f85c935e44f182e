//! Published measured runs near the current plan, predicted vs measured step time, and the runs
//! behind the error bands of the key numbers.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::format;
use crate::app::hooks::use_evidence::Evidence;
use crate::engine::estimate;
use crate::evidence::band::Band;
use crate::evidence::{self, Case};
use crate::scenario::Scenario;

pub use crate::app::hooks::use_evidence::EVIDENCE_URL;

/// How many runs are listed.
const SHOWN: usize = 6;

/// Props of [`EvidencePanel`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct EvidencePanelProps {
    /// The current scenario.
    pub scenario: Rc<Scenario>,
    /// The published runs (loaded once by the page, [`crate::app::hooks::use_evidence`]).
    pub evidence: Evidence,
    /// The error band of the plan, whose runs are listed.
    #[prop_or_default]
    pub band: Option<Rc<Band>>,
}

/// A table of the nearest published runs and the list of the runs behind the error band.
#[component]
pub fn EvidencePanel(props: &EvidencePanelProps) -> Html {
    let body = match &props.evidence {
        Evidence::Loading => html! { <p class="muted">{ "Loading published runs…" }</p> },
        Evidence::Failed(e) => {
            html! { <p class="error">{ format!("The published runs could not be loaded ({e}).") }</p> }
        }
        Evidence::Ready(cases) => html! {
            <>
                { evidence_table(cases, &props.scenario) }
                if let Some(b) = &props.band {
                    { band_runs(cases, b) }
                }
            </>
        },
    };
    html! {
        <details class="card tool" id="evidence">
            <summary><h2>{ "How far to trust it: published runs" }</h2></summary>
            <p class="muted">{ "The measured runs nearest to this plan (model size, GPU, GPU count) from paracalc's public validation cases, with the step time paracalc predicts for each." }</p>
            { body }
        </details>
    }
}

/// The runs an error band was measured on (also used by tests through SSR).
pub fn band_runs(cases: &[Case], b: &Band) -> Html {
    html! {
        <div id="band-runs">
            <h3>{ format!("The {} {} behind the error bands", b.runs.len(), b.basis.words()) }</h3>
            <ul class="band-runs small">
                { for b.runs.iter().filter_map(|&i| cases.get(i)).map(|c| html! {
                    <li>{ format!("{} — {} × {} ({})", c.id, c.scenario.cluster.num_gpus, c.scenario.cluster.gpu_name(), c.source) }</li>
                }) }
            </ul>
        </div>
    }
}

/// The table for `cases` nearest to `s` (also used by tests through SSR).
pub fn evidence_table(cases: &[Case], s: &Scenario) -> Html {
    let near = evidence::nearest(cases, s, SHOWN);
    html! {
        <div class="table-wrap">
            <table class="cmp evidence-table">
                <thead><tr>
                    <th scope="col">{ "Run" }</th><th scope="col">{ "GPUs" }</th>
                    <th scope="col">{ "Measured step" }</th><th scope="col">{ "Predicted" }</th><th scope="col">{ "Error" }</th>
                </tr></thead>
                <tbody>
                    { for near.into_iter().map(|c| {
                        let (pred, err, class) = match estimate(&c.scenario) {
                            Ok(e) => {
                                let pct = (e.time.step_s - c.step_s) / c.step_s * 100.0;
                                let class = if pct.abs() <= 10.0 { "better" } else if pct.abs() <= 25.0 { "same" } else { "worse" };
                                (format::duration(e.time.step_s), format!("{}{} %", if pct > 0.0 { "+" } else { "" }, format::sig(pct)), class)
                            }
                            Err(_) => ("–".to_string(), "not valid".to_string(), "worse"),
                        };
                        html! {
                            <tr>
                                <th scope="row"><span class="run-name">{ c.scenario.model.name.clone() }</span><br/><span class="muted small">{ c.source.clone() }</span></th>
                                <td>{ format!("{} × {}", c.scenario.cluster.num_gpus, c.scenario.cluster.gpu_name()) }</td>
                                <td>{ format::duration(c.step_s) }</td>
                                <td>{ pred }</td>
                                <td class={classes!("delta", class)}>{ err }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}
