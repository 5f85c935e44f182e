//! The verdict and its suggestions are computed by the engine: applying each suggestion to the
//! plan and estimating again gives what the suggestion says (shorter step, or a fit, or less
//! memory), the largest exposed cost is the largest non-compute part of the step, and the
//! fitting layouts offered for a failing plan fit on the same GPUs.

use paracalc::engine::advice::{
    closest_fitting, overflow, sentence, verdict, Change, Goal, Part, MIN_GAIN,
};
use paracalc::engine::estimate;
use paracalc::presets::{model_preset, MODEL_PRESETS};
use paracalc::scenario::{Recompute, Scenario};

fn preset(id: &str) -> Scenario {
    model_preset(id).unwrap().scenario()
}

/// Llama 3 70B on 128 H100s with tp 1, pp 1, dp 128 and no recomputation: 70 B parameters
/// replicated with their Adam states need far more than 80 GB.
fn llama70_oom() -> Scenario {
    let mut s = preset("llama3-70b");
    let p = &mut s.parallel;
    p.dp = s.cluster.num_gpus / 8;
    p.tp = 8;
    p.pp = 1;
    p.vp = 1;
    p.cp = 1;
    p.sp = true;
    p.zero_stage = 0;
    p.schedule = None;
    p.layers_per_stage = None;
    s.training.recompute = Recompute::None;
    s
}

#[test]
fn every_suggestion_does_what_it_says_for_every_preset() {
    let mut checked = 0;
    for p in MODEL_PRESETS {
        let s = p.scenario();
        let before = estimate(&s).unwrap();
        let v = verdict(&s, &before);
        // The parts add up to the step.
        let sum: f64 = Part::ALL.iter().map(|x| x.seconds(&before.time)).sum();
        assert!(
            (sum - before.time.step_s).abs() <= 1e-9 * before.time.step_s,
            "{}",
            p.id
        );
        for sug in &v.suggestions {
            let mut after = s.clone();
            sug.apply(&mut after);
            assert_eq!(
                after.cluster.num_gpus, s.cluster.num_gpus,
                "{}: same GPUs",
                p.id
            );
            let e = estimate(&after).unwrap();
            assert_eq!(e.time.step_s, sug.step_s, "{}: reported step", p.id);
            assert_eq!(e.memory.peak_bytes, sug.peak_bytes);
            match sug.goal {
                Goal::Faster => {
                    assert!(before.memory.fits && e.memory.fits, "{}", p.id);
                    assert!(
                        e.time.step_s < before.time.step_s * (1.0 - MIN_GAIN),
                        "{}: {} → {}",
                        p.id,
                        before.time.step_s,
                        e.time.step_s
                    );
                }
                Goal::Fits => assert!(!before.memory.fits && e.memory.fits, "{}", p.id),
                Goal::LessMemory => assert!(
                    !e.memory.fits && e.memory.peak_bytes < before.memory.peak_bytes,
                    "{}",
                    p.id
                ),
            }
            checked += 1;
        }
    }
    // Most presets are published layouts; still, the engine finds something better for some.
    assert!(checked >= 5, "only {checked} suggestions over all presets");
}

#[test]
fn largest_exposed_cost_is_the_largest_non_compute_part() {
    let s = preset("gpt3-175b");
    let e = estimate(&s).unwrap();
    let v = verdict(&s, &e);
    let (part, sec, share) = v.largest_exposed.unwrap();
    assert_ne!(part, Part::Compute);
    for x in Part::ALL {
        if x != Part::Compute {
            assert!(x.seconds(&e.time) <= sec, "{x:?} > {part:?}");
        }
    }
    assert!((share - sec / e.time.step_s).abs() < 1e-12);
    assert_eq!(
        v.dominant,
        Part::Compute,
        "compute dominates a published layout"
    );
    let text = sentence(&v);
    assert!(
        text.starts_with("Forward and backward compute is "),
        "{text}"
    );
    assert!(text.contains(part.label()), "{text}");
}

#[test]
fn exposed_dp_communication_is_named_and_bucket_or_overlap_helps() {
    // GPT-3 13B on tp 4 × dp 32 with one micro-batch per replica per step (global batch 32)
    // and DP overlap off: the whole gradient reduction of 13 B/4 parameters is exposed.
    let mut s = preset("gpt3-13b");
    s.training.global_batch = s.parallel.dp * s.training.micro_batch;
    s.parallel.dp_comm_overlap = Some(false);
    let e = estimate(&s).unwrap();
    let v = verdict(&s, &e);
    let (part, _, _) = v.largest_exposed.unwrap();
    assert_eq!(part, Part::Dp, "{}", sentence(&v));
    let text = sentence(&v).to_lowercase();
    assert!(
        text.contains("exposed data-parallel communication"),
        "{text}"
    );
    let overlap = v
        .suggestions
        .iter()
        .find(|x| x.changes == [Change::DpOverlap { on: true }])
        .expect("turning DP overlap on is among the suggestions");
    assert_eq!(overlap.goal, Goal::Faster);
    assert!(overlap.step_s < e.time.step_s * (1.0 - MIN_GAIN));
}

#[test]
fn a_plan_that_does_not_fit_gets_fixes_that_fit() {
    let s = llama70_oom();
    let e = estimate(&s).unwrap();
    assert!(!e.memory.fits);
    let v = verdict(&s, &e);
    assert!(!v.suggestions.is_empty());
    assert!(v.suggestions.iter().all(|x| x.goal != Goal::Faster));
    let near = closest_fitting(&s, 3);
    assert!(!near.is_empty(), "a fitting layout within two changes");
    let mut last_len = 0;
    for sug in &near {
        let mut after = s.clone();
        sug.apply(&mut after);
        assert_eq!(after.cluster.num_gpus, s.cluster.num_gpus);
        let p = &after.parallel;
        assert_eq!(p.tp * p.pp * p.dp * p.cp, s.cluster.num_gpus);
        let ea = estimate(&after).unwrap();
        assert!(ea.memory.fits);
        assert_eq!(ea.time.step_s, sug.step_s);
        assert!(sug.changes.len() >= last_len, "fewest changes first");
        last_len = sug.changes.len();
        assert!(!sug.describe(&s).is_empty());
    }
}

#[test]
fn overflow_parts_add_up_per_stage() {
    let s = llama70_oom();
    let e = estimate(&s).unwrap();
    let over = overflow(&e.memory);
    assert!(!over.is_empty());
    for o in &over {
        let st = &e.memory.stages()[o.stage as usize];
        let sum: f64 = o.parts.iter().map(|(_, b)| b).sum();
        assert!((sum - st.total_bytes).abs() < 1.0);
        assert!((o.over_bytes - (st.total_bytes - e.memory.capacity_bytes)).abs() < 1.0);
        assert!(o.over_bytes > 0.0);
    }
    assert!(over.windows(2).all(|w| w[0].over_bytes >= w[1].over_bytes));
    // A fitting plan has no overflow.
    let ok = estimate(&preset("llama3-70b")).unwrap();
    assert!(ok.memory.fits && overflow(&ok.memory).is_empty());
}

#[test]
fn change_descriptions_name_old_and_new_values() {
    let s = preset("llama3-70b");
    let p = &s.parallel;
    let c = Change::Pp {
        pp: p.pp * 2,
        dp: p.dp / 2,
    };
    assert_eq!(
        c.describe(&s),
        format!("pp {} → {} (dp {} → {})", p.pp, p.pp * 2, p.dp, p.dp / 2)
    );
    assert_eq!(
        Change::Recompute {
            mode: Recompute::Full
        }
        .describe(&s),
        "recompute none → full"
    );
}

#[test]
fn suggestions_respect_the_framework() {
    use paracalc::engine::search::Layout;
    use paracalc::engine::support::unsupported;
    for fw in paracalc::scenario::Framework::ALL {
        let mut s = llama70_oom();
        s.training.framework = Some(*fw);
        let e = estimate(&s).unwrap();
        let v = verdict(&s, &e);
        for sug in v.suggestions.iter().chain(&closest_fitting(&s, 5)) {
            let mut after = s.clone();
            sug.apply(&mut after);
            assert_eq!(
                unsupported(*fw, &Layout::of(&after)),
                None,
                "{fw:?}: {}",
                sug.describe(&s)
            );
        }
    }
}

#[test]
fn a_step_that_is_all_compute_says_so() {
    // Llama 3 8B's published layout: compute is ~100 % of the step; the largest other part is
    // under 1 % and the sentence says that instead of naming a 0 % cost.
    let s = preset("llama3-8b");
    let e = estimate(&s).unwrap();
    let v = verdict(&s, &e);
    let (_, _, share) = v.largest_exposed.unwrap();
    assert!(share < 0.01, "{share}");
    assert!(
        sentence(&v).ends_with("every other part is under 1 % of the step."),
        "{}",
        sentence(&v)
    );
}

/// Hugging Face BERT-large in fp16 on one V100 (transformers `perf_train_gpu_one.md`): the eager
/// host's wait (its optimizer loop over 387 tensors, 36.8 ms, beyond the 17.6 ms update: 19.1 ms;
/// nothing per micro-batch) is the largest exposed cost, and is named as such.
#[test]
fn the_eager_host_wait_is_a_part_of_the_verdict() {
    let s = paracalc::scenario::parse(
        r#"{"model": {"name": "bert-large", "layers": 24, "hidden": 1024, "heads": 16,
             "ffn_hidden": 4096, "ffn_act": "gelu", "vocab": 30522, "seq_len": 512,
             "tied_embeddings": true},
          "training": {"global_batch": 4, "micro_batch": 4, "precision": "fp16",
             "recompute": "none", "flash_attention": false, "framework": "pytorch"},
          "parallel": {"tp": 1, "pp": 1, "dp": 1},
          "cluster": {"gpu": "v100-sxm2-16gb", "num_gpus": 1}}"#,
    )
    .unwrap();
    let e = estimate(&s).unwrap();
    assert!(e.time.host_s > e.time.optimizer_s, "{:?}", e.time);
    let v = verdict(&s, &e);
    let (part, sec, _) = v.largest_exposed.unwrap();
    assert_eq!(part, Part::Host);
    assert_eq!(sec, e.time.host_s);
    assert!(sentence(&v).contains("eager host"), "{}", sentence(&v));
    // The way out is named: a compiled graph with a fused optimizer (eager off) removes the
    // host's wait and fuses the eager BERT layer's element-wise operators (host.md §3),
    // so the step shortens by host_s plus the compute the fusion saves, and by nothing else.
    let first = &v.suggestions[0];
    assert_eq!(first.changes, vec![Change::Eager { on: false }]);
    let mut compiled = s.clone();
    compiled.training.eager = Some(false);
    let c = estimate(&compiled).unwrap();
    assert_eq!(c.time.host_s, 0.0);
    let fused = e.time.compute_s - c.time.compute_s;
    assert!(fused > 0.0, "{fused}");
    assert!((e.time.step_s - first.step_s - e.time.host_s - fused).abs() < 1e-12);
    assert!(first.changes[0].describe(&s).contains("torch.compile"));
}

#[test]
fn an_fp8_megatron_plan_is_offered_fp8_primary_weights() {
    // Llama 3 8B in FP8 on 8 GPUs, data parallel with the distributed optimizer: the 16-bit
    // copy of the GEMM weights is memory the plan can drop (Megatron-LM --fp8-param-gather).
    let mut s = preset("llama3-8b");
    s.training.precision = paracalc::scenario::Precision::Fp8;
    s.parallel.cp = 1;
    s.parallel.dp = 8;
    s.parallel.zero_stage = 1;
    let e = estimate(&s).unwrap();
    let v = verdict(&s, &e);
    let mut offered = v
        .suggestions
        .iter()
        .chain(closest_fitting(&s, 20).iter())
        .filter(|x| x.changes.contains(&Change::Fp8Params { on: true }))
        .cloned()
        .collect::<Vec<_>>();
    assert!(!offered.is_empty(), "FP8 primary weights are offered");
    // What it says is what the estimate gives: 2 B less per GEMM weight.
    let sug = offered.remove(0);
    let mut after = s.clone();
    sug.apply(&mut after);
    assert_eq!(after.training.fp8_params, Some(true));
    let ea = estimate(&after).unwrap();
    assert_eq!(ea.memory.peak_bytes, sug.peak_bytes);
    assert!(sug.peak_bytes < e.memory.peak_bytes);
    assert_eq!(
        Change::Fp8Params { on: true }.describe(&s),
        "FP8 primary weights on (--fp8-param-gather)"
    );
    // Not offered where Megatron-LM cannot run it: bf16, another stack, no distributed
    // optimizer.
    for change in [
        |s: &mut Scenario| s.training.precision = paracalc::scenario::Precision::Bf16,
        |s: &mut Scenario| s.training.framework = Some(paracalc::scenario::Framework::Torchtitan),
        |s: &mut Scenario| s.parallel.zero_stage = 0,
    ] {
        let mut t = s.clone();
        change(&mut t);
        assert!(!paracalc::engine::advice::candidates(&t).contains(&Change::Fp8Params { on: true }));
    }
}

#[test]
fn a_network_bound_moe_plan_is_offered_deepep() {
    // DeepSeek-V3 on 2048 H800s with the all-to-all dispatcher at EP 64 over 8 nodes: the
    // expert all-to-all is the largest exposed cost, and DeepEP (a token once per node and GPU
    // holding its experts) is offered with the step the engine predicts for it.
    let mut s = preset("deepseek-v3");
    s.training.precision = paracalc::scenario::Precision::Bf16;
    s.parallel.tp = 2;
    s.parallel.dp = 64;
    s.parallel.sp = true;
    s.training.recompute = Recompute::Full;
    let e = estimate(&s).unwrap();
    assert!(e.memory.fits, "{}", e.memory.peak_bytes / 1073741824.0);
    let v = verdict(&s, &e);
    let deepep = Change::Dispatcher { deepep: true };
    let sug = v
        .suggestions
        .iter()
        .find(|x| x.changes == [deepep])
        .unwrap_or_else(|| panic!("DeepEP not offered: {}", sentence(&v)));
    let mut after = s.clone();
    sug.apply(&mut after);
    assert_eq!(
        after.parallel.moe_dispatcher,
        Some(paracalc::scenario::MoeDispatcher::Deepep)
    );
    let ea = estimate(&after).unwrap();
    assert_eq!(ea.time.step_s, sug.step_s);
    assert!(ea.time.exposed_comm_s.ep < e.time.exposed_comm_s.ep);
    assert_eq!(
        deepep.describe(&s),
        "MoE dispatch all-to-all → DeepEP (--moe-enable-deepep)"
    );
    // Never offered without expert parallelism, on a stack without DeepEP or on a V100: the
    // first two have no such candidate, the others fail validation, naming the field.
    let dense = preset("llama3-70b");
    let mut ep1 = s.clone();
    ep1.parallel.ep = 1;
    for t in [dense, ep1] {
        let c = paracalc::engine::advice::candidates(&t);
        assert!(!c.iter().any(|x| matches!(x, Change::Dispatcher { .. })));
    }
    let mixtral = preset("mixtral-8x7b");
    assert!(paracalc::engine::advice::candidates(&mixtral).contains(&deepep));
    let mut ds = s.clone();
    ds.training.framework = Some(paracalc::scenario::Framework::Deepspeed);
    let mut jax = s.clone();
    jax.training.framework = Some(paracalc::scenario::Framework::Jax);
    let mut v100 = mixtral.clone();
    v100.cluster.gpu = paracalc::scenario::GpuChoice::Preset("v100-sxm2-32gb".into());
    v100.training.precision = paracalc::scenario::Precision::Fp16;
    for (t, why) in [
        (ds, "deepspeed does not use"),
        (jax, "jax does not use"),
        (v100, "Ampere or newer"),
    ] {
        let mut d = t.clone();
        deepep.apply(&mut d);
        let err = d.validate().unwrap_err().to_string();
        assert!(
            err.contains("parallel.moe_dispatcher") && err.contains(why),
            "{err}"
        );
        if let Ok(e) = estimate(&t) {
            let v = verdict(&t, &e);
            assert!(!v.suggestions.iter().any(|x| x.changes == [deepep]));
        }
    }
}

#[test]
fn mla_on_blackwell_says_what_an_older_transformer_engine_costs() {
    use paracalc::engine::stack_notes::stack_notes;
    use paracalc::scenario::{Framework, GpuChoice};
    // DeepSeek-V3 on 128 GB200 as DGX Cloud's v25.05 recipe laid it out (TP 2, PP 4, EP 32).
    let mut s = preset("deepseek-v3");
    s.training.precision = paracalc::scenario::Precision::Bf16;
    s.cluster.gpu = GpuChoice::Preset("gb200".into());
    s.cluster.num_gpus = 128;
    s.cluster.gpus_per_node = 4;
    s.parallel.tp = 2;
    s.parallel.sp = true;
    s.parallel.pp = 4;
    s.parallel.dp = 16;
    s.parallel.ep = 32;
    s.training.global_batch = 1024;
    let e = estimate(&s).unwrap();
    let v = verdict(&s, &e);
    assert_eq!(v.stack_notes.len(), 1, "{:?}", v.stack_notes);
    let n = &v.stack_notes[0];
    assert!(
        n.text.contains("192 wide") && n.text.contains("cuDNN 9.11"),
        "{}",
        n.text
    );
    // The note's numbers are the same plan with the attention unfused.
    let mut old = s.clone();
    old.training.flash_attention = false;
    let o = estimate(&old).unwrap();
    assert_eq!(
        (n.step_s, n.peak_bytes, n.fits),
        (o.time.step_s, o.memory.peak_bytes, o.memory.fits)
    );
    // With the preset's selective recomputation (the attention core) it still fits, 1.68x
    // slower; without recomputation the unfused scores do not fit (the v25.05 recipe's reason to
    // recompute `core_attn` on GB200).
    assert!(
        n.step_s > 1.5 * e.time.step_s && n.fits,
        "{} vs {}",
        n.step_s,
        e.time.step_s
    );
    let mut none = s.clone();
    none.training.recompute = Recompute::None;
    let notes = stack_notes(&none);
    assert!(!notes[0].fits, "{}", notes[0].peak_bytes / 1073741824.0);
    // No note on Hopper, for another stack or kernel, with the attention already unfused, or
    // without MLA.
    let mut h100 = s.clone();
    h100.cluster.gpu = GpuChoice::Preset("h100-sxm5-80gb".into());
    let mut tt = s.clone();
    tt.training.framework = Some(Framework::Torchtitan);
    let mut fa = s.clone();
    fa.training.attention_kernel = Some(paracalc::scenario::AttentionKernel::Fa3);
    let mut mha = s.clone();
    mha.model.mla = None;
    for t in [h100, tt, fa, old, mha] {
        assert!(stack_notes(&t).is_empty(), "{:?}", t.cluster.gpu);
    }
}
