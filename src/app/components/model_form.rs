//! The model section: architecture, MoE, model presets and the Hugging Face import.

use yew::prelude::*;

use crate::app::components::form::{errors_for, num_field, send, FormProps};
use crate::app::components::num_field::{checkbox, select, Opt};
use crate::app::state::{Action, Num};
use crate::scenario::FfnAct;

/// Architecture of the Transformer.
#[component]
pub fn ModelForm(props: &FormProps) -> Html {
    let s = &props.scenario;
    let m = &s.model;
    let issues = &props.issues;
    let oninput_name = send(props, |e: InputEvent| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        Some(Action::SetName(el.value()))
    });
    let name_errors = errors_for(issues, "model.name");
    let kv_default = format!("{} (= heads)", m.heads);
    let ffn_default = format!("{} (= 4 × hidden)", m.hidden.saturating_mul(4));
    html! {
        <fieldset class="group" id="group-model">
            <legend>{ "Model" }</legend>
            <div class={classes!("field", "wide", (!name_errors.is_empty()).then_some("invalid"))}>
                <label for="model-name">{ "Name" }</label>
                <input id="model-name" type="text" maxlength="200" autocomplete="off"
                    value={m.name.clone()} aria-describedby="model-name-hint" oninput={oninput_name} />
                <p id="model-name-hint" class="hint">
                    if name_errors.is_empty() { { "A label for this plan (shown as text only)." } }
                    else { { for name_errors.iter().map(|e| html! { <span class="error">{ e.clone() }</span> }) } }
                </p>
            </div>
            <div class="grid">
                { num_field(Num::Layers, props, "") }
                { num_field(Num::Hidden, props, "") }
                { num_field(Num::Heads, props, "") }
                { num_field(Num::KvHeads, props, &kv_default) }
                { num_field(Num::FfnHidden, props, &ffn_default) }
                { select("model.ffn_act", "FFN activation", "SwiGLU has 3 weight matrices, GELU 2.",
                    FfnAct::ALL.iter().map(|a| Opt::new(a.as_str(), match a { FfnAct::Gelu => "GELU (2 GEMMs)", FfnAct::Swiglu => "SwiGLU (3 GEMMs)" })).collect(),
                    m.ffn_act.as_str(), &errors_for(issues, "model.ffn_act"),
                    send(props, |v: String| FfnAct::ALL.iter().find(|a| a.as_str() == v).map(|a| Action::SetAct(*a)))) }
                { num_field(Num::Vocab, props, "") }
                { num_field(Num::SeqLen, props, "") }
            </div>
            { checkbox("model.tied_embeddings", "Tied embeddings", "Output layer shares the input embedding's weights.",
                m.tied_embeddings, &errors_for(issues, "model.tied_embeddings"), send(props, |b| Some(Action::SetTied(b)))) }
            { checkbox("model.moe", "Mixture of experts", "Replace each MLP by routed experts.",
                m.moe.is_some(), &errors_for(issues, "model.moe"), send(props, |b| Some(Action::SetMoe(b)))) }
            if m.moe.is_some() {
                <div class="grid">
                    { num_field(Num::Experts, props, "") }
                    { num_field(Num::TopK, props, "") }
                    { num_field(Num::ExpertFfn, props, "") }
                </div>
            }
        </fieldset>
    }
}
