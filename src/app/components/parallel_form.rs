//! The parallel layout section, with the `dp = GPUs / (tp·pp·cp)` helper.

use yew::prelude::*;

use crate::app::components::form::{
    errors_for, num_field, opt_bool_of, opt_bool_value, send, FormProps,
};
use crate::app::components::num_field::{checkbox, select, Opt};
use crate::app::state::{
    fitting_dp, layout_gpus, stage_list_error, stage_list_text, Action, Num, LAYERS_PER_STAGE,
};
use crate::scenario::Schedule;

/// How the model and the batch are split over the GPUs.
#[component]
pub fn ParallelForm(props: &FormProps) -> Html {
    let s = &props.scenario;
    let p = &s.parallel;
    let issues = &props.issues;
    let used = layout_gpus(s);
    let gpus = s.cluster.num_gpus;
    let balance = if used == gpus {
        html! {
            <p class="balance ok" id="layout-balance">
                { format!("tp {} × pp {} × dp {} × cp {} = {} GPUs ✓", p.tp, p.pp, p.dp, p.cp, used) }
            </p>
        }
    } else {
        let fix_dp = fitting_dp(s).map(|dp| {
            let on_action = props.on_action.clone();
            html! {
                <button type="button" id="fix-dp" onclick={Callback::from(move |_| on_action.emit(Action::FixDp))}>
                    { format!("Set dp = {dp}") }
                </button>
            }
        });
        let on_action = props.on_action.clone();
        html! {
            <div class="balance bad" id="layout-balance" role="status">
                <p>{ format!("tp {} × pp {} × dp {} × cp {} = {} GPUs, but the cluster has {}.", p.tp, p.pp, p.dp, p.cp, used, gpus) }</p>
                { for fix_dp }
                <button type="button" id="fix-gpus" onclick={Callback::from(move |_| on_action.emit(Action::FixGpus))}>
                    { format!("Use {used} GPUs") }
                </button>
            </div>
        }
    };
    let lps_text = p
        .layers_per_stage
        .as_ref()
        .map(|l| stage_list_text(l))
        .unwrap_or_default();
    let lps_errors = errors_for(issues, "parallel.layers_per_stage");
    let lps_input = send(props, |e: InputEvent| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        let v = el.value();
        Some(match stage_list_error(&v) {
            None => Action::SetLayersPerStage(v),
            Some(why) => Action::Draft(LAYERS_PER_STAGE, "Layers per stage", Some(why)),
        })
    });
    let sched = p.schedule.map(Schedule::as_str).unwrap_or("");
    html! {
        <fieldset class="group" id="group-parallel">
            <legend>{ "Parallel layout" }</legend>
            { balance }
            <div class="grid">
                { num_field(Num::Tp, props, "") }
                { num_field(Num::Pp, props, "") }
                { num_field(Num::Dp, props, "") }
                { num_field(Num::Cp, props, "") }
                if s.model.moe.is_some() || p.ep > 1 { { num_field(Num::Ep, props, "") } }
                { num_field(Num::Vp, props, "") }
                { select("parallel.zero_stage", "ZeRO stage", "Shard over dp: optimizer states (1, Megatron distributed optimizer), + gradients (2), + weights (3, FSDP).",
                    vec![Opt::new("0", "0: replicated"), Opt::new("1", "1: optimizer"), Opt::new("2", "2: + gradients"), Opt::new("3", "3: + weights")],
                    &p.zero_stage.to_string(), &errors_for(issues, "parallel.zero_stage"),
                    send(props, |v: String| v.parse::<u8>().ok().map(Action::SetZero))) }
                { select("parallel.schedule", "Pipeline schedule", "Default: interleaved when vp > 1, else 1F1B.",
                    vec![Opt::new("", "default"), Opt::new("1f1b", "1F1B"), Opt::new("interleaved", "interleaved 1F1B"), Opt::new("gpipe", "GPipe")],
                    sched, &errors_for(issues, "parallel.schedule"),
                    send(props, |v: String| Some(Action::SetSchedule(Schedule::ALL.iter().copied().find(|x| x.as_str() == v))))) }
                { num_field(Num::BucketMb, props, "framework default") }
                { select("parallel.tp_comm_overlap", "TP comm overlap", "Overlap TP collectives with GEMMs (userbuffers); default off.",
                    vec![Opt::new("", "default (off)"), Opt::new("on", "on"), Opt::new("off", "off")],
                    opt_bool_value(p.tp_comm_overlap), &errors_for(issues, "parallel.tp_comm_overlap"),
                    send(props, |v: String| Some(Action::SetTpOverlap(opt_bool_of(&v))))) }
                { select("parallel.dp_comm_overlap", "DP comm overlap", "Overlap gradient reduction with backward; default on.",
                    vec![Opt::new("", "default (on)"), Opt::new("on", "on"), Opt::new("off", "off")],
                    opt_bool_value(p.dp_comm_overlap), &errors_for(issues, "parallel.dp_comm_overlap"),
                    send(props, |v: String| Some(Action::SetDpOverlap(opt_bool_of(&v))))) }
            </div>
            { checkbox("parallel.sp", "Sequence parallel", "Megatron SP: split LayerNorm/dropout activations over tp.",
                p.sp, &errors_for(issues, "parallel.sp"), send(props, |b| Some(Action::SetSp(b)))) }
            <div class={classes!("field", "wide", (!lps_errors.is_empty()).then_some("invalid"))}>
                <label for="parallel-layers_per_stage">{ "Layers per stage" }</label>
                <div class="input-unit">
                    <input id="parallel-layers_per_stage" type="text" aria-invalid={(!lps_errors.is_empty()).to_string()} autocomplete="off" spellcheck="false"
                        value={lps_text} placeholder="even split" aria-describedby="parallel-layers_per_stage-hint" oninput={lps_input} />
                    <span class="unit" aria-hidden="true">{ "layers" }</span>
                </div>
                <p id="parallel-layers_per_stage-hint" class="hint">
                    if lps_errors.is_empty() { { "Optional uneven split, one number per stage: 9,10,10,9." } }
                    else { { for lps_errors.iter().map(|e| html! { <span class="error">{ e.clone() }</span> }) } }
                </p>
            </div>
        </fieldset>
    }
}
