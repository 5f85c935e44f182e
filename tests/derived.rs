//! The app shows the engine's derived quantities, never its own copies: the bucket marker, the
//! micro-batch count and bubble of the schedule chart, and every scaling efficiency are the
//! engine's fields, checked on plans where the app's former re-derivations disagreed with the
//! engine (context parallelism, 16-bit gradient reduction, uneven pipeline stages, several
//! compared strategies). Communication placement follows the GPU's NVLink domain, not
//! `cluster.gpus_per_node`, and the form's help says so.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::app::charts::bucket::fmt_mb;
use paracalc::app::charts::input::Chart;
use paracalc::app::charts::schedule::ScheduleData;
use paracalc::app::charts::style::{fmt_pct, ChartStyle};
use paracalc::app::components::charts_panel::{bucket_chart, scaling_chart};
use paracalc::engine::sweep::Scaling;
use paracalc::engine::{estimate, Estimate};
use paracalc::presets::model_preset;
use paracalc::scenario::{FieldId, GpuChoice, Scenario};

fn preset(id: &str) -> Scenario {
    model_preset(id).expect("preset exists").scenario()
}

fn est(s: &Scenario) -> Estimate {
    estimate(s).expect("valid scenario")
}

fn svg(chart: &Chart) -> String {
    chart
        .to_svg(&ChartStyle::light(), 800, 480)
        .expect("renders")
}

#[test]
fn bucket_marker_is_the_engines_bucket_for_the_dp_cp_group_and_bf16_gradients() {
    // The default page: Llama 3 8B, dp 4 × cp 2, NeMo's 16-bit gradient buffer.
    let s = preset("llama3-8b");
    assert_eq!(
        (s.parallel.dp, s.parallel.cp, s.parallel.zero_stage),
        (4, 2, 1)
    );
    assert_eq!(s.training.grad_reduce_in_fp32, Some(false));
    let e = est(&s);
    // Megatron DDP: max(4·10⁷, 10⁶·dp·cp = 8·10⁶) elements × 2 B (bf16) = 80 MB. The app's old
    // copy took dp alone and 4-byte gradients: 160 MB.
    assert_eq!(e.time.dp_bucket_bytes, 80e6);
    let chart = bucket_chart(&s, &e).expect("the sweep runs");
    let text = svg(&chart);
    assert!(
        text.contains(&format!("current {}", fmt_mb(80.0))),
        "{text}"
    );
    assert!(!text.contains("current 160 MB"));

    // fp32 gradient reduction at dp 32 × cp 2: 6.4·10⁷ elements × 4 B = 256 MB.
    let mut wide = s.clone();
    wide.training.grad_reduce_in_fp32 = Some(true);
    wide.parallel.dp = 32;
    wide.cluster.num_gpus = 64;
    wide.training.global_batch = 128;
    let e = est(&wide);
    assert_eq!(e.time.dp_bucket_bytes, 256e6);
    let text = svg(&bucket_chart(&wide, &e).expect("the sweep runs"));
    assert!(text.contains("current 256 MB"), "{text}");

    // An explicit bucket is the bucket.
    wide.parallel.bucket_mb = Some(25.0);
    assert_eq!(est(&wide).time.dp_bucket_bytes, 25e6);
}

#[test]
fn schedule_chart_shows_the_engines_micro_batches_and_bubble_on_uneven_stages() {
    // GPT-3 175B on 16 stages with the first and last stages lighter (Megatron-style uneven
    // split): the estimate's bubble is not the uniform formula (p−1)/(m+p−1).
    let mut s = paracalc::scenario::parse(include_str!("data/gpt3-175b-1024.json")).unwrap();
    let mut lps = vec![6u64; 16];
    lps[0] = 4;
    lps[15] = 4;
    lps[1] = 7;
    lps[2] = 7;
    lps[3] = 7;
    lps[4] = 7;
    assert_eq!(lps.iter().sum::<u64>(), s.model.layers);
    s.parallel.layers_per_stage = Some(lps);
    let e = est(&s);
    let t = &e.time;
    assert_eq!(
        t.micro_batches,
        s.training.global_batch / (s.training.micro_batch * s.parallel.dp)
    );
    let engine = t.bubble_s / t.step_s;
    assert_eq!(t.bubble_fraction(), engine);
    let (p, m) = (s.parallel.pp as f64, t.micro_batches as f64);
    let uniform = (p - 1.0) / (m + p - 1.0);
    assert_ne!(
        fmt_pct(engine),
        fmt_pct(uniform),
        "the plan must tell the two apart"
    );

    let d = ScheduleData::from_scenario(&s, t);
    assert_eq!(d.micro_batches, t.micro_batches);
    let chart = Chart::Schedule(d);
    let summary = chart.summary();
    assert!(
        summary.contains(&format!("{} micro-batches", t.micro_batches)),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("bubble {} of the step", fmt_pct(engine))),
        "{summary}"
    );
    let text = svg(&chart);
    assert!(
        text.contains(&format!("bubble {} of the step", fmt_pct(engine))),
        "{text}"
    );
}

#[test]
fn every_scaling_efficiency_shown_is_the_engines() {
    let s = paracalc::scenario::parse(include_str!("data/gpt3-175b-1024.json")).unwrap();
    let chart = scaling_chart(&s, Scaling::Strong);
    let Chart::Scaling(input) = &chart else {
        panic!("not a scaling chart");
    };
    // The strategies share one reference: the best tokens/s per GPU at the smallest count.
    let reference =
        paracalc::engine::sweep::efficiency_reference(input.series.iter().flat_map(|x| x.1.iter()))
            .expect("some point has a throughput");
    let summary = chart.summary();
    for (name, points) in &input.series {
        for p in points.iter().filter(|p| p.error.is_none()) {
            let want = p.tokens_per_s / p.num_gpus as f64 / reference;
            assert!(
                (p.scaling_efficiency - want).abs() < 1e-12,
                "{name} {}",
                p.num_gpus
            );
        }
        // The summary names each series' last point with the engine's efficiency.
        let last = points.iter().rev().find(|p| p.error.is_none()).unwrap();
        assert!(
            summary.contains(&format!(
                "{name}: {} at {} GPUs ({} efficiency)",
                paracalc::app::charts::style::fmt_rate(last.tokens_per_s, "tokens/s"),
                last.num_gpus,
                fmt_pct(last.scaling_efficiency)
            )),
            "{summary}"
        );
    }
    // The tooltip of the 1024-GPU column and the chart's caption give the same numbers.
    let pp = &input.series.iter().find(|x| x.0 == "PP + DP").unwrap().1;
    let at = pp.iter().find(|p| p.num_gpus == 1024).unwrap();
    let eff = fmt_pct(at.scaling_efficiency);
    let text = svg(&chart);
    let mut found = None;
    'scan: for y in (60..440).step_by(20) {
        for x in 0..800 {
            if let Some(tip) = chart.tooltip(800, 480, f64::from(x), f64::from(y)) {
                if tip.starts_with("1024 GPUs") {
                    found = Some(tip);
                    break 'scan;
                }
            }
        }
    }
    let tip = found.expect("a 1024-GPU column");
    assert!(
        tip.contains("PP + DP ") && tip.contains(&format!("({eff} eff.")),
        "{tip}"
    );
    let last_pp = pp.iter().rev().find(|p| p.error.is_none()).unwrap();
    // The caption wraps over text lines: compare its words.
    let words = svg_words(&text);
    assert!(
        words.contains(&format!(
            "PP + DP {} at {}",
            fmt_pct(last_pp.scaling_efficiency),
            last_pp.num_gpus
        )),
        "{text}"
    );
}

/// The text of an SVG without its tags, whitespace collapsed to single spaces.
fn svg_words(svg: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in svg.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_nvlink_domain_places_communication_and_gpus_per_node_does_not() {
    let s = paracalc::scenario::parse(include_str!("data/gpt3-175b-1024.json")).unwrap();
    let base = est(&s);
    // GPUs per node counts servers; it moves no collective.
    let mut nodes = s.clone();
    nodes.cluster.gpus_per_node = 4;
    assert_eq!(est(&nodes).time, base.time);
    assert_eq!(nodes.cluster.num_nodes(), 256);
    // A 4-GPU NVLink domain puts TP 8 on the network.
    let mut domain = s.clone();
    let GpuChoice::Preset(id) = &s.cluster.gpu else {
        panic!("preset GPU");
    };
    let mut custom = paracalc::scenario::CustomGpu::from_spec(
        "small-domain".into(),
        "A100, 4-GPU NVLink domain".into(),
        paracalc::scenario::gpu_preset(id).unwrap().spec,
    );
    custom.spec.nvlink_domain_gpus = 4;
    domain.cluster.gpu = GpuChoice::Custom(custom);
    let e = est(&domain);
    assert_eq!(
        base.comm.tp.link,
        paracalc::engine::time::comm::Link::Nvlink
    );
    assert_eq!(e.comm.tp.link, paracalc::engine::time::comm::Link::Network);
    assert!(e.time.step_s > base.time.step_s);
    // The form says which field does what.
    let node_help = FieldId::GpusPerNode.def().help;
    assert!(node_help.contains("NVLink domain"), "{node_help}");
    assert!(!node_help.contains("crosses the network"), "{node_help}");
    assert!(FieldId::GpuDomain.def().help.contains("NVLink"));
}
