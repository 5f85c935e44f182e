//! The training section: batch, precision, recomputation, tokens.

use yew::prelude::*;

use crate::app::click::emit_on_click;
use crate::app::components::form::{
    choice_options, errors_for, folded, num_field, opt_bool_field, select_field, set_field,
    switch_field, FormProps,
};
use crate::app::components::num_field::Opt;
use crate::app::state::{fitting_global_batch, Action};
use crate::scenario::{FieldId, Precision, Recompute};

/// The training fields folded under "More training settings": rarely changed from their
/// defaults.
const FOLDED: &[FieldId] = &[
    FieldId::OptimizerOffload,
    FieldId::ActivationOffload,
    FieldId::Framework,
    FieldId::Fp8Recipe,
    FieldId::Fp8Params,
    FieldId::GradReduceFp32,
    FieldId::OptimizerStates,
    FieldId::MasterWeights,
    FieldId::AttentionKernel,
    FieldId::Eager,
    FieldId::LossKernel,
    FieldId::LossChunks,
    FieldId::SwigluFp8Input,
    FieldId::Dropout,
    FieldId::RecomputeEarlyStop,
    FieldId::MoeProbsInExperts,
];

/// Batch, number format and recomputation; the rest folded.
pub fn training_form(props: &FormProps) -> Html {
    let t = &props.scenario.training;
    let issues = &props.issues;
    let gbs_fix = (!errors_for(issues, FieldId::GlobalBatch).is_empty()
        && fitting_global_batch(&props.scenario) != t.global_batch)
        .then(|| {
            html! {
                <p class="balance bad">
                    <button type="button" id="fix-gbs" onclick={emit_on_click(&props.on_action, Action::FixGlobalBatch)}>
                        { format!("Set global batch = {}", fitting_global_batch(&props.scenario)) }
                    </button>
                    { " (a whole number of micro-batches on every data-parallel rank)" }
                </p>
            }
        });
    html! {
        <fieldset class="group" id="group-training">
            <legend>{ "Training" }</legend>
            <div class="grid">
                { num_field(FieldId::GlobalBatch, props) }
                { num_field(FieldId::MicroBatch, props) }
            </div>
            // One node whether or not the fix shows (an `if`, not a flattened `for`): the
            // siblings keep their places and the batch input is never rebuilt under the cursor.
            if let Some(fix) = gbs_fix {
                { fix }
            }
            <div class="grid">
                { select_field(FieldId::Precision, props,
                    Precision::ALL.iter().map(|p| Opt::new(p.as_str(), match p {
                        Precision::Fp32 => "fp32", Precision::Fp16 => "fp16 mixed", Precision::Bf16 => "bf16 mixed", Precision::Fp8 => "FP8 (TE)", Precision::Nvfp4 => "NVFP4 (TE, Blackwell)" })).collect(),
                    t.precision.as_str()) }
                { select_field(FieldId::Recompute, props,
                    Recompute::ALL.iter().map(|r| Opt::new(r.as_str(), r.as_str())).collect(),
                    t.recompute.as_str()) }
            </div>
            if t.recompute == Recompute::Selective || t.recompute_modules.is_some() {
                { set_field(FieldId::RecomputeModules, props, t.recompute_modules.map_or(0, |m| m.bits())) }
            }
            if t.recompute == Recompute::Selective || t.remat_saved.is_some() {
                { set_field(FieldId::RematSaved, props, t.remat_saved.map_or(0, |m| m.bits())) }
            }
            { folded("group-training-more", "More training settings (offload, framework, number formats, kernels)", props, FOLDED,
                if t.flash_attention { &[] } else { &["Flash attention off"] }, html! { <>
            <div class="grid">
                { num_field(FieldId::OptimizerOffload, props) }
                { num_field(FieldId::ActivationOffload, props) }
                { select_field(FieldId::Optimizer, props, vec![Opt::new("adam", "Adam / AdamW")], "adam") }
                { select_field(FieldId::Framework, props, choice_options(FieldId::Framework, "Megatron-LM"),
                    t.framework.map_or("", |f| f.as_str())) }
                if t.precision == Precision::Fp8 || t.fp8_recipe.is_some() {
                    { select_field(FieldId::Fp8Recipe, props, choice_options(FieldId::Fp8Recipe, "delayed"),
                        t.fp8_recipe.map_or("", |r| r.as_str())) }
                }
                if t.precision == Precision::Fp8 || t.fp8_params.is_some() {
                    { opt_bool_field(FieldId::Fp8Params, props, ["default (off)", "on (FP8 only)", "off (16-bit + FP8)"], t.fp8_params) }
                }
                { opt_bool_field(FieldId::GradReduceFp32, props, ["default (fp32)", "fp32", "16-bit (bf16/fp16)"], t.grad_reduce_in_fp32) }
                { select_field(FieldId::OptimizerStates, props, choice_options(FieldId::OptimizerStates, "fp32"),
                    t.optimizer_states.map_or("", |m| m.as_str())) }
                { select_field(FieldId::MasterWeights, props, choice_options(FieldId::MasterWeights, "stack's"),
                    t.master_weights.map_or("", |m| m.as_str())) }
            </div>
            { switch_field(FieldId::FlashAttention, props, t.flash_attention) }
            <div class="grid">
                { select_field(FieldId::AttentionKernel, props,
                    choice_options(FieldId::AttentionKernel, "framework's"),
                    t.attention_kernel.map_or("", |k| k.as_str())) }
                { opt_bool_field(FieldId::Eager, props, ["framework's", "eager (host per operator)", "compiled / fused"], t.eager) }
                { select_field(FieldId::LossKernel, props, choice_options(FieldId::LossKernel, "framework's"),
                    t.loss_kernel.map_or("", |k| k.as_str())) }
                { num_field(FieldId::LossChunks, props) }
                { opt_bool_field(FieldId::SwigluFp8Input, props, ["default (off)", "on (FP8, 1 B)", "off (16-bit)"], t.swiglu_fp8_input) }
                { opt_bool_field(FieldId::RecomputeEarlyStop, props, ["off (rerun the layer)", "on (skip the last GEMM)", "off"], t.recompute_early_stop) }
                { opt_bool_field(FieldId::Dropout, props, ["recipe's", "on (1-byte masks)", "off (p = 0)"], t.dropout) }
            </div>
            if props.scenario.model.moe.is_some() {
                <div class="grid">
                    { opt_bool_field(FieldId::MoeProbsInExperts, props, ["framework's", "on (keeps nothing)", "off (keeps a row)"], t.moe_probs_in_experts) }
                </div>
            }
            </> }) }
        </fieldset>
    }
}
