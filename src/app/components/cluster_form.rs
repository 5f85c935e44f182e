//! The cluster section: GPU preset or custom numbers, node size, links, price, overheads.

use yew::prelude::*;

use crate::app::components::form::{
    choice_options, errors_for, num_field, num_field_showing, num_fields, select_field, send,
    FormProps,
};
use crate::app::components::num_field::{select, Opt};
use crate::app::components::source_note::{SourceNote, Whose};
use crate::app::state::Action;
use crate::presets::NETWORK_PRESETS;
use crate::scenario::{gpu_preset, FieldId, GpuChoice, GPU_PRESETS};
use crate::text::num::Plain;

fn opt_num(v: Option<f64>) -> String {
    v.map_or_else(|| "none".to_string(), |x| Plain(x).to_string())
}

/// Where a preset GPU's figures come from (its source and notes), folded and fetched when
/// unfolded; nothing for a custom GPU, whose figures are the user's.
fn gpu_source(gpu: &GpuChoice) -> Html {
    let GpuChoice::Preset(id) = gpu else {
        return html! {};
    };
    let Some(p) = gpu_preset(id) else {
        return html! {};
    };
    html! {
        <SourceNote id="gpu-source" class="source" summary="Where these GPU figures come from"
            whose={Whose::Gpu(p.id.into())} />
    }
}

/// The GPU type: a preset or custom numbers (in the plan bar, with the GPU count).
pub fn gpu_select(props: &FormProps) -> Html {
    let s = &props.scenario;
    let c = &s.cluster;
    let gpu_value = match &c.gpu {
        GpuChoice::Preset(id) => id.to_ascii_lowercase(),
        GpuChoice::Custom(_) => "custom".to_string(),
    };
    let mut gpu_options: Vec<Opt> = GPU_PRESETS.iter().map(|g| Opt::new(g.id, g.name)).collect();
    if let GpuChoice::Preset(id) = &c.gpu {
        if !GPU_PRESETS.iter().any(|g| g.id.eq_ignore_ascii_case(id)) {
            gpu_options.insert(
                0,
                Opt::new(id.to_ascii_lowercase(), format!("unknown: {id}")),
            );
        }
    }
    gpu_options.push(Opt::new("custom", "Custom numbers…"));
    let gpu_help = s
        .gpu()
        .map(|g| {
            format!(
                "{} GiB, {} GB/s HBM, bf16 {}.",
                Plain(g.capacity_gib()),
                Plain(g.hbm_gbps),
                g.peak_tflops
                    .bf16
                    .map_or("none".into(), |x| format!("{} TFLOP/s", Plain(x)))
            )
        })
        .unwrap_or_else(|| "Pick a GPU.".into());
    select(
        "cluster.gpu",
        FieldId::Gpu.def().label,
        &gpu_help,
        gpu_options,
        &gpu_value,
        &errors_for(&props.issues, FieldId::Gpu),
        send(props, |v: String| Some(Action::SetGpu(v))),
    )
}

/// Nodes, links, price, custom GPU figures and framework overheads (the GPU type and count
/// are in the plan bar, [`gpu_select`]).
pub fn cluster_form(props: &FormProps) -> Html {
    let s = &props.scenario;
    let c = &s.cluster;
    let issues = &props.issues;
    let custom = matches!(c.gpu, GpuChoice::Custom(_));
    let spec = s.gpu();
    let intra_default = spec
        .map(|g| format!("GPU: {}", opt_num(g.nvlink_gbps)))
        .unwrap_or_default();
    let inter_default = spec
        .map(|g| format!("GPU: {}", opt_num(g.nic_gbps)))
        .unwrap_or_default();
    let mut net_options = vec![Opt::new("", "choose to apply…")];
    net_options.extend(NETWORK_PRESETS.iter().map(|n| Opt::new(n.id, n.name)));
    html! {
        <fieldset class="group" id="group-cluster">
            <legend>{ "Cluster" }</legend>
            <div class="grid">
                { gpu_source(&c.gpu) }
                { select("cluster.network", "Network preset", "Sets GPUs per node and both link bandwidths.", net_options, "", &[],
                    send(props, |v: String| (!v.is_empty()).then_some(Action::ApplyNetwork(v)))) }
                { num_field(FieldId::GpusPerNode, props) }
                { num_field_showing(FieldId::IntraGbps, props, &intra_default) }
                { num_field_showing(FieldId::InterGbps, props, &inter_default) }
                { num_field(FieldId::Price, props) }
            </div>
            if custom {
                <fieldset class="subgroup" id="group-custom-gpu">
                    <legend>{ "Custom GPU" }</legend>
                    <div class="grid">
                        { num_fields(&[FieldId::GpuHbm, FieldId::GpuUsable, FieldId::GpuMemBw,
                            FieldId::GpuBf16, FieldId::GpuFp16, FieldId::GpuFp8,
                            FieldId::GpuFp4, FieldId::GpuTf32, FieldId::GpuFp32,
                            FieldId::GpuNvlink, FieldId::GpuDomain, FieldId::GpuNic,
                            FieldId::GpuHostLink], props) }
                    </div>
                </fieldset>
            }
            <details class="subgroup" id="group-overhead" open={issues.iter().any(|i| i.field.starts_with("overhead")) || !s.overhead.is_default()}>
                <summary>{ "Framework overhead" }</summary>
                <div class="grid">
                    { num_fields(&[FieldId::CtxGib, FieldId::CommBufGib, FieldId::ReservePct], props) }
                </div>
            </details>
            <details class="subgroup" id="group-calibration" open={issues.iter().any(|i| i.field.starts_with("calibration")) || !s.calibration.is_default()}>
                <summary>{ "Calibration (fitted from a measured run)" }</summary>
                <div class="grid">
                    { num_fields(&[FieldId::CalCompute, FieldId::CalAttention, FieldId::CalNetwork,
                        FieldId::CalMemory], props) }
                    { select_field(FieldId::CalPrecision, props, choice_options(FieldId::CalPrecision, "every plan"),
                        s.calibration.precision.map_or("", |p| p.as_str())) }
                </div>
            </details>
        </fieldset>
    }
}
