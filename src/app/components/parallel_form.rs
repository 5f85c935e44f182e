//! The parallel layout section, with the `dp = GPUs / (tp·pp·cp)` helper.

use yew::prelude::*;

use crate::app::click::emit_on_click;
use crate::app::components::form::{
    choice_options, errors_for, folded, num_field, num_fields, opt_bool_options, opt_bool_value,
    select_field, send, switch_field, FormProps,
};
use crate::app::components::num_field::Opt;
use crate::app::format::{duration, gib};
use crate::app::state::{fitting_dp, layout_gpus, Action};
use crate::engine::split::{proposals, Goal, SplitProposal};
use crate::scenario::{FieldId, Schedule, Value};

/// The layout fields folded under "More layout settings" (rarely changed from their defaults).
const FOLDED: &[FieldId] = &[
    FieldId::BucketMb,
    FieldId::ShardRanks,
    FieldId::FsdpStyle,
    FieldId::MoeDispatcher,
    FieldId::MoeDispatchFp8,
    FieldId::TpCommOverlap,
    FieldId::DpCommOverlap,
    FieldId::PpCommOverlap,
    FieldId::PpRounds,
    FieldId::LayersPerStage,
];

/// How the model and the batch are split over the GPUs; the rarely used settings folded.
pub fn parallel_form(props: &FormProps) -> Html {
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
            html! {
                <button type="button" id="fix-dp" onclick={emit_on_click(&props.on_action, Action::FixDp)}>
                    { format!("Set dp = {dp}") }
                </button>
            }
        });
        html! {
            <div class="balance bad" id="layout-balance" role="status">
                <p>{ format!("tp {} × pp {} × dp {} × cp {} = {} GPUs, but the cluster has {}.", p.tp, p.pp, p.dp, p.cp, used, gpus) }</p>
                { for fix_dp }
                <button type="button" id="fix-gpus" onclick={emit_on_click(&props.on_action, Action::FixGpus)}>
                    { format!("Use {used} GPUs") }
                </button>
            </div>
        }
    };
    let lps_text = p
        .layers_per_stage
        .as_ref()
        .map(|l| l.iter().map(u64::to_string).collect::<Vec<_>>().join(","))
        .unwrap_or_default();
    let lps = FieldId::LayersPerStage.def();
    let lps_errors = errors_for(issues, lps.id);
    let lps_input = send(props, move |e: InputEvent| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        // Spaces are allowed while typing ("9, 10"); what does not parse is a field error and
        // marks the results stale until fixed.
        let text = el.value().replace(' ', "");
        Some(
            match lps.parse(&text).and_then(|v| lps.check(&v).map(|()| v)) {
                Ok(v) => Action::Set(lps.id, v.into_owned()),
                Err(why) => Action::Draft(
                    lps.id,
                    Some(format!(
                        "Enter whole numbers separated by commas, one per stage (9,10,10,9): {why}"
                    )),
                ),
            },
        )
    });
    let sched = p.schedule.map(Schedule::as_str).unwrap_or("");
    let better = better_split(props);
    html! {
        <fieldset class="group" id="group-parallel">
            <legend>{ "Parallel layout" }</legend>
            { balance }
            <div class="grid">
                { num_fields(&[FieldId::Tp, FieldId::Pp, FieldId::Dp, FieldId::Cp], props) }
                if s.model.moe.is_some() || p.ep > 1 { { num_field(FieldId::Ep, props) } }
                if s.model.moe.is_some() || p.etp.is_some() { { num_field(FieldId::Etp, props) } }
                { num_field(FieldId::Vp, props) }
                { select_field(FieldId::ZeroStage, props,
                    vec![Opt::new("0", "0: replicated"), Opt::new("1", "1: optimizer"), Opt::new("2", "2: + gradients"), Opt::new("3", "3: + weights")],
                    &p.zero_stage.to_string()) }
                { select_field(FieldId::Schedule, props,
                    vec![Opt::new("", "default"), Opt::new("1f1b", "1F1B"), Opt::new("interleaved", "interleaved 1F1B"), Opt::new("gpipe", "GPipe"),
                        Opt::new("zb-h1", "ZB-H1 (zero bubble)"), Opt::new("zb-v", "ZB-V (vp = 2)"), Opt::new("dualpipe", "DualPipe"), Opt::new("dualpipev", "DualPipeV (vp = 2)")],
                    sched) }
            </div>
            { switch_field(FieldId::Sp, props, p.sp) }
            { folded("group-parallel-more", "More layout settings (buckets, sharding, overlap, stage split)", props, FOLDED, &[], html! { <>
            <div class="grid">
                { num_field(FieldId::BucketMb, props) }
                if p.zero_stage > 0 || p.shard_ranks.is_some() { { num_field(FieldId::ShardRanks, props) } }
                if p.zero_stage > 0 || p.fsdp_style.is_some() {
                    { select_field(FieldId::FsdpStyle, props, choice_options(FieldId::FsdpStyle, "framework's"),
                        p.fsdp_style.map_or("", |f| f.as_str())) }
                }
                if s.model.moe.is_some() || p.moe_dispatcher.is_some() {
                    { select_field(FieldId::MoeDispatcher, props, choice_options(FieldId::MoeDispatcher, "all-to-all"),
                        p.moe_dispatcher.map_or("", |d| d.as_str())) }
                }
                if (s.model.moe.is_some() && s.training.precision == crate::scenario::Precision::Fp8) || p.moe_dispatch_fp8.is_some() {
                    { select_field(FieldId::MoeDispatchFp8, props, opt_bool_options("off"), opt_bool_value(p.moe_dispatch_fp8)) }
                }
                { select_field(FieldId::TpCommOverlap, props, opt_bool_options("off"), opt_bool_value(p.tp_comm_overlap)) }
                { select_field(FieldId::DpCommOverlap, props, opt_bool_options("on"), opt_bool_value(p.dp_comm_overlap)) }
                { select_field(FieldId::PpCommOverlap, props, opt_bool_options("framework's"), opt_bool_value(p.pp_comm_overlap)) }
                if p.pp > 1 || p.pp_rounds.is_some() { { num_field(FieldId::PpRounds, props) } }
            </div>
            <div class={classes!("field", "wide", (!lps_errors.is_empty()).then_some("invalid"))}>
                <label for="parallel-layers_per_stage">{ lps.label }</label>
                <div class="input-unit">
                    <input id="parallel-layers_per_stage" type="text" autocomplete="off" spellcheck="false" aria-invalid={(!lps_errors.is_empty()).to_string()}
                        value={lps_text} placeholder="even split" aria-describedby="parallel-layers_per_stage-hint" oninput={lps_input} />
                    <span class="unit" aria-hidden="true">{ lps.unit }</span>
                </div>
                <p id="parallel-layers_per_stage-hint" class="hint">
                    if lps_errors.is_empty() { { lps.help } }
                    else { { for lps_errors.iter().map(|e| html! { <span class="error">{ e.clone() }</span> }) } }
                </p>
            </div>
            </> }) }
            { better }
        </fieldset>
    }
}

/// The split proposals that beat the scenario's own split ([`proposals`]: the fastest, "a
/// better split", and the lightest at no cost in time when it differs), each with what it saves
/// and a button that applies it.
fn better_split(props: &FormProps) -> Html {
    html! {
        <>
            { for proposals(&props.scenario).iter().map(|p| proposal(props, p)) }
        </>
    }
}

/// One proposal: the list (and Megatron's first/last flags), what it gains, and a button that
/// applies it.
fn proposal(props: &FormProps, p: &SplitProposal) -> Html {
    let list = p
        .layers_per_stage
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let mut gains = Vec::new();
    if p.fits && !p.base_fits {
        gains.push("fits in memory".to_string());
    }
    if p.memory_saved_bytes() > 0.0 {
        gains.push(format!("{} less peak memory", gib(p.memory_saved_bytes())));
    } else if p.memory_saved_bytes() < 0.0 {
        gains.push(format!("{} more peak memory", gib(-p.memory_saved_bytes())));
    }
    if p.spread_bytes < p.base_spread_bytes {
        gains.push(format!(
            "stages {} → {} apart",
            gib(p.base_spread_bytes),
            gib(p.spread_bytes)
        ));
    }
    if p.time_saved_s() > 0.0 {
        gains.push(format!("{} faster per step", duration(p.time_saved_s())));
    } else if p.time_saved_s() < 0.0 {
        gains.push(format!("{} slower per step", duration(-p.time_saved_s())));
    }
    let megatron = p
        .megatron_first_last
        .map(|(f, l)| format!(" (Megatron: --decoder-first-pipeline-num-layers {f} --decoder-last-pipeline-num-layers {l})"))
        .unwrap_or_default();
    let (title, id, button_id, button) = match p.goal {
        Goal::Fastest => (
            "A better split",
            "better-split",
            "apply-split",
            "Apply the faster split",
        ),
        Goal::Lightest => (
            "A lighter split, no slower",
            "lighter-split",
            "apply-lighter-split",
            "Apply the lighter split",
        ),
    };
    let apply = Action::Set(
        FieldId::LayersPerStage,
        Value::List(p.layers_per_stage.clone().into()),
    );
    html! {
        <div class="balance ok" {id} role="status">
            <p>{ format!("{title}: {list}{megatron} — {}.", gains.join(", ")) }</p>
            <button type="button" id={button_id}
                onclick={emit_on_click(&props.on_action, apply)}>
                { button }
            </button>
        </div>
    }
}
