//! A/B comparison: the pinned scenario A next to the current B, key numbers with deltas and the
//! inputs that differ.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::components::summary::{key_numbers, Better};
use crate::app::format;
use crate::app::state::Action;
use crate::engine::Estimate;
use crate::scenario::json::text::Node;
use crate::scenario::{Scenario, ScenarioError};

/// Every leaf of a scenario's JSON as `(path, value)`.
fn flatten(prefix: &str, v: &Node, out: &mut Vec<(String, String)>) {
    match v {
        Node::Object(members) => {
            for (k, x) in members {
                let p = if prefix.is_empty() {
                    k.to_string()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&p, x, out);
            }
        }
        Node::Str(s) => out.push((prefix.to_string(), s.to_string())),
        Node::Null => out.push((prefix.to_string(), "–".into())),
        other => out.push((prefix.to_string(), other.to_compact())),
    }
}

/// The inputs that differ between `a` and `b`: `(field path, value in A, value in B)`, in field
/// order; a field set in one and defaulted in the other shows `–` for the default.
pub fn differences(a: &Scenario, b: &Scenario) -> Vec<(String, String, String)> {
    let (mut fa, mut fb) = (Vec::new(), Vec::new());
    flatten("", &a.to_json_node(), &mut fa);
    flatten("", &b.to_json_node(), &mut fb);
    let mut out = Vec::new();
    for (path, va) in &fa {
        let vb = fb
            .iter()
            .find(|(p, _)| p == path)
            .map_or("–", |(_, v)| v.as_str());
        if va != vb {
            out.push((path.clone(), va.clone(), vb.to_string()));
        }
    }
    for (path, vb) in &fb {
        if !fa.iter().any(|(p, _)| p == path) {
            out.push((path.clone(), "–".into(), vb.clone()));
        }
    }
    out
}

/// The form's label for a scenario field path (the field table's, e.g. "Data parallel (dp)" for
/// `parallel.dp`); a path outside the table keeps its path.
pub fn field_label(path: &str) -> String {
    match crate::scenario::FieldId::from_path(path) {
        Some(id) => id.def().label.to_string(),
        None if path.starts_with("parallel.layers_per_stage") => {
            crate::scenario::FieldId::LayersPerStage
                .def()
                .label
                .to_string()
        }
        None => path.to_string(),
    }
}

/// Props of [`Compare`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct CompareProps {
    /// A: the pinned scenario and its estimate.
    pub a: Rc<(Scenario, Result<Estimate, ScenarioError>)>,
    /// B: the current scenario.
    pub b: Rc<Scenario>,
    /// B's estimate.
    pub b_estimate: Rc<Result<Estimate, ScenarioError>>,
    /// Dispatches unpin / swap.
    pub on_action: Callback<Action>,
}

/// A and B side by side.
#[component]
pub fn Compare(props: &CompareProps) -> Html {
    let (sa, ea) = &*props.a;
    let sb = &*props.b;
    let diffs = differences(sa, sb);
    let rows = match (ea, &*props.b_estimate) {
        (Ok(ea), Ok(eb)) => {
            let ka = key_numbers(ea, sa);
            let kb = key_numbers(eb, sb);
            let mut rows: Vec<Html> = ka
                .iter()
                .filter_map(|a| kb.iter().find(|b| b.id == a.id).map(|b| (a, b)))
                .map(|(a, b)| {
                    let d = format::delta(a.value, b.value);
                    let rel = if a.value != 0.0 {
                        (b.value - a.value) / a.value
                    } else {
                        0.0
                    };
                    let class = if rel.abs() < 0.0005 {
                        "same"
                    } else if (rel > 0.0) == (a.better == Better::Higher) {
                        "better"
                    } else {
                        "worse"
                    };
                    html! {
                        <tr id={format!("cmp-{}", a.id)}>
                            <th scope="row">{ a.label }</th>
                            <td>{ a.text.clone() }</td>
                            <td>{ b.text.clone() }</td>
                            <td class={classes!("delta", class)}>{ d }</td>
                        </tr>
                    }
                })
                .collect();
            let fit = |e: &Estimate| if e.memory.fits { "fits" } else { "OOM" };
            rows.push(html! {
                <tr id="cmp-fits">
                    <th scope="row">{ "Memory" }</th>
                    <td class={classes!((!ea.memory.fits).then_some("oom-text"))}>{ fit(ea) }</td>
                    <td class={classes!((!eb.memory.fits).then_some("oom-text"))}>{ fit(eb) }</td>
                    <td></td>
                </tr>
            });
            rows
        }
        (ra, rb) => vec![html! {
            <tr><td colspan="4" class="error">{ format!("{} has invalid inputs; no numbers to compare.",
                match (ra.is_err(), rb.is_err()) { (true, true) => "A and B each", (true, false) => "A", _ => "B" }) }</td></tr>
        }],
    };
    let unpin = {
        let on_action = props.on_action.clone();
        Callback::from(move |_| on_action.emit(Action::Unpin))
    };
    let swap = {
        let on_action = props.on_action.clone();
        Callback::from(move |_| on_action.emit(Action::Swap))
    };
    html! {
        <section class="card compare" id="compare" aria-labelledby="compare-title">
            <div class="card-head">
                <h2 id="compare-title">{ "A / B comparison" }</h2>
                <div class="buttons">
                    <button type="button" id="swap" onclick={swap}>{ "Swap A ↔ B" }</button>
                    <button type="button" id="unpin" onclick={unpin}>{ "Unpin A" }</button>
                </div>
            </div>
            <div class="table-wrap">
                <table class="cmp">
                    <thead><tr><th></th><th scope="col">{ "A (pinned)" }</th><th scope="col">{ "B (current)" }</th><th scope="col">{ "B vs A" }</th></tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
            if diffs.is_empty() {
                <p class="muted">{ "A and B have the same inputs — change something to compare." }</p>
            } else {
                <h3>{ format!("{} input{} differ{}", diffs.len(), if diffs.len() == 1 { "" } else { "s" }, if diffs.len() == 1 { "s" } else { "" }) }</h3>
                <div class="table-wrap">
                    <table class="cmp diffs" id="compare-diffs">
                        <thead><tr><th scope="col">{ "Field" }</th><th scope="col">{ "A" }</th><th scope="col">{ "B" }</th></tr></thead>
                        <tbody>
                            { for diffs.into_iter().map(|(p, a, b)| html! {
                                <tr class="changed"><th scope="row">{ field_label(&p) }<br/><code class="muted small">{ p }</code></th><td>{ a }</td><td>{ b }</td></tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </section>
    }
}
