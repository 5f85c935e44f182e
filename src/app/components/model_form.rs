//! The model section: architecture, MoE, model presets and the Hugging Face import.

use yew::prelude::*;

use crate::app::components::form::{
    choice_options, errors_for, num_field, num_field_showing, num_fields, opt_bool_field,
    select_field, send, switch_field, FormProps,
};
use crate::app::components::num_field::{checkbox, Opt};
use crate::app::state::Action;
use crate::scenario::fields::MAX_LABEL_BYTES;
use crate::scenario::{FfnAct, FieldId, Value};

/// `text` cut to the longest name the field takes, at a character boundary.
fn clip(text: &str) -> String {
    let mut end = text.len().min(MAX_LABEL_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// Architecture of the Transformer.
pub fn model_form(props: &FormProps) -> Html {
    let s = &props.scenario;
    let m = &s.model;
    let issues = &props.issues;
    let name = FieldId::ModelName.def();
    let oninput_name = send(props, |e: InputEvent| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        Some(Action::Set(
            FieldId::ModelName,
            Value::Text(clip(&el.value()).into()),
        ))
    });
    let name_errors = errors_for(issues, FieldId::ModelName);
    let kv_default = format!("{} (= heads)", m.heads);
    let ffn_default = format!("{} (= 4 × hidden)", m.hidden.saturating_mul(4));
    // With latent attention the MLA widths set the heads, not head_dim (engine::shape).
    let head_dim_default = match m.mla {
        Some(mla) => format!(
            "MLA: {} q/k, {} v",
            mla.qk_nope_head_dim + mla.qk_rope_head_dim,
            mla.v_head_dim
        ),
        None => format!("{} (= hidden / heads)", m.hidden / m.heads.max(1)),
    };
    html! {
        <fieldset class="group" id="group-model">
            <legend>{ "Model" }</legend>
            <div class={classes!("field", "wide", (!name_errors.is_empty()).then_some("invalid"))}>
                <label for="model-name">{ name.label }</label>
                <input id="model-name" type="text" maxlength="200" autocomplete="off"
                    value={m.name.clone()} aria-describedby="model-name-hint" oninput={oninput_name} />
                <p id="model-name-hint" class="hint">
                    if name_errors.is_empty() { { name.help } }
                    else { { for name_errors.iter().map(|e| html! { <span class="error">{ e.clone() }</span> }) } }
                </p>
            </div>
            <div class="grid">
                { num_fields(&[FieldId::Layers, FieldId::Hidden, FieldId::Heads], props) }
                { num_field_showing(FieldId::KvHeads, props, &kv_default) }
                { num_field_showing(FieldId::FfnHidden, props, &ffn_default) }
                { select_field(FieldId::FfnAct, props,
                    FfnAct::ALL.iter().map(|a| Opt::new(a.as_str(), match a { FfnAct::Gelu => "GELU (2 GEMMs)", FfnAct::Swiglu => "SwiGLU (3 GEMMs)" })).collect(),
                    m.ffn_act.as_str()) }
                { num_field(FieldId::Vocab, props) }
                { num_field(FieldId::SeqLen, props) }
                { num_field_showing(FieldId::HeadDim, props, &head_dim_default) }
                { num_field(FieldId::MtpLayers, props) }
            </div>
            { switch_field(FieldId::TiedEmbeddings, props, m.tied_embeddings) }
            { opt_bool_field(FieldId::EmbeddingNorm, props, ["default (none)", "on (BLOOM)", "off"], m.embedding_norm) }
            { checkbox("model.moe", "Mixture of experts", "Replace each MLP by routed experts.",
                m.moe.is_some(), &errors_for(issues, "model.moe"), send(props, |b| Some(Action::SetMoe(b)))) }
            if m.moe.is_some() {
                <div class="grid">
                    { num_fields(&[FieldId::Experts, FieldId::TopK, FieldId::ExpertFfn,
                        FieldId::SharedExperts, FieldId::SharedExpertFfn, FieldId::DenseLayers,
                        FieldId::MoeEvery, FieldId::Imbalance, FieldId::ExpertGroups,
                        FieldId::GroupLimit], props) }
                    { select_field(FieldId::MoeRouting, props, choice_options(FieldId::MoeRouting, "learned"),
                        m.moe.and_then(|x| x.routing).map_or("", |r| r.as_str())) }
                </div>
            }
            { checkbox("model.mla", "Latent attention (MLA)", "DeepSeek-V2/V3 multi-head latent attention; switching it on starts from DeepSeek-V3's ranks.",
                m.mla.is_some(), &errors_for(issues, "model.mla"),
                send(props, |b: bool| Some(Action::Set(FieldId::MlaKvRank, Value::Count(if b { 512 } else { 0 }))))) }
            if m.mla.is_some() {
                <div class="grid">
                    { num_fields(&[FieldId::MlaKvRank, FieldId::MlaQRank, FieldId::MlaNopeDim,
                        FieldId::MlaRopeDim, FieldId::MlaVDim], props) }
                </div>
            }
        </fieldset>
    }
}
