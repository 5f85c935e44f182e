//! The training section: batch, precision, recomputation, tokens.

use yew::prelude::*;

use crate::app::components::form::{
    errors_for, num_field, opt_bool_of, opt_bool_value, send, FormProps,
};
use crate::app::components::num_field::{checkbox, select, Opt};
use crate::app::state::{fitting_global_batch, Action, Num};
use crate::scenario::{Precision, Recompute};

/// Batch, number format and recomputation.
#[component]
pub fn TrainingForm(props: &FormProps) -> Html {
    let t = &props.scenario.training;
    let issues = &props.issues;
    let gbs_fix = (!errors_for(issues, "training.global_batch").is_empty()
        && fitting_global_batch(&props.scenario) != t.global_batch)
        .then(|| {
            let on_action = props.on_action.clone();
            html! {
                <p class="balance bad">
                    <button type="button" id="fix-gbs" onclick={Callback::from(move |_| on_action.emit(Action::FixGlobalBatch))}>
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
                { num_field(Num::GlobalBatch, props, "") }
                { num_field(Num::MicroBatch, props, "") }
            </div>
            { for gbs_fix }
            <div class="grid">
                { select("training.precision", "Precision", "Number format of GEMMs (mixed precision keeps fp32 master weights).",
                    Precision::ALL.iter().map(|p| Opt::new(p.as_str(), match p {
                        Precision::Fp32 => "fp32", Precision::Fp16 => "fp16 mixed", Precision::Bf16 => "bf16 mixed", Precision::Fp8 => "FP8 (TE)" })).collect(),
                    t.precision.as_str(), &errors_for(issues, "training.precision"),
                    send(props, |v: String| Precision::ALL.iter().find(|p| p.as_str() == v).map(|p| Action::SetPrecision(*p)))) }
                { select("training.recompute", "Recompute", "Recompute activations in backward: selective = attention core only, full = whole layers.",
                    Recompute::ALL.iter().map(|r| Opt::new(r.as_str(), match r {
                        Recompute::None => "none", Recompute::Selective => "selective", Recompute::Full => "full" })).collect(),
                    t.recompute.as_str(), &errors_for(issues, "training.recompute"),
                    send(props, |v: String| Recompute::ALL.iter().find(|r| r.as_str() == v).map(|r| Action::SetRecompute(*r)))) }
                { num_field(Num::TrainTokens, props, "not set") }
                { num_field(Num::OptOffload, props, "none") }
                { num_field(Num::ActOffload, props, "none") }
                { select("training.optimizer", "Optimizer", "Adam(W): two fp32 moments per parameter.",
                    vec![Opt::new("adam", "Adam / AdamW")], "adam", &errors_for(issues, "training.optimizer"), Callback::noop()) }
                { select("training.grad_reduce_in_fp32", "Gradient buffer", "Megatron keeps fp32 main gradients (4 B/param); NeMo's performance recipes keep them in bf16 (2 B).",
                    vec![Opt::new("", "default (fp32)"), Opt::new("on", "fp32"), Opt::new("off", "16-bit (bf16/fp16)")],
                    opt_bool_value(t.grad_reduce_in_fp32), &errors_for(issues, "training.grad_reduce_in_fp32"),
                    send(props, |v: String| Some(Action::SetGradFp32(opt_bool_of(&v))))) }
            </div>
            { checkbox("training.flash_attention", "FlashAttention", "Fused attention that never stores the s × s scores.",
                t.flash_attention, &errors_for(issues, "training.flash_attention"), send(props, |b| Some(Action::SetFlash(b)))) }
        </fieldset>
    }
}
