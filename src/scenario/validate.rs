//! Value checks across the whole scenario. Every problem becomes an [`Issue`] naming its field;
//! nothing here panics, whatever the numbers (products use checked arithmetic).

use super::{GpuChoice, Issue, Model, Parallel, Precision, Scenario, Schedule, Training};

/// Largest values accepted; beyond them the numbers describe no real run and would only risk
/// overflow. Each limit is at least 10× the largest published run.
pub(crate) const MAX_LAYERS: u64 = 100_000;
pub(crate) const MAX_HIDDEN: u64 = 10_000_000;
pub(crate) const MAX_VOCAB: u64 = 100_000_000;
pub(crate) const MAX_SEQ_LEN: u64 = 1_000_000_000;
pub(crate) const MAX_BATCH: u64 = 10_000_000_000;
pub(crate) const MAX_GPUS: u64 = 100_000_000;
pub(crate) const MAX_GBPS: f64 = 1.0e6;
/// Most multi-token prediction modules (DeepSeek-V3 uses 1).
pub(crate) const MAX_MTP_LAYERS: u64 = 64;
/// Largest expert-load imbalance: the busiest rank cannot hold more than all the tokens, which
/// is at most the number of ranks times the mean; 1000 is far beyond any reported imbalance.
pub(crate) const MAX_IMBALANCE: f64 = 1000.0;
/// Longest model or GPU name/id, in bytes.
pub(crate) const MAX_LABEL_BYTES: usize = 200;

struct Checker {
    issues: Vec<Issue>,
}

impl Checker {
    fn push(&mut self, field: &str, message: String) {
        self.issues.push(Issue::new(field, message));
    }

    /// `value` must be in `1..=max`.
    fn count(&mut self, field: &str, what: &str, value: u64, max: u64) -> bool {
        if value == 0 {
            self.push(field, format!("{what} must be at least 1, got 0."));
            false
        } else if value > max {
            self.push(
                field,
                format!("{what} {value} is larger than the supported maximum of {max}."),
            );
            false
        } else {
            true
        }
    }

    /// A display label: at most [`MAX_LABEL_BYTES`] bytes and no control characters (it is
    /// printed by the CLI and shown by the app as plain text; control and bidi-override
    /// characters could garble a terminal or reorder what is displayed).
    fn label(&mut self, field: &str, what: &str, value: &str) {
        if value.len() > MAX_LABEL_BYTES {
            self.push(
                field,
                format!(
                    "{what} is {} bytes long; at most {MAX_LABEL_BYTES} are allowed.",
                    value.len()
                ),
            );
        } else if value.chars().any(|ch| {
            ch.is_control()
                || matches!(ch, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        }) {
            self.push(
                field,
                format!("{what} contains control characters; use plain text."),
            );
        }
    }

    /// An optional positive finite number at most `max`.
    fn positive(&mut self, field: &str, what: &str, value: Option<f64>, max: f64) {
        if let Some(v) = value {
            if !v.is_finite() || v <= 0.0 {
                self.push(field, format!("{what} must be a positive number, got {v}."));
            } else if v > max {
                self.push(
                    field,
                    format!("{what} {v} is larger than the supported maximum of {max}."),
                );
            }
        }
    }

    /// An optional non-negative finite number at most `max`.
    fn non_negative(&mut self, field: &str, what: &str, value: Option<f64>, max: f64) {
        if let Some(v) = value {
            if !v.is_finite() || v < 0.0 {
                self.push(
                    field,
                    format!("{what} must be zero or a positive number, got {v}."),
                );
            } else if v > max {
                self.push(
                    field,
                    format!("{what} {v} is larger than the supported maximum of {max}."),
                );
            }
        }
    }
}

/// The optional model-shape fields of `DESIGN.md` ("Modern model shapes"): head dimension,
/// multi-head latent attention, shared experts, dense first layers, MoE frequency, expert-load
/// imbalance and multi-token prediction modules.
fn modern_model_shapes(c: &mut Checker, m: &Model) {
    if let Some(d) = m.head_dim {
        c.count("model.head_dim", "the head dimension", d, MAX_HIDDEN);
    }
    if let Some(mla) = &m.mla {
        if mla.q_lora_rank > MAX_HIDDEN {
            c.push(
                "model.mla.q_lora_rank",
                format!(
                    "the query latent rank {} is larger than the supported maximum of {MAX_HIDDEN}.",
                    mla.q_lora_rank
                ),
            );
        }
        c.count(
            "model.mla.kv_lora_rank",
            "the key/value latent rank",
            mla.kv_lora_rank,
            MAX_HIDDEN,
        );
        if mla.qk_nope_head_dim > MAX_HIDDEN {
            c.push(
                "model.mla.qk_nope_head_dim",
                format!(
                    "the non-rotary head dimension {} is larger than the supported maximum of {MAX_HIDDEN}.",
                    mla.qk_nope_head_dim
                ),
            );
        }
        c.count(
            "model.mla.qk_rope_head_dim",
            "the rotary head dimension",
            mla.qk_rope_head_dim,
            MAX_HIDDEN,
        );
        c.count(
            "model.mla.v_head_dim",
            "the value head dimension",
            mla.v_head_dim,
            MAX_HIDDEN,
        );
    }
    if let Some(n) = m.mtp_layers {
        if n > MAX_MTP_LAYERS {
            c.push(
                "model.mtp_layers",
                format!("{n} multi-token prediction modules are more than the supported {MAX_MTP_LAYERS}."),
            );
        }
    }
    let Some(moe) = &m.moe else { return };
    if moe.shared_experts() > 1_000_000 {
        c.push(
            "model.moe.shared_experts",
            format!(
                "{} shared experts are more than the supported 1000000.",
                moe.shared_experts()
            ),
        );
    }
    if let Some(f) = moe.shared_expert_ffn_hidden {
        c.count(
            "model.moe.shared_expert_ffn_hidden",
            "the shared expert FFN hidden size",
            f,
            MAX_HIDDEN.saturating_mul(8),
        );
    }
    if moe.dense_layers() >= m.layers && m.layers > 0 {
        c.push(
            "model.moe.dense_layers",
            format!(
                "{} dense first layers leave no MoE layer in a model of {} layers.",
                moe.dense_layers(),
                m.layers
            ),
        );
    }
    if let Some(n) = moe.moe_every {
        c.count(
            "model.moe.moe_every",
            "the MoE layer frequency",
            n,
            MAX_LAYERS,
        );
    }
    if let Some(x) = moe.imbalance {
        if !x.is_finite() || !(1.0..=MAX_IMBALANCE).contains(&x) {
            c.push(
                "model.moe.imbalance",
                format!("the expert-load imbalance (busiest rank over the mean) must be between 1 and {MAX_IMBALANCE}, got {x}."),
            );
        }
    }
}

/// The software stack: an FP8 recipe only with FP8 precision.
fn training_stack(c: &mut Checker, t: &Training) {
    if let (Some(r), false) = (t.fp8_recipe, t.precision == Precision::Fp8) {
        c.push(
            "training.fp8_recipe",
            format!(
                "the FP8 recipe {} only applies with precision fp8, not {}.",
                r.as_str(),
                t.precision.as_str()
            ),
        );
    }
}

/// Expert tensor parallel (folded with `ep` over `tp·cp·dp`, Megatron-Core MoE parallel
/// folding) and the HSDP shard group (a divisor of `dp`).
fn expert_and_shard_groups(c: &mut Checker, p: &Parallel) {
    if let Some(etp) = p.etp {
        if c.count("parallel.etp", "expert tensor parallel", etp, MAX_GPUS) {
            let folded = p.ep.checked_mul(etp);
            let dense = p.tp.checked_mul(p.cp).and_then(|x| x.checked_mul(p.dp));
            if let (Some(f), Some(d)) = (folded, dense) {
                if f > 0 && d > 0 && d % f != 0 {
                    c.push("parallel.etp", format!("expert parallel × expert tensor parallel = {}·{etp} = {f} does not divide tp·cp·dp = {d} (the expert layout folds over the attention layout).", p.ep));
                }
            }
        }
    }
    if let Some(n) = p.shard_ranks {
        if c.count(
            "parallel.shard_ranks",
            "the ZeRO/FSDP shard group",
            n,
            MAX_GPUS,
        ) && p.dp > 0
            && p.dp % n != 0
        {
            c.push(
                "parallel.shard_ranks",
                format!(
                    "the shard group of {n} ranks does not divide data parallel {} (HSDP replicates whole shard groups).",
                    p.dp
                ),
            );
        }
    }
}

/// Every problem of `s`, in field order.
pub(crate) fn issues(s: &Scenario) -> Vec<Issue> {
    let mut c = Checker { issues: Vec::new() };
    let m = &s.model;
    let t = &s.training;
    let p = &s.parallel;
    let cl = &s.cluster;

    // --- model ---
    c.label("model.name", "the model name", &m.name);
    let layers_ok = c.count("model.layers", "the number of layers", m.layers, MAX_LAYERS);
    let hidden_ok = c.count("model.hidden", "the hidden size", m.hidden, MAX_HIDDEN);
    let heads_ok = c.count(
        "model.heads",
        "the number of attention heads",
        m.heads,
        MAX_HIDDEN,
    );
    if hidden_ok && heads_ok && m.head_dim.is_none() && m.hidden % m.heads != 0 {
        c.push(
            "model.heads",
            format!(
                "{} attention heads do not divide the hidden size {}.",
                m.heads, m.hidden
            ),
        );
    }
    let kv = m.kv_heads();
    let kv_ok = c.count(
        "model.kv_heads",
        "the number of key/value heads",
        kv,
        MAX_HIDDEN,
    );
    if kv_ok && heads_ok && m.heads % kv != 0 {
        c.push("model.kv_heads", format!("{kv} key/value heads do not divide {} attention heads (each KV head must serve a whole group of query heads).", m.heads));
    }
    c.count(
        "model.ffn_hidden",
        "the FFN hidden size",
        m.ffn_hidden(),
        MAX_HIDDEN.saturating_mul(8),
    );
    c.count("model.vocab", "the vocabulary size", m.vocab, MAX_VOCAB);
    let seq_ok = c.count(
        "model.seq_len",
        "the sequence length",
        m.seq_len,
        MAX_SEQ_LEN,
    );
    if let Some(moe) = &m.moe {
        let experts_ok = c.count(
            "model.moe.experts",
            "the number of experts",
            moe.experts,
            1_000_000,
        );
        if c.count("model.moe.top_k", "top-k", moe.top_k, 1_000_000)
            && experts_ok
            && moe.top_k > moe.experts
        {
            c.push(
                "model.moe.top_k",
                format!(
                    "top-k {} is more than the {} experts.",
                    moe.top_k, moe.experts
                ),
            );
        }
        c.count(
            "model.moe.expert_ffn_hidden",
            "the expert FFN hidden size",
            moe.expert_ffn_hidden,
            MAX_HIDDEN.saturating_mul(8),
        );
    }
    modern_model_shapes(&mut c, m);

    // --- training ---
    let gb_ok = c.count(
        "training.global_batch",
        "the global batch",
        t.global_batch,
        MAX_BATCH,
    );
    let mb_ok = c.count(
        "training.micro_batch",
        "the micro-batch",
        t.micro_batch,
        MAX_BATCH,
    );
    c.positive(
        "training.train_tokens",
        "the number of training tokens",
        t.train_tokens,
        1.0e18,
    );

    for (field, what, v) in [
        (
            "training.optimizer_offload",
            "the offloaded optimizer fraction",
            t.optimizer_offload,
        ),
        (
            "training.activation_offload",
            "the offloaded activation fraction",
            t.activation_offload,
        ),
    ] {
        if let Some(v) = v {
            if !(0.0..=1.0).contains(&v) {
                c.push(field, format!("{what} must be between 0 and 1, got {v}."));
            }
        }
    }
    training_stack(&mut c, t);

    // --- parallel ---
    let tp_ok = c.count("parallel.tp", "tensor parallel", p.tp, MAX_GPUS);
    let pp_ok = c.count("parallel.pp", "pipeline parallel", p.pp, MAX_GPUS);
    let dp_ok = c.count("parallel.dp", "data parallel", p.dp, MAX_GPUS);
    let cp_ok = c.count("parallel.cp", "context parallel", p.cp, MAX_GPUS);
    let ep_ok = c.count("parallel.ep", "expert parallel", p.ep, MAX_GPUS);
    let vp_ok = c.count(
        "parallel.vp",
        "virtual pipeline (chunks per rank)",
        p.vp,
        MAX_LAYERS,
    );
    if tp_ok && heads_ok && m.heads % p.tp != 0 {
        c.push(
            "parallel.tp",
            format!(
                "tensor parallel {} does not divide {} attention heads.",
                p.tp, m.heads
            ),
        );
    } else if tp_ok && kv_ok && kv % p.tp != 0 {
        c.push("parallel.tp", format!("tensor parallel {} does not divide {kv} key/value heads (Megatron requires the KV groups to split evenly).", p.tp));
    }
    if cp_ok && seq_ok && m.seq_len % p.cp != 0 {
        c.push(
            "parallel.cp",
            format!(
                "context parallel {} does not divide the sequence length {}.",
                p.cp, m.seq_len
            ),
        );
    }
    if ep_ok && p.ep > 1 {
        match &m.moe {
            None => c.push(
                "parallel.ep",
                format!(
                    "expert parallel {} needs a mixture-of-experts model (model.moe is null).",
                    p.ep
                ),
            ),
            Some(moe) => {
                if moe.experts % p.ep != 0 {
                    c.push(
                        "parallel.ep",
                        format!(
                            "expert parallel {} does not divide {} experts.",
                            p.ep, moe.experts
                        ),
                    );
                }
            }
        }
        // Megatron-Core MoE parallel folding: the experts' ep·etp ranks fold over the attention
        // layout's tp·cp·dp ranks (`parallel_state.initialize_model_parallel`, expert groups).
        let folded = p.ep.checked_mul(p.etp());
        let dense = p.tp.checked_mul(p.cp).and_then(|x| x.checked_mul(p.dp));
        if let (true, Some(f), Some(d)) = (dp_ok && p.etp.is_none(), folded, dense) {
            if f > 0 && d % f != 0 {
                c.push("parallel.ep", format!("expert parallel {} × expert tensor parallel {} does not divide tp·cp·dp = {d} (experts fold over the attention layout's ranks).", p.ep, p.etp()));
            }
        }
    }
    expert_and_shard_groups(&mut c, p);
    if p.zero_stage > 3 {
        c.push(
            "parallel.zero_stage",
            format!("ZeRO stage must be 0, 1, 2 or 3, got {}.", p.zero_stage),
        );
    }
    if vp_ok && p.vp > 1 && pp_ok && p.pp == 1 {
        c.push(
            "parallel.vp",
            format!("virtual pipeline {} needs pipeline parallel > 1.", p.vp),
        );
    }
    if let Some(sched) = p.schedule {
        if vp_ok && !sched.needs_vp(p.vp) {
            let rule = match sched {
                Schedule::Interleaved => {
                    "the interleaved schedule needs vp > 1 model chunks per pipeline rank.".into()
                }
                Schedule::ZbV | Schedule::DualPipeV => format!(
                    "{} needs exactly two model chunks per pipeline rank (vp = 2), got vp = {}.",
                    sched.as_str(),
                    p.vp
                ),
                _ => format!(
                    "vp = {} model chunks need the interleaved schedule, not {}.",
                    p.vp,
                    sched.as_str()
                ),
            };
            c.push("parallel.schedule", rule);
        }
        check_dualpipe(&mut c, sched, p.pp, t, p.dp);
    }
    if layers_ok && pp_ok && vp_ok {
        match &p.layers_per_stage {
            Some(list) => {
                if list.len() as u64 != p.pp {
                    c.push(
                        "parallel.layers_per_stage",
                        format!(
                            "layers_per_stage lists {} stages but pipeline parallel is {}.",
                            list.len(),
                            p.pp
                        ),
                    );
                }
                let sum = list.iter().fold(0u64, |a, &x| a.saturating_add(x));
                if sum != m.layers {
                    c.push(
                        "parallel.layers_per_stage",
                        format!(
                            "layers_per_stage adds up to {sum} layers but the model has {}.",
                            m.layers
                        ),
                    );
                }
                if let Some(i) = list.iter().position(|&x| x < p.vp) {
                    c.push(
                        "parallel.layers_per_stage",
                        format!(
                            "stage {i} has {} layers, fewer than its {} model chunks (vp).",
                            list[i], p.vp
                        ),
                    );
                }
            }
            None => {
                if let Some(chunks) = p.pp.checked_mul(p.vp) {
                    // Fewer layers than chunks is only possible with the NeMo rule (the embedding
                    // and the loss count as a layer each; see engine::layout).
                    let nemo = m.layers.saturating_add(2) % chunks == 0;
                    if m.layers < chunks && !nemo {
                        c.push(
                            "parallel.pp",
                            format!(
                                "{} layers cannot fill {} pipeline stages × {} chunks.",
                                m.layers, p.pp, p.vp
                            ),
                        );
                    }
                }
            }
        }
    }
    c.positive(
        "parallel.bucket_mb",
        "the gradient bucket size (MB)",
        p.bucket_mb,
        1.0e7,
    );

    // --- batch split ---
    if gb_ok && mb_ok && dp_ok {
        match p.dp.checked_mul(t.micro_batch) {
            Some(per_step) if t.global_batch % per_step == 0 => {}
            _ => c.push(
                "training.global_batch",
                format!(
                    "the global batch {} is not a multiple of micro-batch {} × data parallel {}.",
                    t.global_batch, t.micro_batch, p.dp
                ),
            ),
        }
    }

    // --- cluster ---
    let gpus_ok = c.count(
        "cluster.num_gpus",
        "the number of GPUs",
        cl.num_gpus,
        MAX_GPUS,
    );
    c.count(
        "cluster.gpus_per_node",
        "GPUs per node",
        cl.gpus_per_node,
        1_000_000,
    );
    if gpus_ok && tp_ok && pp_ok && dp_ok && cp_ok {
        let product =
            p.tp.checked_mul(p.pp)
                .and_then(|x| x.checked_mul(p.dp))
                .and_then(|x| x.checked_mul(p.cp));
        if product != Some(cl.num_gpus) {
            let shown = product.map_or_else(|| "more than 2^64".to_string(), |x| x.to_string());
            c.push(
                "cluster.num_gpus",
                format!(
                    "{} GPUs do not match tp {} × pp {} × dp {} × cp {} = {shown}.",
                    cl.num_gpus, p.tp, p.pp, p.dp, p.cp
                ),
            );
        }
    }
    c.positive(
        "cluster.intra_node_gbps",
        "the intra-node bandwidth (GB/s)",
        cl.intra_node_gbps,
        MAX_GBPS,
    );
    c.positive(
        "cluster.inter_node_gbps",
        "the inter-node bandwidth (GB/s)",
        cl.inter_node_gbps,
        MAX_GBPS,
    );
    c.non_negative(
        "cluster.price_per_gpu_hour",
        "the price per GPU-hour",
        cl.price_per_gpu_hour,
        1.0e6,
    );
    match &cl.gpu {
        GpuChoice::Preset(id) => {
            if super::gpu_preset(id).is_none() {
                let known: Vec<&str> = super::GPU_PRESETS.iter().map(|g| g.id).collect();
                let shown = super::error::printable(id, 40);
                c.push(
                    "cluster.gpu",
                    format!("unknown GPU \"{shown}\"; known GPUs: {}.", known.join(", ")),
                );
            }
        }
        GpuChoice::Custom(g) => {
            c.label("cluster.gpu.id", "the GPU id", &g.id);
            c.label("cluster.gpu.name", "the GPU name", &g.name);
            c.positive(
                "cluster.gpu.hbm_gib",
                "the GPU memory (GiB)",
                Some(g.hbm_gib),
                1.0e6,
            );
            c.positive(
                "cluster.gpu.usable_gib",
                "the usable GPU memory (GiB)",
                g.usable_gib,
                1.0e6,
            );
            c.positive(
                "cluster.gpu.hbm_gbps",
                "the HBM bandwidth (GB/s)",
                Some(g.hbm_gbps),
                MAX_GBPS,
            );
            c.positive(
                "cluster.gpu.nvlink_gbps",
                "the NVLink bandwidth (GB/s)",
                g.nvlink_gbps,
                MAX_GBPS,
            );
            c.positive(
                "cluster.gpu.nic_gbps",
                "the NIC bandwidth (GB/s)",
                g.nic_gbps,
                MAX_GBPS,
            );
            c.positive(
                "cluster.gpu.pcie_gbps",
                "the PCIe bandwidth (GB/s)",
                g.pcie_gbps,
                MAX_GBPS,
            );
            c.positive(
                "cluster.gpu.host_link_gbps",
                "the GPU-to-host link bandwidth (GB/s)",
                g.host_link_gbps,
                MAX_GBPS,
            );
            c.count(
                "cluster.gpu.nvlink_domain_gpus",
                "GPUs per NVLink domain",
                g.nvlink_domain_gpus,
                1_000_000,
            );
            let pk = &g.peak_tflops;
            for (name, v) in [
                ("fp32", pk.fp32),
                ("tf32", pk.tf32),
                ("fp16", pk.fp16),
                ("bf16", pk.bf16),
                ("fp8", pk.fp8),
            ] {
                c.positive(
                    &format!("cluster.gpu.peak_tflops.{name}"),
                    "a peak (TFLOP/s)",
                    v,
                    1.0e7,
                );
            }
        }
    }
    if let Some(spec) = cl.gpu_spec() {
        let pk = spec.peak_tflops;
        let peak = match t.precision {
            Precision::Fp32 => pk.tf32.or(pk.fp32),
            Precision::Fp16 => pk.fp16,
            Precision::Bf16 => pk.bf16,
            Precision::Fp8 => pk.fp8,
        };
        if peak.is_none() {
            c.push(
                "training.precision",
                format!(
                    "{} has no {} tensor-core peak; choose another precision.",
                    cl.gpu_name(),
                    t.precision.as_str()
                ),
            );
        }
    }

    // --- overhead ---
    let o = &s.overhead;
    c.non_negative(
        "overhead.cuda_context_gib",
        "the CUDA context (GiB)",
        o.cuda_context_gib,
        1.0e4,
    );
    c.non_negative(
        "overhead.comm_buffers_gib",
        "the communication buffers (GiB)",
        o.comm_buffers_gib,
        1.0e4,
    );
    c.non_negative(
        "overhead.allocator_reserve_pct",
        "the allocator reserve (%)",
        o.allocator_reserve_pct,
        100.0,
    );

    c.issues
}

/// DualPipe's conditions (deepseek-ai/DualPipe `dualpipe.py` / `dualpipev.py`, `step`): an even
/// number of ranks for DualPipe (the two directions meet in the middle), and at least `2·pp`
/// micro-batches (`m = B/(b·d)`), an even number for DualPipe (half go each way).
fn check_dualpipe(c: &mut Checker, sched: Schedule, pp: u64, t: &super::Training, dp: u64) {
    if !matches!(sched, Schedule::DualPipe | Schedule::DualPipeV) {
        return;
    }
    if sched == Schedule::DualPipe && (pp < 2 || pp % 2 != 0) {
        c.push(
            "parallel.pp",
            format!("dualpipe needs an even number of pipeline ranks ≥ 2, got pp = {pp}."),
        );
    }
    let per = t.micro_batch.saturating_mul(dp).max(1);
    let m = t.global_batch / per;
    let min = pp.saturating_mul(2);
    if m < min || (sched == Schedule::DualPipe && m % 2 != 0) {
        c.push(
            "training.global_batch",
            format!(
                "{} needs at least 2·pp = {min} micro-batches{} (m = global_batch / (micro_batch · dp)), got m = {m}.",
                sched.as_str(),
                if sched == Schedule::DualPipe { ", an even number" } else { "" }
            ),
        );
    }
}
