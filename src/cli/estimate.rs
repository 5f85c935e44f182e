//! `paracalc estimate FILE.json [--json]`: memory per pipeline stage, step time and throughput.
//!
//! The readable form is a per-stage memory table (GiB) followed by the step-time breakdown and the
//! rates, then how far to trust it (the error bands of the published runs most like the plan,
//! [`super::trust`]); `--json` prints the whole [`Estimate`](crate::engine::Estimate) (the
//! `DESIGN.md` shape: bytes and seconds as plain numbers, stages in order) with those bands under
//! `trust`.

use super::args::{load_scenario, Args};
use super::error::CliError;
use crate::engine::{estimate, Estimate};
use crate::scenario::Scenario;
use std::fmt::Write;

use crate::engine::memory::overhead::GIB;

/// Runs `paracalc estimate`.
pub fn run(args: &[String]) -> Result<String, CliError> {
    let a = Args::parse(args, &["--json"], &[])?;
    let path = a.one("scenario file (FILE.json)")?;
    let s = load_scenario(path)?;
    let mut e = estimate(&s).map_err(|err| CliError::input(format!("{path}: {err}")))?;
    let cases = super::trust::cases();
    // The memory verdict with the band of the published runs most like the plan.
    e.memory.fit = e
        .memory
        .fit_with(crate::evidence::band::memory_verdict_frac(&cases, &s));
    if a.has("--json") {
        let mut v = serde_json::to_value(&e)
            .map_err(|err| CliError::internal(format!("cannot write JSON: {err}")))?;
        if let Some(o) = v.as_object_mut() {
            o.insert("trust".into(), super::trust::to_json(&cases, &s, &e));
        }
        serde_json::to_string_pretty(&v)
            .map(|mut t| {
                t.push('\n');
                t
            })
            .map_err(|err| CliError::internal(format!("cannot write JSON: {err}")))
    } else {
        let mut o = render(&s, &e);
        let trust = super::trust::section(&cases, &s, &e);
        if !trust.is_empty() {
            o.push('\n');
            o.push_str(&trust);
        }
        Ok(o)
    }
}

/// The verdict in capitals when it is not "fits", with its band and flip.
fn verdict_text(fit: &crate::engine::memory::verdict::Fit) -> String {
    let t = fit.text();
    match fit.verdict {
        crate::engine::memory::verdict::Verdict::Fits => t,
        v => t.replacen(v.words(), &v.words().to_uppercase(), 1),
    }
}

fn gib(bytes: f64) -> f64 {
    bytes / GIB
}

/// The readable report.
pub fn render(s: &Scenario, e: &Estimate) -> String {
    let mut o = String::new();
    write_plan(&mut o, s);
    write_memory(&mut o, s, e);
    write_time(&mut o, s, e);
    write_throughput(&mut o, e);
    write_verdict(&mut o, s, e);
    o
}

/// The model and the plan: shape, layout, precision, calibration.
fn write_plan(o: &mut String, s: &Scenario) {
    let m = &s.model;
    let p = &s.parallel;
    let name = if m.name.is_empty() { "model" } else { &m.name };
    let _ = writeln!(
        o,
        "{name}: {} layers, hidden {}, {} heads ({} KV), vocab {}, seq {}",
        m.layers,
        m.hidden,
        m.heads,
        m.kv_heads(),
        m.vocab,
        m.seq_len
    );
    let _ = writeln!(
        o,
        "{} x {} | tp {} pp {} dp {} cp {} ep {} vp {} | sp {} | ZeRO {} | {} | {} | recompute {} | flash {}",
        s.cluster.num_gpus,
        s.cluster.gpu_name(),
        p.tp,
        p.pp,
        p.dp,
        p.cp,
        p.ep,
        p.vp,
        if p.sp { "on" } else { "off" },
        p.zero_stage,
        p.schedule().as_str(),
        s.training.precision.as_str(),
        s.recompute_label(s.training.recompute),
        if s.training.flash_attention { "on" } else { "off" },
    );
    if !s.calibration.is_default() {
        let _ = writeln!(
            o,
            "calibrated to a measured run: {}",
            s.calibration.describe()
        );
    }
    let _ = writeln!(o);
}

/// Memory per GPU by pipeline stage, the other buffers, host offload, better splits, the peak.
fn write_memory(o: &mut String, s: &Scenario, e: &Estimate) {
    let mem = &e.memory;
    let _ = writeln!(o, "Memory per GPU (GiB) by pipeline stage");
    let _ = writeln!(
        o,
        "{:>5} {:>6} {:>9} {:>8} {:>8} {:>9} {:>11} {:>7} {:>8} {:>8} {:>9}",
        "stage",
        "layers",
        "params(M)",
        "weights",
        "grads",
        "optimizer",
        "activations",
        "other",
        "total",
        "in-flight",
        "headroom"
    );
    for st in &mem.stages() {
        let _ = writeln!(
            o,
            "{:>5} {:>6} {:>9.1} {:>8.2} {:>8.2} {:>9.2} {:>11.2} {:>7.2} {:>8.2} {:>8.2} {:>9.2}{}",
            st.stage,
            st.layers,
            st.params / 1e6,
            gib(st.weights_bytes),
            gib(st.gradients_bytes),
            gib(st.optimizer_bytes),
            gib(st.activations_bytes),
            gib(st.other_bytes),
            gib(st.total_bytes),
            st.in_flight_micro_batches,
            gib(mem.capacity_bytes - st.total_bytes),
            if st.total_bytes > mem.capacity_bytes {
                "  OOM"
            } else {
                ""
            }
        );
    }
    if let Some(st) = &mem.stage(mem.peak_stage) {
        let _ = writeln!(
            o,
            "other on stage {} (GiB): CUDA context {:.2}, NCCL buffers {:.2}, allocator reserve {:.2}, transient buffers {:.2}",
            st.stage,
            gib(st.cuda_context_bytes),
            gib(st.comm_buffers_bytes),
            gib(st.allocator_reserve_bytes),
            gib(st.other_buffers_bytes)
        );
    }
    let host: f64 = mem
        .stages()
        .iter()
        .map(|st| st.host_bytes)
        .fold(0.0, f64::max);
    if host > 0.0 {
        let _ = writeln!(
            o,
            "offloaded to host memory: up to {:.2} GiB per GPU (optimizer states and activations)",
            gib(host)
        );
    }
    for split in crate::engine::split::proposals(s) {
        let list: Vec<String> = split.layers_per_stage.iter().map(u64::to_string).collect();
        let _ = writeln!(
            o,
            "{}: layers_per_stage [{}]{}: peak {:.2} GiB ({:+.2}), stages {:.2} GiB apart ({:+.2}), step {:.4} s ({:+.4}){}",
            match split.goal {
                crate::engine::split::Goal::Fastest => "a better split",
                crate::engine::split::Goal::Lightest => "a lighter split, no slower",
            },
            list.join(", "),
            split
                .megatron_first_last
                .map(|(f, l)| format!(" (Megatron first/last {f}/{l})"))
                .unwrap_or_default(),
            gib(split.peak_bytes),
            -gib(split.memory_saved_bytes()),
            gib(split.spread_bytes),
            gib(split.spread_bytes - split.base_spread_bytes),
            split.step_s,
            -split.time_saved_s(),
            if split.fits && !split.base_fits { ", fits" } else { "" }
        );
    }
    let _ = writeln!(
        o,
        "peak {:.2} GiB on stage {} of {:.2} GiB usable: headroom {:.2} GiB, {}",
        gib(mem.peak_bytes),
        mem.peak_stage,
        gib(mem.capacity_bytes),
        gib(mem.headroom_bytes),
        verdict_text(&mem.fit)
    );
    let _ = writeln!(o);
}

/// The step time, its exposed communication and the communication hidden behind compute (under
/// DualPipe, the paired forward and backward chunks: DeepSeek-V3 technical report §3.2.1,
/// Fig. 4), each kind apart.
fn write_time(o: &mut String, s: &Scenario, e: &Estimate) {
    let t = &e.time;
    let c = &t.exposed_comm_s;
    let h = &t.hidden_comm_s;
    let _ = writeln!(o, "Step time (s)");
    let _ = writeln!(
        o,
        "  step {:.4} = compute {:.4} (forward {:.4}, backward {:.4}) + recompute {:.4} + bubble {:.4} + optimizer {:.4} + offload {:.4} + host-bound {:.4} + exposed comm {:.4}",
        t.step_s,
        t.compute_s,
        t.forward_s,
        t.backward_s,
        t.recompute_s,
        t.bubble_s,
        t.optimizer_s,
        t.offload_s,
        t.host_s,
        c.total()
    );
    if t.moe_tokens_s > 0.0 {
        let _ = writeln!(
            o,
            "  of compute: MoE token bookkeeping {:.4} (router, permutation, combine; forward and backward)",
            t.moe_tokens_s
        );
    }
    let _ = writeln!(
        o,
        "  exposed comm: tp {:.4}, cp {:.4}, ep {:.4}, pp {:.4}, dp {:.4}; micro-batches {}",
        c.tp, c.cp, c.ep, c.pp, c.dp, t.micro_batches
    );
    let oc = &t.overlap_contention_s;
    let _ = writeln!(
        o,
        "  of which overlap contention (compute lost to the SMs hidden communication holds): tp {:.4}, cp {:.4}, ep {:.4}, pp {:.4}, dp {:.4}; total {:.4}",
        oc.tp,
        oc.cp,
        oc.ep,
        oc.pp,
        oc.dp,
        oc.total()
    );
    let _ = writeln!(
        o,
        "  hidden comm (not in the step): tp {:.4}, cp {:.4}, ep {:.4}, pp {:.4}, dp {:.4}; total {:.4}",
        h.tp,
        h.cp,
        h.ep,
        h.pp,
        h.dp,
        h.total()
    );
    let ep = &e.comm.ep;
    if ep.group > 1 {
        let link = match ep.link {
            crate::engine::time::comm::Link::Nvlink => "NVLink",
            crate::engine::time::comm::Link::Network => "across nodes",
            crate::engine::time::comm::Link::None => "none",
        };
        let under = if s.parallel.schedule().overlaps_chunks() {
            "under the paired forward and backward chunks of DualPipe"
        } else {
            "behind compute"
        };
        let _ = writeln!(
            o,
            "  ep: MoE token dispatch + combine all-to-all over {} ranks ({link}), {:.4} s exposed, {:.4} s hidden {under}, {:.2} GB per GPU per step",
            ep.group,
            c.ep,
            h.ep,
            ep.bytes / 1e9
        );
    }
}

/// Throughput, FLOPs and MFU.
fn write_throughput(o: &mut String, e: &Estimate) {
    let r = &e.throughput;
    let _ = writeln!(o, "Throughput");
    let _ = writeln!(
        o,
        "  {:.0} tokens/s, {:.2} samples/s, {:.1} TFLOP/s per GPU, MFU {:.1} %, HFU {:.1} %",
        r.tokens_per_s,
        r.samples_per_s,
        r.tflops_per_gpu,
        100.0 * r.mfu,
        100.0 * r.hfu
    );
    let _ = writeln!(
        o,
        "  FLOPs per step: model {:.3e} (attention over the full s×s matrix), hardware {:.3e}",
        e.flops.model_flops, e.flops.hardware_flops
    );
    let _ = writeln!(
        o,
        "  Counting attention causally (half of s×s): {:.1} TFLOP/s per GPU, MFU {:.1} %",
        r.tflops_per_gpu_causal,
        100.0 * r.mfu_causal
    );
}

/// The verdict, stack notes and suggested changes (engine::advice).
fn write_verdict(o: &mut String, s: &Scenario, e: &Estimate) {
    // What to change, computed by the engine (engine::advice).
    let v = crate::engine::advice::verdict(s, e);
    let _ = writeln!(o, "Verdict");
    let _ = writeln!(
        o,
        "  {}{}",
        if v.fits { "" } else { "if it fit: " },
        crate::engine::advice::sentence(&v)
    );
    for n in &v.stack_notes {
        let _ = writeln!(
            o,
            "  note: {}: step {:.4} s, peak {:.2} GiB{}",
            n.text,
            n.step_s,
            gib(n.peak_bytes),
            if n.fits { "" } else { " (does not fit)" }
        );
    }
    let fixes = if v.fits {
        v.suggestions
    } else {
        crate::engine::advice::closest_fitting(s, 3)
    };
    for x in &fixes {
        let _ = writeln!(
            o,
            "  try {}: step {:.4} s, peak {:.2} GiB{}",
            x.describe(s),
            x.step_s,
            gib(x.peak_bytes),
            if x.fits { "" } else { " (does not fit)" }
        );
    }
}
