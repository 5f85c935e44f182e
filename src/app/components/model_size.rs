//! The model's parameter count at a glance: total and active per token, and where they sit
//! (embedding and output, attention, MLP, experts, norms, MTP modules), from the engine's own
//! counts ([`crate::engine::memory::params`]), so an import or a preset can be checked against
//! its model card.

use yew::prelude::*;

use crate::engine::layers::model_mix;
use crate::engine::memory::params;
use crate::scenario::Model;

/// One part of the parameter count.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamPart {
    /// What it is ("attention").
    pub name: &'static str,
    /// Its parameters, all layers together.
    pub params: f64,
}

/// The model's parameters by part; the parts add up to [`params::total_params`] (tested).
/// Parts that are zero for this model (experts of a dense model) are left out.
pub fn param_parts(m: &Model) -> Vec<ParamPart> {
    let mix = model_mix(m);
    let layers = (mix.dense + mix.moe) as f64;
    let moe = mix.moe as f64;
    let parts = [
        (
            "embedding and output",
            params::embedding_params(m) + params::output_params(m),
        ),
        ("attention", layers * params::attention_params(m)),
        ("dense MLP", mix.dense as f64 * params::mlp_params(m)),
        ("routed experts", moe * params::expert_params(m)),
        (
            "shared experts and router",
            moe * (params::shared_expert_params(m) + params::router_params(m)),
        ),
        (
            "norms",
            layers * params::layer_norm_params(m) + params::final_norm_params(m),
        ),
        (
            "MTP modules",
            m.mtp_layers() as f64 * params::mtp_module_params(m),
        ),
    ];
    parts
        .into_iter()
        .filter(|(_, p)| *p > 0.0)
        .map(|(name, params)| ParamPart { name, params })
        .collect()
}

/// A parameter count in billions (or millions below one billion): `8.03 B`, `671 B`, `124 M`.
pub fn count(p: f64) -> String {
    if p >= 1e9 {
        format!("{} B", crate::app::format::sig(p / 1e9))
    } else {
        format!("{} M", crate::app::format::sig(p / 1e6))
    }
}

/// "8.03 B parameters" (dense) or "671 B parameters, 37.6 B active per token" (MoE), with the
/// parts under it.
pub fn model_size(m: &Model) -> Html {
    let total = params::total_params(m);
    let active = params::total_active_params(m);
    let mtp = m.mtp_layers() as f64 * params::mtp_module_params(m);
    let head = if m.moe.is_some() {
        format!(
            "{} parameters, {} active per token",
            count(total),
            count(active)
        )
    } else {
        format!("{} parameters (all active)", count(total))
    };
    let parts = param_parts(m);
    html! {
        <p class="model-size small" id="model-params"
            title="Active per token counts the input embedding and output layer, and the router's top-k routed experts only.">
            <strong id="model-params-total">{ head }</strong>
            if mtp > 0.0 {
                <span class="muted">{ format!(" ({} without MTP)", count(total - mtp)) }</span>
            }
            <span class="muted" id="model-params-parts">
                { ": " }{ parts.iter().map(|p| format!("{} {}", p.name, count(p.params))).collect::<Vec<_>>().join(" · ") }
            </span>
        </p>
    }
}
