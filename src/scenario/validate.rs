//! Value checks across the whole scenario. Every problem becomes an [`Issue`] naming its field;
//! nothing here panics, whatever the numbers (products use checked arithmetic).
//!
//! Two steps: every field's value against its kind and range in the field table
//! ([`FieldDef::check`](super::fields::FieldDef::check)), then the rules across fields, each in
//! a named function. A rule only looks at fields whose values are in range.

use super::fields::{all_in_range, FieldId, FIELDS, MAX_FFN};
use super::{
    AttentionKernel, Fp8Recipe, GpuChoice, GpuSpec, Issue, Parallel, Precision, Scenario, Schedule,
};

/// The issues found so far, and which fields were out of range.
struct Checker {
    issues: Vec<Issue>,
    out_of_range: Vec<FieldId>,
}

impl Checker {
    fn push(&mut self, field: FieldId, message: String) {
        self.issues.push(Issue::new(field, message));
    }

    /// Whether every one of `fields` passed its range check.
    fn ok(&self, fields: &[FieldId]) -> bool {
        self.out_of_range.is_empty() || fields.iter().all(|f| !self.out_of_range.contains(f))
    }
}

/// Every problem of `s`, in the order of the field table; `gpu` is its GPU's numbers
/// ([`Cluster::gpu_spec`](super::Cluster::gpu_spec), `None` for an unknown preset), which the
/// caller resolves once for the GPU rules and for the estimate that reads them next.
pub(crate) fn issues(s: &Scenario, gpu: Option<&GpuSpec>) -> Vec<Issue> {
    let mut c = Checker {
        issues: Vec::new(),
        out_of_range: Vec::new(),
    };
    ranges(&mut c, s);
    model_rules(&mut c, s);
    moe_rules(&mut c, s);
    divisibility_rules(&mut c, s);
    expert_and_shard_groups(&mut c, s);
    training_stack(&mut c, s);
    pipeline_rules(&mut c, s);
    stage_rules(&mut c, s);
    batch_rule(&mut c, s);
    gpu_count_rule(&mut c, s);
    gpu_rules(&mut c, s, gpu);
    // Field order (stable: a field's own issues keep the order they were found in).
    crate::sort::sort_by_key(&mut c.issues, |i| {
        i.field.id().map_or(usize::MAX, |id| id as usize)
    });
    c.issues
}

/// Every field's value against its kind and range (the field table): the allocation-free
/// [`all_in_range`] test, and the worded [`check`](super::fields::FieldDef::check) of every
/// field only when it fails.
fn ranges(c: &mut Checker, s: &Scenario) {
    if all_in_range(s) {
        return;
    }
    for f in FIELDS {
        if let Some(Err(why)) = (f.get)(s).map(|v| f.check(&v)) {
            c.push(f.id, why);
            c.out_of_range.push(f.id);
        }
    }
}

/// Heads divide the hidden size; KV heads divide the heads; the default FFN size is in range.
fn model_rules(c: &mut Checker, s: &Scenario) {
    use FieldId::{FfnHidden, Heads, Hidden, KvHeads};
    let m = &s.model;
    if m.ffn_hidden.is_none() && m.ffn_hidden() > MAX_FFN {
        c.push(
            FfnHidden,
            format!(
                "the default FFN size 4 × hidden = {} is larger than the supported maximum of {MAX_FFN}.",
                m.ffn_hidden()
            ),
        );
    }
    if c.ok(&[Hidden, Heads]) && m.head_dim.is_none() && m.hidden % m.heads != 0 {
        c.push(
            Heads,
            format!(
                "{} attention heads do not divide the hidden size {}.",
                m.heads, m.hidden
            ),
        );
    }
    let kv = m.kv_heads();
    if c.ok(&[Heads, KvHeads]) && kv > 0 && m.heads % kv != 0 {
        c.push(KvHeads, format!("{kv} key/value heads do not divide {} attention heads (each KV head must serve a whole group of query heads).", m.heads));
    }
}

/// Latent attention has a latent; a mixture of experts has experts, routes to at most all of
/// them and leaves at least one MoE layer after its dense ones.
fn moe_rules(c: &mut Checker, s: &Scenario) {
    use FieldId::{DenseLayers, Experts, Layers, MlaKvRank, TopK};
    if s.model.mla.is_some_and(|m| m.kv_lora_rank == 0) {
        c.push(
            MlaKvRank,
            "MLA KV latent rank must be at least 1 with latent attention, got 0.".into(),
        );
    }
    let Some(moe) = &s.model.moe else { return };
    let layers = s.model.layers;
    if c.ok(&[DenseLayers, Layers]) && moe.dense_layers() >= layers && layers > 0 {
        c.push(
            DenseLayers,
            format!(
                "{} dense first layers leave no MoE layer in a model of {layers} layers.",
                moe.dense_layers()
            ),
        );
    }
    if moe.experts == 0 {
        c.push(
            Experts,
            "Experts must be at least 1 in a mixture-of-experts model, got 0.".into(),
        );
    } else if c.ok(&[Experts, TopK]) && moe.top_k > moe.experts {
        c.push(
            TopK,
            format!(
                "top-k {} is more than the {} experts.",
                moe.top_k, moe.experts
            ),
        );
    }
    group_rules(c, moe);
}

/// Group-limited routing: the groups split the experts evenly (Megatron-Core
/// `transformer_config.py` @d98e8a64 asserts `num_moe_experts % moe_router_num_groups == 0` and
/// asks for the groups whenever a group top-k is set), a token draws from at most all of them
/// (`group_limited_topk`'s `torch.topk` over the groups), and the groups it may use hold its
/// `top_k` experts.
fn group_rules(c: &mut Checker, moe: &super::Moe) {
    use FieldId::{ExpertGroups, Experts, GroupLimit, TopK};
    let (g, l) = (
        moe.expert_groups(),
        moe.group_limit.unwrap_or(moe.expert_groups()),
    );
    if moe.expert_groups.is_none() && moe.group_limit.is_some_and(|l| l > 1) {
        c.push(
            GroupLimit,
            "groups per token needs expert groups (model.moe.expert_groups).".into(),
        );
        return;
    }
    if !c.ok(&[ExpertGroups, GroupLimit, Experts, TopK]) || moe.experts == 0 {
        return;
    }
    if moe.experts % g != 0 {
        c.push(
            ExpertGroups,
            format!(
                "{g} expert groups do not split the {} experts evenly.",
                moe.experts
            ),
        );
    } else if l > g {
        c.push(
            GroupLimit,
            format!("{l} groups per token is more than the {g} expert groups."),
        );
    } else if moe.top_k > l * (moe.experts / g) {
        c.push(
            GroupLimit,
            format!(
                "{l} of {g} groups hold {} experts, fewer than top-k {}.",
                l * (moe.experts / g),
                moe.top_k
            ),
        );
    }
}

/// TP divides the heads and KV heads, CP the sequence, EP the experts and DP.
fn divisibility_rules(c: &mut Checker, s: &Scenario) {
    use FieldId::{Cp, Dp, Ep, Heads, KvHeads, SeqLen, Tp};
    let (m, p) = (&s.model, &s.parallel);
    let kv = m.kv_heads();
    if c.ok(&[Tp, Heads]) && m.heads % p.tp != 0 {
        c.push(
            Tp,
            format!(
                "tensor parallel {} does not divide {} attention heads.",
                p.tp, m.heads
            ),
        );
    } else if c.ok(&[Tp, Heads, KvHeads]) && !s.tp_splits_kv_heads(p.tp) {
        c.push(Tp, format!("tensor parallel {} does not divide {kv} key/value heads (Megatron-LM also runs a multiple of them, each rank keeping one; other stacks need the KV heads to split evenly).", p.tp));
    }
    if c.ok(&[Cp, SeqLen]) && m.seq_len % p.cp != 0 {
        c.push(
            Cp,
            format!(
                "context parallel {} does not divide the sequence length {}.",
                p.cp, m.seq_len
            ),
        );
    }
    if !c.ok(&[Ep]) || p.ep <= 1 {
        return;
    }
    match &m.moe {
        None => c.push(
            Ep,
            format!(
                "expert parallel {} needs a mixture-of-experts model (model.moe is null).",
                p.ep
            ),
        ),
        Some(moe) if moe.experts % p.ep != 0 => c.push(
            Ep,
            format!(
                "expert parallel {} does not divide {} experts.",
                p.ep, moe.experts
            ),
        ),
        Some(_) => {}
    }
    // Megatron-Core MoE parallel folding: the experts' ep·etp ranks fold over the attention
    // layout's tp·cp·dp ranks (`parallel_state.initialize_model_parallel`, expert groups).
    if p.etp.is_none() && c.ok(&[Tp, Cp, Dp]) {
        if let Some((_, d)) = unfolded_experts(p) {
            c.push(Ep, format!("expert parallel {} × expert tensor parallel {} does not divide tp·cp·dp = {d} (experts fold over the attention layout's ranks).", p.ep, p.etp()));
        }
    }
}

/// `Some((ep·etp, tp·cp·dp))` when the expert layout's ranks do not fold over the attention
/// layout's (Megatron-Core MoE parallel folding needs `ep·etp` to divide `tp·cp·dp`); `None`
/// when they fold or a product overflows (the range checks report those values).
fn unfolded_experts(p: &Parallel) -> Option<(u64, u64)> {
    let folded = p.ep.checked_mul(p.etp())?;
    let dense = p.tp.checked_mul(p.cp)?.checked_mul(p.dp)?;
    (folded > 0 && dense > 0 && dense % folded != 0).then_some((folded, dense))
}

/// An explicit expert tensor parallel folds with `ep` over `tp·cp·dp`; the HSDP shard group
/// divides `dp`.
fn expert_and_shard_groups(c: &mut Checker, s: &Scenario) {
    use FieldId::{Cp, Dp, Ep, Etp, ShardRanks, Tp};
    let p = &s.parallel;
    if let (Some(etp), true) = (p.etp, c.ok(&[Etp, Ep, Tp, Cp, Dp])) {
        if let Some((f, d)) = unfolded_experts(p) {
            c.push(Etp, format!("expert parallel × expert tensor parallel = {}·{etp} = {f} does not divide tp·cp·dp = {d} (the expert layout folds over the attention layout).", p.ep));
        }
    }
    if let (Some(n), true) = (p.shard_ranks, c.ok(&[ShardRanks, Dp])) {
        if p.dp > 0 && p.dp % n != 0 {
            c.push(
                ShardRanks,
                format!(
                    "the shard group of {n} ranks does not divide data parallel {} (HSDP replicates whole shard groups).",
                    p.dp
                ),
            );
        }
    }
}

/// FP8 dispatch quantizes what the first expert GEMM reads in FP8 anyway (DeepSeek-V3 report
/// §3.3.2), so it needs FP8 training, experts and expert parallelism to send them over.
fn fp8_dispatch_rules(c: &mut Checker, s: &Scenario) {
    let why = if s.model.moe.is_none() {
        "FP8 dispatch sends mixture-of-experts tokens; the model has no experts (model.moe)."
    } else if s.parallel.ep <= 1 {
        "FP8 dispatch sends tokens between expert-parallel ranks; parallel.ep is 1."
    } else if s.training.precision != Precision::Fp8 {
        "FP8 dispatch sends the FP8 input of the expert GEMMs; it needs training.precision fp8."
    } else {
        return;
    };
    c.push(FieldId::MoeDispatchFp8, why.to_string());
}

/// The choices of the software stack against the framework, the model and the layout: each
/// option the plan sets goes through its own rules, in this order (the issues' order).
fn training_stack(c: &mut Checker, s: &Scenario) {
    let t = &s.training;
    if s.parallel.fsdp_style == Some(super::FsdpStyle::PerParameterSync)
        && !t.framework().traits().zero3_2021
    {
        c.push(
            FieldId::FsdpStyle,
            format!(
                "per_parameter_sync is DeepSpeed's ZeRO-3 as released in 2021 (v0.3.13-v0.5.4); \
                 training.framework is {}, not deepspeed.",
                t.framework().as_str()
            ),
        );
    }
    if s.parallel.moe_dispatcher == Some(super::MoeDispatcher::Deepep) {
        deepep_rules(c, s);
    }
    if let Some(m) = t.recompute_modules {
        recompute_module_rules(c, s, m);
    }
    if t.remat_saved.is_some() {
        remat_saved_rules(c, s);
    }
    if s.parallel.moe_dispatch_fp8() {
        fp8_dispatch_rules(c, s);
    }
    if let (Some(r), false) = (t.fp8_recipe, t.precision == Precision::Fp8) {
        c.push(
            FieldId::Fp8Recipe,
            format!(
                "the FP8 recipe {} only applies with precision fp8, not {}.",
                r.as_str(),
                t.precision.as_str()
            ),
        );
    }
    if t.optimizer_states() == super::OptimizerStates::Bf16 {
        optimizer_state_rules(c, s);
    }
    if t.master_weights == Some(super::MasterWeights::Remainder) {
        master_remainder_rules(c, s);
    }
    if t.master_weights == Some(super::MasterWeights::None) && t.fp8_params() {
        // FP8 primary weights cannot be updated in place: the optimizer steps an fp32 master
        // and casts it to FP8 (Megatron-LM `--fp8-param-gather`); NeMo 1 forces
        // `store_params = True` with `fp8_params` (`megatron_base_model.py` l. 798-799
        // @579983f). fp32 training is accepted: its weights are already their own master.
        c.push(
            FieldId::MasterWeights,
            "FP8 primary weights (training.fp8_params) are cast from an fp32 master copy after each step; no master copy needs 16-bit parameters.".to_string(),
        );
    }
    if t.swiglu_fp8_input() {
        swiglu_fp8_input_rules(c, s);
    }
    if t.fp8_params() {
        if let Some(why) = fp8_params_unsupported(s) {
            c.push(FieldId::Fp8Params, why);
        }
    }
    if let Some(on) = t.moe_probs_in_experts {
        moe_probs_in_experts_rules(c, s, on);
    }
}

/// DeepEP (`parallel.moe_dispatcher: deepep`) only for an MoE model with expert parallelism,
/// under a stack that loads it.
fn deepep_rules(c: &mut Checker, s: &Scenario) {
    if s.model.moe.is_none() {
        c.push(
            FieldId::MoeDispatcher,
            "DeepEP dispatches mixture-of-experts tokens; the model has no experts (model.moe)."
                .to_string(),
        );
    } else if s.parallel.ep <= 1 {
        c.push(
            FieldId::MoeDispatcher,
            "DeepEP sends tokens between expert-parallel ranks; parallel.ep is 1.".to_string(),
        );
    } else if !s.training.framework().traits().deepep {
        // DeepEP is a PyTorch extension (`deep_ep`, deepseek-ai/DeepEP README); Megatron-Core
        // (flex dispatcher), torchtitan and eager PyTorch stacks (NeMo Automodel) call it,
        // DeepSpeed-MoE dispatches with its own all-to-all (`deepspeed/moe/sharded_moe.py`
        // `_AllToAll`) and JAX cannot load it.
        c.push(
            FieldId::MoeDispatcher,
            format!(
                "DeepEP is a PyTorch extension that {} does not use; choose alltoall.",
                s.training.framework().as_str()
            ),
        );
    }
}

/// A named remat policy (`training.remat_saved`) only under JAX, with selective recomputation.
fn remat_saved_rules(c: &mut Checker, s: &Scenario) {
    let t = &s.training;
    // JAX names the tensors it saves (MaxText's remat_policy); the other stacks checkpoint
    // by their own rules (Megatron-LM's modules, PyTorch's per-op policy).
    if t.framework() != super::Framework::Jax {
        c.push(
            FieldId::RematSaved,
            format!(
                "the named remat policy is JAX's (MaxText); {} does not use it: leave it empty.",
                t.framework().as_str()
            ),
        );
    } else if t.recompute != super::Recompute::Selective {
        c.push(
            FieldId::RematSaved,
            format!(
                "the named remat policy applies to selective recomputation, not {}.",
                t.recompute.as_str()
            ),
        );
    }
}

/// The FP8 SwiGLU input (`training.swiglu_fp8_input`) only under Megatron-Core, with a SwiGLU
/// FFN.
fn swiglu_fp8_input_rules(c: &mut Checker, s: &Scenario) {
    let t = &s.training;
    if !t.framework().traits().swiglu_fp8_input {
        c.push(
            FieldId::SwigluFp8Input,
            format!(
                "the FP8 SwiGLU input is Megatron-Core's activation_func_fp8_input_store; training.framework is {}.",
                t.framework().as_str()
            ),
        );
    } else if s.model.ffn_act != super::FfnAct::Swiglu {
        c.push(
            FieldId::SwigluFp8Input,
            format!(
                "Megatron-LM stores only a SwiGLU's input in FP8; model.ffn_act is {}.",
                s.model.ffn_act.as_str()
            ),
        );
    }
}

/// The routing probabilities inside the experts (`training.moe_probs_in_experts`, `on`) only
/// for an MoE model, and turned on only under Megatron-Core.
fn moe_probs_in_experts_rules(c: &mut Checker, s: &Scenario, on: bool) {
    if s.model.moe.is_none() {
        c.push(
            FieldId::MoeProbsInExperts,
            "the routing probabilities belong to a mixture-of-experts model; model.moe is absent."
                .to_string(),
        );
    } else if on && !s.training.framework().traits().moe_probs_in_experts {
        c.push(
            FieldId::MoeProbsInExperts,
            format!(
                "only Megatron-Core (0.12.1 and later) applies the routing probabilities inside the experts' activation; training.framework is {}.",
                s.training.framework().as_str()
            ),
        );
    }
}

/// Why the plan `s` cannot keep FP8 primary weights (`training.fp8_params`), or `None` where
/// Megatron-LM runs them: FP8 GEMMs, the Megatron-LM stack, and its distributed optimizer
/// (`--fp8-param-gather` asserts it, `megatron/training/arguments.py` @d98e8a6), modelled at
/// ZeRO 1. The validation's rule, and the advice's test for offering the change.
pub(crate) fn fp8_params_unsupported(s: &Scenario) -> Option<String> {
    let t = &s.training;
    if t.precision != Precision::Fp8 {
        Some(format!(
            "FP8 primary weights need precision fp8, not {}.",
            t.precision.as_str()
        ))
    } else if !t.framework().traits().fp8_param_gather {
        Some(format!(
            "FP8 primary weights are Megatron-LM's --fp8-param-gather; training.framework is {}.",
            t.framework().as_str()
        ))
    } else if s.parallel.zero_stage != 1 {
        Some(format!(
            "--fp8-param-gather runs with the distributed optimizer, modelled at parallel.zero_stage 1; it is {}.",
            s.parallel.zero_stage
        ))
    } else {
        None
    }
}

/// bf16 Adam moments only where a stack has the switch ([`super::OptimizerStates`]):
/// Megatron-LM (its precision-aware optimizer runs only inside the distributed optimizer:
/// `optimizer/__init__.py` @d98e8a6, "--use-precision-aware-optimizer only supported with
/// distributed optimizer") and torchtitan (`fused_opt_states_bf16`, Adam/AdamW).
fn optimizer_state_rules(c: &mut Checker, s: &Scenario) {
    let framework = s.training.framework();
    let fw = framework.traits();
    let why = if fw.precision_aware_optimizer && s.parallel.zero_stage == 0 {
        Some(
            "bf16 moments are Megatron-LM's precision-aware optimizer, which runs only with the distributed optimizer; parallel.zero_stage is 0 (use 1).".to_string(),
        )
    } else if fw.bf16_moments {
        None
    } else {
        Some(format!(
            "bf16 Adam moments need Megatron-LM (--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16) or torchtitan (optimizer.implementation fused_opt_states_bf16); training.framework {} keeps fp32 moments.",
            framework.as_str()
        ))
    };
    if let Some(message) = why {
        c.push(FieldId::OptimizerStates, message);
    }
}

/// 16-bit master remainders only where Transformer Engine's `FusedAdam` keeps them
/// ([`super::MasterWeights`]): under Megatron-LM's precision-aware optimizer (distributed
/// optimizer only), for bf16 parameters, with no FP8 recipe but delayed scaling
/// (`optimizer_config.py` @d98e8a6, `use_precision_aware_optimizer_no_fp8_or_ds_fp8`).
fn master_remainder_rules(c: &mut Checker, s: &Scenario) {
    let t = &s.training;
    let why = if !t.framework().traits().precision_aware_optimizer {
        Some(format!(
            "16-bit master remainders are Megatron-LM's precision-aware optimizer (Transformer Engine FusedAdam); training.framework is {}.",
            t.framework().as_str()
        ))
    } else if s.parallel.zero_stage == 0 {
        Some("16-bit master remainders need Megatron-LM's precision-aware optimizer, which runs only with the distributed optimizer; parallel.zero_stage is 0 (use 1).".to_string())
    } else {
        match (t.precision, t.fp8_recipe()) {
            (Precision::Bf16, _) | (Precision::Fp8, Some(super::Fp8Recipe::Delayed)) => None,
            (Precision::Fp8, Some(r)) => Some(format!(
                "with the FP8 recipe {} Megatron-LM keeps its own fp32 master weights (remainders only with bf16 or delayed scaling).",
                r.as_str()
            )),
            (p, _) => Some(format!(
                "the master remainder completes a bf16 parameter; training.precision is {}.",
                p.as_str()
            )),
        }
    };
    if let Some(message) = why {
        c.push(FieldId::MasterWeights, message);
    }
}

/// Megatron-LM's recompute modules: selective recomputation under Megatron-LM, at least one
/// module, and each module's block in the model.
fn recompute_module_rules(c: &mut Checker, s: &Scenario, m: super::RecomputeModules) {
    use super::recompute_modules::RecomputeModules as M;
    let t = &s.training;
    let mut why = |message: String| c.push(FieldId::RecomputeModules, message);
    if t.recompute != super::Recompute::Selective {
        why(format!(
            "recompute modules choose what selective recomputation reruns; training.recompute is {}, not selective.",
            t.recompute.as_str()
        ));
    }
    if !t.framework().traits().recompute_modules {
        why(format!(
            "recompute modules are Megatron-LM's --recompute-modules; training.framework is {} (its selective recomputation checkpoints per operator).",
            t.framework().as_str()
        ));
    }
    if m.is_empty() {
        why("lists no module; leave it out for Megatron-LM's default (core_attn).".to_string());
    }
    let moe = s.model.moe.as_ref();
    if m.has(M::MLA_UP_PROJ) && s.model.mla.is_none() {
        why("mla_up_proj recomputes multi-head latent attention's up projections; the model has no model.mla.".to_string());
    }
    if m.has(M::MOE_ACT) && moe.is_none() {
        why(
            "moe_act recomputes the experts' activation; the model has no experts (model.moe)."
                .to_string(),
        );
    }
    if m.has(M::MOE) && moe.is_none() {
        why(
            "moe recomputes the mixture-of-experts layers; the model has no experts (model.moe)."
                .to_string(),
        );
    }
    if m.has(M::SHARED_EXPERTS) && moe.is_none_or(|x| x.shared_experts.unwrap_or(0) == 0) {
        why("shared_experts recomputes the shared experts; the model has none (model.moe.shared_experts).".to_string());
    }
}

/// Interleaving needs a pipeline, and the schedule matches `vp`.
fn pipeline_rules(c: &mut Checker, s: &Scenario) {
    use FieldId::{Pp, Schedule as Sched, Vp};
    let p = &s.parallel;
    if c.ok(&[Vp, Pp]) && p.vp > 1 && p.pp == 1 {
        c.push(
            Vp,
            format!("virtual pipeline {} needs pipeline parallel > 1.", p.vp),
        );
    }
    if let Some(sched) = p.schedule {
        if c.ok(&[Vp]) && !sched.needs_vp(p.vp) {
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
            c.push(Sched, rule);
        }
        dualpipe_rules(c, s, sched);
    }
    rounds_rule(c, s);
}

/// The pipeline rounds of a step (`parallel.pp_rounds`) each run an equal share of the step's
/// micro-batches `m = B/(b·d)`: the rounds divide `m`.
fn rounds_rule(c: &mut Checker, s: &Scenario) {
    use FieldId::{Dp, GlobalBatch, MicroBatch, PpRounds};
    let (t, p) = (&s.training, &s.parallel);
    let Some(r) = p.pp_rounds else { return };
    if !c.ok(&[PpRounds, GlobalBatch, MicroBatch, Dp]) {
        return;
    }
    let m =
        p.dp.checked_mul(t.micro_batch)
            .filter(|&per| per > 0)
            .map(|per| t.global_batch / per);
    if let Some(m) = m {
        if r == 0 || m % r != 0 {
            c.push(
                PpRounds,
                format!("{r} pipeline rounds do not divide the step's {m} micro-batches (global batch / (micro-batch × data parallel))."),
            );
        }
    }
}

/// DualPipe's conditions (deepseek-ai/DualPipe `dualpipe.py` / `dualpipev.py`, `step`): an even
/// number of ranks for DualPipe (the two directions meet in the middle), and at least `2·pp`
/// micro-batches (`m = B/(b·d)`), an even number for DualPipe (half go each way).
fn dualpipe_rules(c: &mut Checker, s: &Scenario, sched: Schedule) {
    use FieldId::{Dp, GlobalBatch, MicroBatch, Pp};
    if !matches!(sched, Schedule::DualPipe | Schedule::DualPipeV)
        || !c.ok(&[Pp, Dp, GlobalBatch, MicroBatch])
    {
        return;
    }
    let (p, t) = (&s.parallel, &s.training);
    if sched == Schedule::DualPipe && (p.pp < 2 || p.pp % 2 != 0) {
        c.push(
            Pp,
            format!(
                "dualpipe needs an even number of pipeline ranks ≥ 2, got pp = {}.",
                p.pp
            ),
        );
    }
    let per = t.micro_batch.saturating_mul(p.dp).max(1);
    let m = t.global_batch / per;
    let min = p.pp.saturating_mul(2);
    if m < min || (sched == Schedule::DualPipe && m % 2 != 0) {
        c.push(
            GlobalBatch,
            format!(
                "{} needs at least 2·pp = {min} micro-batches{} (m = global_batch / (micro_batch · dp)), got m = {m}.",
                sched.as_str(),
                if sched == Schedule::DualPipe { ", an even number" } else { "" }
            ),
        );
    }
}

/// The layers fill the stages: `layers_per_stage` has `pp` entries adding up to the layers,
/// each at least `vp`; without it, the layers cover `pp·vp` chunks.
fn stage_rules(c: &mut Checker, s: &Scenario) {
    use FieldId::{Layers, LayersPerStage, Pp, Vp};
    let (m, p) = (&s.model, &s.parallel);
    if !c.ok(&[Layers, Pp, Vp, LayersPerStage]) {
        return;
    }
    let Some(list) = &p.layers_per_stage else {
        if let Some(chunks) = p.pp.checked_mul(p.vp) {
            // Fewer layers than chunks is only possible with the NeMo rule (the embedding and
            // the loss count as a layer each; see engine::layout).
            let nemo = m.layers.saturating_add(2) % chunks == 0;
            if m.layers < chunks && !nemo {
                c.push(
                    Pp,
                    format!(
                        "{} layers cannot fill {} pipeline stages × {} chunks.",
                        m.layers, p.pp, p.vp
                    ),
                );
            }
        }
        return;
    };
    if list.len() as u64 != p.pp {
        c.push(
            LayersPerStage,
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
            LayersPerStage,
            format!(
                "layers_per_stage adds up to {sum} layers but the model has {}.",
                m.layers
            ),
        );
    }
    if let Some(i) = list.iter().position(|&x| x < p.vp) {
        c.push(
            LayersPerStage,
            format!(
                "stage {i} has {} layers, fewer than its {} model chunks (vp).",
                list[i], p.vp
            ),
        );
    }
}

/// The global batch splits into whole micro-batches on every data-parallel rank.
fn batch_rule(c: &mut Checker, s: &Scenario) {
    use FieldId::{Dp, GlobalBatch, MicroBatch};
    let (t, p) = (&s.training, &s.parallel);
    if !c.ok(&[GlobalBatch, MicroBatch, Dp]) {
        return;
    }
    match p.dp.checked_mul(t.micro_batch) {
        Some(per_step) if t.global_batch % per_step == 0 => {}
        _ => c.push(
            GlobalBatch,
            format!(
                "the global batch {} is not a multiple of micro-batch {} × data parallel {}.",
                t.global_batch, t.micro_batch, p.dp
            ),
        ),
    }
}

/// `num_gpus = tp·pp·dp·cp`.
fn gpu_count_rule(c: &mut Checker, s: &Scenario) {
    use FieldId::{Cp, Dp, NumGpus, Pp, Tp};
    let (p, cl) = (&s.parallel, &s.cluster);
    if !c.ok(&[NumGpus, Tp, Pp, Dp, Cp]) {
        return;
    }
    let product =
        p.tp.checked_mul(p.pp)
            .and_then(|x| x.checked_mul(p.dp))
            .and_then(|x| x.checked_mul(p.cp));
    if product != Some(cl.num_gpus) {
        let shown = product.map_or_else(|| "more than 2^64".to_string(), |x| x.to_string());
        c.push(
            NumGpus,
            format!(
                "{} GPUs do not match tp {} × pp {} × dp {} × cp {} = {shown}.",
                cl.num_gpus, p.tp, p.pp, p.dp, p.cp
            ),
        );
    }
}

/// The GPU preset exists and has a tensor-core peak for the precision; `spec` is the cluster's
/// [`gpu_spec`](super::Cluster::gpu_spec), `None` exactly for an unknown preset id.
fn gpu_rules(c: &mut Checker, s: &Scenario, spec: Option<&GpuSpec>) {
    let cl = &s.cluster;
    if let GpuChoice::Preset(id) = &cl.gpu {
        if spec.is_none() {
            let known: Vec<&str> = super::GPU_PRESETS.iter().map(|g| g.id).collect();
            let shown = super::error::printable(id, 40);
            c.push(
                FieldId::Gpu,
                format!("unknown GPU \"{shown}\"; known GPUs: {}.", known.join(", ")),
            );
        }
    }
    if let Some(spec) = spec {
        let pk = spec.peak_tflops;
        let peak = match s.training.precision {
            Precision::Fp32 => pk.tf32.or(pk.fp32),
            Precision::Fp16 => pk.fp16,
            Precision::Bf16 => pk.bf16,
            Precision::Fp8 => pk.fp8,
            Precision::Nvfp4 => pk.fp4,
        };
        if peak.is_none() {
            c.push(
                FieldId::Precision,
                format!(
                    "{} has no {} tensor-core peak; choose another precision.",
                    cl.gpu_name(),
                    s.training.precision.as_str()
                ),
            );
        } else if s.training.fp8_recipe() == Some(Fp8Recipe::Mxfp8)
            && pk.bf16.unwrap_or(0.0) < 1500.0
        {
            // MXFP8 (1×32 blocks with E8M0 scales) runs on Blackwell tensor cores only
            // (Transformer Engine `docs/features/low_precision_training`); Blackwell parts are
            // the ones with a bf16 peak of 1.5 PFLOP/s or more (the engine's `Generation`).
            c.push(
                FieldId::Fp8Recipe,
                format!(
                    "the mxfp8 recipe needs Blackwell tensor cores; {} cannot run it (use delayed, tensorwise, rowwise or blockwise).",
                    cl.gpu_name()
                ),
            );
        }
        // Fused attention kernels: FlashAttention-2 and cuDNN fused attention need Ampere or
        // newer (bf16 tensor cores), FlashAttention-3 is written for Hopper's wgmma/TMA only
        // (Dao-AILab/flash-attention README: "FlashAttention-3 ... H100/H800").
        let bf16 = pk.bf16.unwrap_or(0.0);
        let hopper = pk.fp8.is_some() && bf16 > 0.0 && bf16 < 1500.0;
        let why = match s.training.attention_kernel {
            Some(k) if pk.bf16.is_none() => Some(format!(
                "{} has no bf16 tensor cores; the {} kernel needs Ampere or newer.",
                cl.gpu_name(),
                k.as_str()
            )),
            Some(AttentionKernel::Fa3) if !hopper => Some(format!(
                "FlashAttention-3 runs on Hopper only, not on {}; use fa2 or cudnn.",
                cl.gpu_name()
            )),
            // The pre-MLIR Triton of MPT's kernel predates Blackwell (sm_100).
            Some(AttentionKernel::Triton) if pk.fp8.is_some() && !hopper => Some(format!(
                "MPT's Triton attention kernel runs on Ampere and Hopper only, not on {}; use \
                 fa2 or cudnn.",
                cl.gpu_name()
            )),
            Some(_) if !s.training.flash_attention => Some(
                "an attention kernel applies only with training.flash_attention on.".to_string(),
            ),
            _ => None,
        };
        if let Some(why) = why {
            c.push(FieldId::AttentionKernel, why);
        }
        // DeepEP's kernels need Ampere (SM80) or Hopper (SM90) and later (deepseek-ai/DeepEP
        // README @79bbb54, "Requirements").
        if s.parallel.moe_dispatcher == Some(super::MoeDispatcher::Deepep) && pk.bf16.is_none() {
            c.push(
                FieldId::MoeDispatcher,
                format!(
                    "DeepEP needs Ampere or newer GPUs; {} cannot run it (choose alltoall).",
                    cl.gpu_name()
                ),
            );
        }
    }
}
