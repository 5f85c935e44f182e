//! Every chart rendered natively to SVG for hand-built data (the engine is not involved): titles,
//! axis titles, captions, and the number of bars / blocks / points by their distinctive colour.
//! Plus the hit-tests, degenerate input, and both themes.
//! Native only: the browser tests (canvas drawing, redraw timing) are in `tests/web_charts.rs`.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::app::charts::{
    self, bucket, memory, scaling, schedule, search, style, time, ChartData, ChartKind, ChartStyle,
};
use paracalc::engine::search::{Layout, Ranked, SearchReport};
use paracalc::engine::sweep::{BucketPoint, GpuPoint, Scaling};
use paracalc::engine::{MemoryEstimate, StageMemory, Throughput, TimeEstimate};
use paracalc::scenario::{Recompute, Schedule};
use plotters::style::RGBColor;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const W: u32 = 800;
const H: u32 = 480;

fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Elements `<tag …>` whose attribute `attr` is `"value"`, and that contain every `also` text.
fn count(svg: &str, tag: &str, attr: &str, value: &str, also: &[&str]) -> usize {
    let open = format!("<{tag} ");
    let want = format!("{attr}=\"{value}\"");
    svg.split('<')
        .map(|e| format!("<{e}"))
        .filter(|e| e.starts_with(&open) && e.contains(&want) && also.iter().all(|a| e.contains(a)))
        .count()
}

/// The text content of every `<text>` element, trimmed.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|x| x.1))
        .filter_map(|t| t.split("</text>").next())
        .map(|t| t.trim().to_string())
        .collect()
}

fn has_text(svg: &str, label: &str) -> bool {
    texts(svg).iter().any(|t| t == label)
}

fn svg(data: &ChartData<'_>) -> String {
    charts::to_svg(data, &ChartStyle::light(), W, H).unwrap()
}

fn stage(i: u64, w: f64, g: f64, o: f64, a: f64, x: f64) -> StageMemory {
    StageMemory {
        stage: i,
        layers: 8,
        weights_bytes: w * GIB,
        gradients_bytes: g * GIB,
        optimizer_bytes: o * GIB,
        activations_bytes: a * GIB,
        other_bytes: x * GIB,
        total_bytes: (w + g + o + a + x) * GIB,
        ..StageMemory::default()
    }
}

/// 4 stages on an 80 GiB GPU: totals 75, 70, 90, 93 GiB, so stages 2 and 3 are over.
fn memory_data() -> MemoryEstimate {
    let stages = vec![
        stage(0, 10.0, 10.0, 20.0, 30.0, 5.0),
        stage(1, 10.0, 10.0, 20.0, 25.0, 5.0),
        stage(2, 10.0, 10.0, 20.0, 45.0, 5.0),
        stage(3, 12.0, 12.0, 24.0, 40.0, 5.0),
    ];
    MemoryEstimate {
        rows: stages.into(),
        peak_bytes: 93.0 * GIB,
        peak_stage: 3,
        capacity_bytes: 80.0 * GIB,
        headroom_bytes: -13.0 * GIB,
        fits: false,
        ..MemoryEstimate::default()
    }
}

#[test]
fn memory_chart_has_one_segment_per_component_and_red_outlines() {
    let p = style::Palette::LIGHT;
    let m = memory_data();
    let s = svg(&ChartData::Memory(&m));
    assert!(s.contains("Memory per GPU by pipeline stage"));
    assert!(s.contains("Pipeline stage"));
    assert!(s.contains("Memory per GPU (GiB)"));
    assert!(s.contains("2 of 4 stages over the 80.0 GiB usable (peak 93.0 GiB on stage 3)"));
    assert!(s.contains("capacity 80.0 GiB"));
    // Each component: 4 bar segments + 1 legend swatch.
    for c in [p.weights, p.gradients, p.optimizer, p.activations, p.other] {
        assert_eq!(count(&s, "rect", "fill", &hex(c), &[]), 5, "{}", hex(c));
    }
    // Over capacity: 2 red outlines + 1 legend swatch, 2 tinted overflows.
    assert_eq!(
        count(&s, "rect", "stroke", &hex(p.danger), &["fill=\"none\""]),
        3
    );
    assert_eq!(
        count(&s, "rect", "fill", &hex(p.danger), &["opacity=\"0.35\""]),
        2
    );
    for label in [
        "Weights",
        "Gradients",
        "Optimizer states",
        "Activations",
        "Overhead",
    ] {
        assert!(has_text(&s, label), "{label}");
    }
}

#[test]
fn memory_chart_fits_and_says_so() {
    let mut m = memory_data();
    m.rows = m.stages()[..2].to_vec().into();
    let s = svg(&ChartData::Memory(&m));
    assert!(s.contains("peak 75.0 GiB on stage 0 of 80.0 GiB usable: fits, 5.0 GiB headroom"));
    let red = hex(style::Palette::LIGHT.danger);
    assert_eq!(count(&s, "rect", "stroke", &red, &[]), 0);
}

#[test]
fn memory_chart_stays_readable_at_pp_64() {
    let p = style::Palette::LIGHT;
    let m = MemoryEstimate {
        rows: (0..64)
            .map(|i| stage(i, 2.0, 2.0, 4.0, 10.0 + i as f64 * 0.1, 3.0))
            .collect::<Vec<_>>()
            .into(),
        capacity_bytes: 80.0 * GIB,
        ..MemoryEstimate::default()
    };
    let s = svg(&ChartData::Memory(&m));
    assert_eq!(count(&s, "rect", "fill", &hex(p.weights), &[]), 65);
    // Sparse stage labels: at most 16 numeric tick labels along x (plus y ticks).
    let numeric = texts(&s)
        .iter()
        .filter(|t| t.parse::<u32>().is_ok())
        .count();
    assert!((8..=16 + 8).contains(&numeric), "{numeric} numeric labels");
    // Bars are at least 1 px wide: 64 stages over ~718 px.
    let w = s
        .split("<rect ")
        .filter(|e| e.contains(&format!("fill=\"{}\"", hex(p.weights))))
        .filter_map(|e| {
            e.split("width=\"")
                .nth(1)?
                .split('"')
                .next()?
                .parse::<i32>()
                .ok()
        })
        .min()
        .unwrap();
    assert!(w >= 4, "bar width {w}");
}

#[test]
fn memory_hit_test_finds_exact_segment() {
    let m = memory_data();
    for (stage, comp, gib) in [
        (2usize, memory::Component::Activations, 45.0),
        (0, memory::Component::Weights, 10.0),
        (3, memory::Component::OptimizerStates, 24.0),
        (1, memory::Component::Other, 5.0),
    ] {
        let (x, y) = memory::segment_center(&m, W, H, stage, comp).unwrap();
        let seg = memory::segment_at(&m, W, H, x, y).unwrap();
        assert_eq!(seg.stage, stage as u64);
        assert_eq!(seg.component, comp);
        assert_eq!(seg.bytes, gib * GIB);
    }
    // Between bars and outside the plot: nothing.
    let (x0, y0) = memory::segment_center(&m, W, H, 0, memory::Component::Weights).unwrap();
    let (x1, _) = memory::segment_center(&m, W, H, 1, memory::Component::Weights).unwrap();
    assert_eq!(memory::segment_at(&m, W, H, (x0 + x1) / 2.0, y0), None);
    assert_eq!(memory::segment_at(&m, W, H, 2.0, 2.0), None);
    // Scale invariance (CSS px vs device px layout): the same relative point hits the same part.
    let (x, y) =
        memory::segment_center(&m, 2 * W, 2 * H, 2, memory::Component::Activations).unwrap();
    assert_eq!(
        memory::segment_at(&m, 2 * W, 2 * H, x, y).map(|s| s.component),
        Some(memory::Component::Activations)
    );
}

#[test]
fn memory_degenerate_input_draws_a_message() {
    let empty = MemoryEstimate::default();
    let s = svg(&ChartData::Memory(&empty));
    assert!(s.contains("No pipeline stages to show."));
    assert_eq!(memory::segment_at(&empty, W, H, 100.0, 100.0), None);
    let zeros = MemoryEstimate {
        rows: vec![StageMemory::default(); 4].into(),
        ..MemoryEstimate::default()
    };
    assert!(svg(&ChartData::Memory(&zeros)).contains("All memory figures are zero"));
    let mut nan = memory_data();
    let mut rows = nan.stages();
    rows[1].activations_bytes = f64::NAN;
    rows[2].weights_bytes = f64::INFINITY;
    nan.rows = rows.into();
    nan.capacity_bytes = f64::NAN;
    let s = svg(&ChartData::Memory(&nan));
    assert!(!s.contains("NaN") && !s.contains("inf"));
    // Tiny canvas: a message, not a panic.
    let s = charts::to_svg(
        &ChartData::Memory(&memory_data()),
        &ChartStyle::light(),
        40,
        30,
    )
    .unwrap();
    assert!(s.contains("<svg"));
}

fn time_data() -> (TimeEstimate, Throughput) {
    let mut t = TimeEstimate {
        forward_s: 0.4,
        backward_s: 0.8,
        compute_s: 1.2,
        recompute_s: 0.1,
        bubble_s: 0.15,
        optimizer_s: 0.02,
        micro_batches: 8,
        ..TimeEstimate::default()
    };
    t.exposed_comm_s.tp = 0.05;
    t.exposed_comm_s.pp = 0.02;
    t.exposed_comm_s.dp = 0.03;
    t.hidden_comm_s.tp = 0.1;
    t.hidden_comm_s.dp = 0.2;
    // 1.2 + 0.1 + 0.15 + 0.02 + 0.10 = 1.57 s
    t.step_s = 1.57;
    let th = Throughput {
        tokens_per_s: 1.25e6,
        samples_per_s: 610.0,
        tflops_per_gpu: 400.0,
        mfu: 0.42,
        hfu: 0.45,
        ..Throughput::default()
    };
    (t, th)
}

/// The time chart of `time` and `throughput` on its own scale.
fn time_chart<'a>(time: &'a TimeEstimate, throughput: &'a Throughput) -> ChartData<'a> {
    ChartData::Time(time::TimeData {
        time,
        throughput,
        scale_s: None,
        uncalibrated_s: None,
    })
}

#[test]
fn time_chart_has_every_part_once_and_hidden_bar_apart() {
    let p = style::Palette::LIGHT;
    let st = ChartStyle::light();
    let (t, th) = time_data();
    let s = svg(&time_chart(&t, &th));
    assert!(s.contains("Step time breakdown"));
    assert!(s.contains("step 1.57 s · MFU 42.0% · 1.25 M tokens/s · 610 samples/s"));
    assert!(s.contains("Time per step (s)"));
    assert!(s.contains("Critical path") && s.contains("Hidden comm"));
    assert!(s.contains("Forward 400 ms") && s.contains("hidden DP comm 200 ms"));
    // 8 critical-path parts: one bar segment + one legend swatch each.
    for c in [
        p.forward,
        p.backward,
        p.recompute,
        p.tp,
        p.pp,
        p.dp,
        p.bubble,
        p.optimizer,
    ] {
        assert_eq!(count(&s, "rect", "fill", &hex(c), &[]), 2, "{}", hex(c));
    }
    // No CP/EP time: no CP/EP segments.
    assert_eq!(count(&s, "rect", "fill", &hex(p.cp), &[]), 0);
    // Hidden TP and DP: faded fill (bar + legend) with an outline in the full colour.
    for c in [p.tp, p.dp] {
        assert_eq!(count(&s, "rect", "fill", &hex(st.faded(c, 0.55)), &[]), 2);
        assert_eq!(count(&s, "rect", "stroke", &hex(c), &["fill=\"none\""]), 2);
    }
}

#[test]
fn time_hit_test_and_degenerate_input() {
    let (t, th) = time_data();
    let d = time::TimeData {
        time: &t,
        throughput: &th,
        scale_s: None,
        uncalibrated_s: None,
    };
    // Walk along the critical-path row and collect the parts in order.
    let mut seen = Vec::new();
    let y = (0..H)
        .map(f64::from)
        .find(|&y| time::segment_at(&d, W, H, 110.0, y).is_some_and(|s| !s.hidden))
        .unwrap();
    for x in 0..W {
        if let Some(seg) = time::segment_at(&d, W, H, f64::from(x), y + 2.0) {
            if seen.last() != Some(&seg.part) {
                seen.push(seg.part);
            }
        }
    }
    use time::Part::*;
    assert_eq!(
        seen,
        vec![Forward, Backward, Recompute, Tp, Pp, Dp, Bubble, Optimizer]
    );
    let zero = TimeEstimate::default();
    let s = svg(&time_chart(&zero, &Throughput::default()));
    assert!(s.contains("All step-time parts are zero"));
    // Only compute known (no forward/backward split): one "Compute" segment.
    let only = TimeEstimate {
        compute_s: 2.0,
        step_s: 2.0,
        ..TimeEstimate::default()
    };
    let s = svg(&time_chart(&only, &th));
    assert!(s.contains("Compute 2.00 s"));
}

fn gpu_point(n: u64, tps: f64, fits: bool) -> GpuPoint {
    GpuPoint {
        num_gpus: n,
        tp: 8,
        pp: 1,
        dp: n / 8,
        cp: 1,
        global_batch: 1024,
        step_s: 1.0,
        tokens_per_s: tps,
        mfu: 0.4,
        scaling_efficiency: 1.0,
        fits,
        fixed: Default::default(),
        error: None,
    }
}

/// 8 → 1024 GPUs scaling linearly, `tokens_per_gpu` each, every plan fitting.
fn linear_points(tokens_per_gpu: f64) -> Vec<GpuPoint> {
    (3..=10)
        .map(|k| gpu_point(1 << k, tokens_per_gpu * (1u64 << k) as f64, true))
        .collect()
}

/// DP only: 8 → 1024 GPUs, losing 5 % of linear per doubling.
fn dp_only_points() -> Vec<GpuPoint> {
    (3..=10)
        .map(|k| {
            let n = 1u64 << k;
            gpu_point(n, 1e4 * n as f64 * (1.0 - 0.05 * (k - 3) as f64), true)
        })
        .collect()
}

/// PP+DP: 8 → 1024 GPUs at 95 % of linear; 1024 GPUs does not fit.
fn pp_dp_points() -> Vec<GpuPoint> {
    (3..=10)
        .map(|k| {
            let n = 1u64 << k;
            gpu_point(n, 0.95e4 * n as f64, k != 10)
        })
        .collect()
}

/// [`dp_only_points`] and [`pp_dp_points`] with the engine's scaling efficiency against their
/// shared reference (DP only at 8 GPUs).
fn compared_points() -> (Vec<GpuPoint>, Vec<GpuPoint>) {
    let (mut dp, mut pp) = (dp_only_points(), pp_dp_points());
    paracalc::engine::sweep::set_scaling_efficiency(&mut [&mut dp, &mut pp]);
    (dp, pp)
}

/// The "DP only" and "PP+DP" series over `dp` and `pp`.
fn dp_and_pp_series<'a>(dp: &'a [GpuPoint], pp: &'a [GpuPoint]) -> [scaling::ScalingSeries<'a>; 2] {
    [
        scaling::ScalingSeries {
            name: "DP only",
            points: dp,
        },
        scaling::ScalingSeries {
            name: "PP+DP",
            points: pp,
        },
    ]
}

/// A strong-scaling chart of `series` with the current count at 64 and no band or twin.
fn strong_scaling<'a>(series: &'a [scaling::ScalingSeries<'a>]) -> scaling::ScalingData<'a> {
    scaling::ScalingData {
        series,
        scaling: Scaling::Strong,
        current_gpus: Some(64),
        band: None,
        uncalibrated: None,
    }
}

#[test]
fn scaling_chart_names_where_the_fixed_costs_take_over() {
    // GPT-3 1.3B, micro-batch 1, 512 sequences per step on A100s, 8 → 512 GPUs: the data-parallel
    // reduction after the last backward reaches a tenth of the step at 512 GPUs.
    let preset = paracalc::presets::model_preset("gpt3-1.3b");
    let mut s = preset.map(|p| p.scenario()).unwrap();
    s.training.micro_batch = 1;
    let pts = paracalc::engine::sweep::sweep_gpus(&s, &[8, 64, 256, 512], Scaling::Strong);
    let series = [scaling::ScalingSeries {
        name: "DP only",
        points: &pts,
    }];
    let data = scaling::ScalingData {
        current_gpus: None,
        ..strong_scaling(&series)
    };
    // The caption wraps over lines: its words joined back.
    let caption = texts(&svg(&ChartData::Scaling(data))).join(" ");
    assert!(
        caption.contains("fixed costs per step 19.1% of the step from 512 GPUs, most of it the data-parallel reduction after the last backward"),
        "{caption}"
    );
    assert!(scaling::summary(&data)
        .contains("From 512 GPUs the costs paid once per step are 19.1% of the step"));
}

#[test]
fn scaling_chart_draws_each_strategy_and_the_ideal() {
    let p = style::Palette::LIGHT;
    // DP only falls off; PP+DP keeps up (8 → 1024 GPUs, 8 points each); one DP point fails.
    let (dp, mut pp) = compared_points();
    pp.push(GpuPoint {
        error: Some("tp does not divide heads".into()),
        ..gpu_point(2048, 0.0, false)
    });
    let series = dp_and_pp_series(&dp, &pp);
    let data = scaling::ScalingData {
        series: &series,
        scaling: Scaling::Strong,
        current_gpus: Some(64),
        band: None,
        uncalibrated: None,
    };
    let s = svg(&ChartData::Scaling(data));
    assert!(s.contains("Strong scaling: throughput vs GPUs (global batch fixed)"));
    assert!(s.contains("Throughput (tokens/s)"));
    assert!(s.contains("Scaling efficiency (%)"));
    assert!(s.contains("GPUs (log₂ scale)"));
    assert!(has_text(&s, "1024") && has_text(&s, "8"));
    assert!(has_text(&s, "DP only") && has_text(&s, "Linear ideal"));
    // 8 points in each panel for DP only (series colour 0); PP+DP: 7 fitting in its colour,
    // 1 not fitting in red, per panel; the errored point is not drawn.
    assert_eq!(count(&s, "circle", "fill", &hex(p.series[0]), &[]), 16);
    assert_eq!(count(&s, "circle", "fill", &hex(p.series[1]), &[]), 14);
    // 2 red points + the legend dot.
    assert_eq!(count(&s, "circle", "fill", &hex(p.danger), &[]), 3);
    // Efficiency vs the shared reference (DP only at 8 GPUs): DP at 1024 = 65%, PP = 95%.
    assert!(
        s.contains("DP only 65.0% at 1024 · PP+DP 95.0% at 1024"),
        "{}",
        s.len()
    );

    let weak = scaling::ScalingData {
        scaling: Scaling::Weak,
        ..data
    };
    assert!(svg(&ChartData::Scaling(weak)).contains("Weak scaling"));
    let none = scaling::ScalingData {
        series: &[],
        scaling: Scaling::Strong,
        current_gpus: None,
        band: None,
        uncalibrated: None,
    };
    assert!(svg(&ChartData::Scaling(none)).contains("No scaling points to show."));
    // A single point still draws (a range is made around it).
    let one = [gpu_point(8, 8e4, true)];
    let single = [scaling::ScalingSeries {
        name: "3D",
        points: &one,
    }];
    let s = svg(&ChartData::Scaling(scaling::ScalingData {
        series: &single,
        scaling: Scaling::Strong,
        current_gpus: None,
        band: None,
        uncalibrated: None,
    }));
    assert_eq!(count(&s, "circle", "fill", &hex(p.series[0]), &[]), 2);
}

/// 1 MB … 4096 MB: latency-bound at the small end, late start at the large end.
fn bucket_sweep() -> Vec<BucketPoint> {
    (0..13)
        .map(|i| {
            let mb = f64::from(1u32 << i);
            let exposed = 0.2 / mb.sqrt() + 0.0005 * mb / 16.0;
            BucketPoint {
                bucket_mb: mb,
                exposed_dp_s: exposed,
                hidden_dp_s: 0.3 - exposed.min(0.3),
                step_s: 1.0 + exposed,
            }
        })
        .collect()
}

#[test]
fn bucket_chart_marks_the_current_setting() {
    let p = style::Palette::LIGHT;
    let pts = bucket_sweep();
    let d = bucket::BucketData {
        points: &pts,
        current_mb: Some(32.0),
    };
    let s = svg(&ChartData::Bucket(d));
    assert!(s.contains("Gradient bucket size vs exposed DP communication"));
    assert!(s.contains("Gradient bucket size (MB, log₂ scale)"));
    assert!(s.contains("Step time (s)"));
    assert!(s.contains("DP comm per step (ms)"));
    assert!(s.contains("current 32.0 MB: step"));
    assert!(has_text(&s, "Current setting"));
    assert!(has_text(&s, "4096"));
    // One marker per bucket size in each panel.
    assert_eq!(count(&s, "circle", "fill", &hex(p.step), &[]), 13);
    assert_eq!(count(&s, "circle", "fill", &hex(p.dp), &[]), 13);
    // The current marker: dashes in the current colour in both panels.
    assert!(s.matches(&format!("stroke=\"{}\"", hex(p.current))).count() >= 4);

    let zero: Vec<BucketPoint> = pts
        .iter()
        .map(|p| BucketPoint {
            exposed_dp_s: 0.0,
            hidden_dp_s: 0.0,
            step_s: 0.0,
            ..p.clone()
        })
        .collect();
    let s = svg(&ChartData::Bucket(bucket::BucketData {
        points: &zero,
        current_mb: None,
    }));
    assert!(s.contains("All times are zero"));
    let s = svg(&ChartData::Bucket(bucket::BucketData {
        points: &[],
        current_mb: Some(f64::NAN),
    }));
    assert!(s.contains("No bucket sizes to show."));
}

fn sched(p: u64, m: u64, v: u64, schedule: Schedule, tf: f64, tb: f64) -> schedule::ScheduleData {
    schedule::ScheduleData {
        pp: p,
        micro_batches: m,
        vp: v,
        schedule,
        t_fwd_s: tf,
        t_bwd_s: tb,
        t_wgrad_s: tb / 2.0,
        bubble_fraction: ideal_bubble_fraction(p, m, v, schedule),
    }
}

/// The bubble fraction of a uniform pipeline with no other time, as the engine's
/// `TimeEstimate::bubble_fraction` gives it: `((p−1)/v)/(m + (p−1)/v)` (Narayanan et al. 2021
/// §2.2; `v = 1` unless interleaved).
fn ideal_bubble_fraction(p: u64, m: u64, v: u64, schedule: Schedule) -> f64 {
    let v = if schedule == Schedule::Interleaved {
        v.max(1)
    } else {
        1
    };
    let b = p.saturating_sub(1) as f64 / v as f64;
    if m as f64 + b > 0.0 {
        b / (m as f64 + b)
    } else {
        0.0
    }
}

/// The SVG of [`sched`]'s schedule chart.
fn sched_svg(p: u64, m: u64, v: u64, schedule: Schedule, tf: f64, tb: f64) -> String {
    svg(&ChartData::Schedule(sched(p, m, v, schedule, tf, tb)))
}

#[test]
fn schedule_chart_draws_every_block_and_the_bubble() {
    let p = style::Palette::LIGHT;
    let st = ChartStyle::light();
    let d = sched(4, 8, 1, Schedule::OneFOneB, 0.01, 0.02);
    let s = svg(&ChartData::Schedule(d));
    assert!(s.contains("Pipeline schedule"));
    // Bubble (p−1)/(m+p−1) = 3/11 = 27.3 %.
    assert!(s.contains("1F1B · p = 4, m = 8 · bubble 27.3% of the step"));
    assert!(s.contains("Time (ms)") && s.contains("Pipeline stage"));
    // 4 stages × 8 micro-batches forward and backward, + a legend swatch each.
    assert_eq!(count(&s, "rect", "fill", &hex(p.forward), &[]), 33);
    assert_eq!(count(&s, "rect", "fill", &hex(p.backward), &[]), 33);
    // One idle band per stage.
    assert_eq!(
        count(&s, "rect", "fill", &hex(st.faded(p.bubble, 0.35)), &[]),
        4
    );
    // The makespan (8 + 3)·30 ms = 330 ms fits on the axis: its last tick is ≥ 300.
    assert!(has_text(&s, "300"));

    // Interleaved, v = 2: chunk 0 in the full colour, chunk 1 lighter; (p−1)/v/(m+(p−1)/v).
    let d = sched(4, 8, 2, Schedule::Interleaved, 0.01, 0.02);
    let s = svg(&ChartData::Schedule(d));
    assert!(s.contains("interleaved 1F1B, v = 2 · p = 4, m = 8 · bubble 15.8% of the step"));
    assert_eq!(count(&s, "rect", "fill", &hex(p.forward), &[]), 33);
    assert_eq!(
        count(&s, "rect", "fill", &hex(st.faded(p.forward, 0.5)), &[]),
        33
    );

    // GPipe.
    let s = sched_svg(2, 3, 1, Schedule::Gpipe, 0.01, 0.02);
    assert!(s.contains("GPipe · p = 2, m = 3 · bubble 25.0% of the step"));
    assert_eq!(count(&s, "rect", "fill", &hex(p.backward), &[]), 7);
}

#[test]
fn schedule_chart_caps_large_m_and_handles_zero_times() {
    let p = style::Palette::LIGHT;
    let d = sched(4, 512, 1, Schedule::OneFOneB, 0.01, 0.02);
    assert_eq!(d.drawn_micro_batches(), 8);
    let s = svg(&ChartData::Schedule(d));
    assert!(s.contains("drawn with 8 of 512 micro-batches"));
    assert_eq!(count(&s, "rect", "fill", &hex(p.forward), &[]), 4 * 8 + 1);
    // Deep pipelines stay under the block budget.
    let deep = sched(64, 4096, 4, Schedule::Interleaved, 0.01, 0.02);
    let n = deep.drawn_micro_batches();
    assert_eq!(n, 64);
    let s = svg(&ChartData::Schedule(deep));
    assert!(s.contains("drawn with 64 of 4096 micro-batches"));
    // Engine times not known yet: relative units, said on the axis.
    let s = sched_svg(4, 8, 1, Schedule::OneFOneB, 0.0, 0.0);
    assert!(s.contains("forward of one micro-batch = 1"));
    assert_eq!(count(&s, "rect", "fill", &hex(p.forward), &[]), 33);
    let s = sched_svg(0, 8, 1, Schedule::OneFOneB, 1.0, 1.0);
    assert!(s.contains("No stages or no micro-batches"));
    let s = sched_svg(4, 8, 1, Schedule::OneFOneB, f64::NAN, 1.0);
    assert!(!s.contains("NaN"));
}

fn layout(tp: u64, pp: u64, dp: u64, mb: u64) -> Layout {
    Layout {
        tp,
        pp,
        dp,
        cp: 1,
        ep: 1,
        etp: 1,
        vp: 1,
        micro_batch: mb,
        recompute: Recompute::Selective,
        zero_stage: 1,
        sp: true,
        schedule: None,
        first_last: None,
    }
}

fn ranked(l: Layout, gib: f64, tps: f64) -> Ranked {
    Ranked {
        layout: l,
        step_s: 1.0,
        tokens_per_s: tps,
        mfu: 0.4,
        peak_bytes: gib * GIB,
        fits: true,
        verdict: paracalc::engine::memory::verdict::Verdict::Fits,
    }
}

fn search_report() -> SearchReport {
    // 30 points on a grid; the front is the 5 with the most throughput for their memory.
    let mut points = Vec::new();
    for i in 0..30u64 {
        let gib = 20.0 + 2.0 * i as f64;
        let tps = 1e5 + 3e3 * ((i * 7) % 30) as f64;
        points.push(ranked(
            layout(1 << (i % 4), 1 << (i % 3), 8, 1 + i % 2),
            gib,
            tps,
        ));
    }
    let pareto = vec![
        ranked(layout(8, 1, 16, 1), 18.0, 1.2e5),
        ranked(layout(4, 2, 16, 1), 30.0, 1.6e5),
        ranked(layout(2, 4, 16, 1), 45.0, 1.9e5),
        ranked(layout(2, 2, 32, 1), 60.0, 2.0e5),
        ranked(layout(1, 4, 32, 2), 75.0, 2.1e5),
    ];
    SearchReport {
        evaluated: 120,
        feasible: 35,
        best: vec![pareto[4]],
        pareto,
        points,
        rejected: Default::default(),
        truncated: false,
    }
}

/// The search chart of `report` with no current layout and no capacity line.
fn search_chart(report: &SearchReport) -> ChartData<'_> {
    ChartData::Search(search::SearchData {
        report,
        current: None,
        current_at: None,
        capacity_bytes: None,
    })
}

#[test]
fn search_chart_shows_points_front_and_current() {
    let p = style::Palette::LIGHT;
    let r = search_report();
    let current = r.points[5].layout;
    let d = search::SearchData {
        report: &r,
        current: Some(current),
        current_at: None,
        capacity_bytes: Some(80.0 * GIB),
    };
    let s = svg(&ChartData::Search(d));
    assert!(s.contains("Layout search: throughput vs peak memory"));
    assert!(s.contains("Peak memory per GPU (GiB)") && s.contains("Throughput (tokens/s)"));
    assert!(s.contains("120 evaluated, 35 fit · 30 shown · Pareto front 5"));
    assert!(s.contains("best 210 k tokens/s (TP1 PP4 DP32 mb2 ZeRO1, 75.0 GiB)"));
    // 30 sampled points + legend dot; 5 Pareto points; a ring for the current layout (+ legend).
    assert_eq!(count(&s, "circle", "fill", &hex(p.point), &[]), 31);
    assert_eq!(count(&s, "circle", "fill", &hex(p.pareto), &[]), 5);
    assert_eq!(
        count(&s, "circle", "stroke", &hex(p.current), &["fill=\"none\""]),
        2
    );
    assert!(has_text(&s, "current"));

    // Clicking a front point returns its layout; empty space returns nothing.
    let target = r.pareto[2];
    let (x, y) = search::position_of(&d, W, H, &target).unwrap();
    assert_eq!(
        search::point_at(&d, W, H, x + 3.0, y - 2.0),
        Some(target.layout)
    );
    let (x, y) = search::position_of(&d, W, H, &r.points[5]).unwrap();
    assert_eq!(search::point_at(&d, W, H, x, y), Some(current));
    assert_eq!(search::point_at(&d, W, H, W as f64 - 20.0, 60.0), None);
}

#[test]
fn search_chart_samples_large_reports_and_handles_empty_ones() {
    let p = style::Palette::LIGHT;
    let mut r = search_report();
    let base = r.points[0];
    r.points = (0..10_000)
        .map(|i| ranked(base.layout, 10.0 + (i % 70) as f64, 1e5 + i as f64))
        .collect();
    let s = svg(&ChartData::Search(search::SearchData {
        report: &r,
        current: None,
        current_at: Some((40.0 * GIB, 1.5e5)),
        capacity_bytes: None,
    }));
    let drawn = count(&s, "circle", "fill", &hex(p.point), &[]) - 1;
    assert!(drawn <= search::MAX_POINTS, "{drawn}");
    assert!(drawn >= search::MAX_POINTS / 2);
    assert_eq!(count(&s, "circle", "stroke", &hex(p.current), &[]), 2);

    let empty = SearchReport::default();
    let d = search::SearchData {
        report: &empty,
        current: None,
        current_at: None,
        capacity_bytes: None,
    };
    assert!(svg(&ChartData::Search(d)).contains("No search results yet."));
    assert_eq!(search::point_at(&d, W, H, 100.0, 100.0), None);
    let none_fit = SearchReport {
        evaluated: 40,
        ..SearchReport::default()
    };
    assert!(svg(&ChartData::Search(search::SearchData {
        report: &none_fit,
        ..d
    }))
    .contains("None of the 40 layouts evaluated fits in memory."));
}

#[test]
fn dark_theme_uses_its_own_background_and_colours() {
    let dark = ChartStyle::dark();
    let m = memory_data();
    let s = charts::to_svg(&ChartData::Memory(&m), &dark, W, H).unwrap();
    assert!(s.contains(&format!("fill=\"{}\"", hex(dark.palette.background))));
    assert_eq!(
        count(&s, "rect", "fill", &hex(dark.palette.weights), &[]),
        5
    );
    assert!(!s.contains(&format!("fill=\"{}\"", hex(style::Palette::LIGHT.weights))));
    // Text in the dark theme's text colour.
    assert!(count(&s, "text", "fill", &hex(dark.palette.text), &[]) > 5);
}

#[test]
fn every_kind_renders_and_round_trips_its_name() {
    let m = memory_data();
    let (t, th) = time_data();
    let r = search_report();
    let data = [
        ChartData::Memory(&m),
        time_chart(&t, &th),
        ChartData::Scaling(scaling::ScalingData {
            series: &[],
            scaling: Scaling::Strong,
            current_gpus: None,
            band: None,
            uncalibrated: None,
        }),
        ChartData::Bucket(bucket::BucketData {
            points: &[],
            current_mb: None,
        }),
        ChartData::Schedule(sched(4, 8, 1, Schedule::OneFOneB, 0.01, 0.02)),
        search_chart(&r),
    ];
    for (d, kind) in data.iter().zip(ChartKind::ALL) {
        assert_eq!(d.kind(), *kind);
        assert_eq!(ChartKind::parse(kind.as_str()), Some(*kind));
        for style in [ChartStyle::light(), ChartStyle::dark()] {
            let s = charts::to_svg(d, &style, 640, 360).unwrap();
            assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        }
    }
    assert_eq!(ChartKind::parse("pie"), None);
}

#[test]
fn all_six_render_quickly_natively() {
    // Not the browser figure (that is measured in headless Chromium), but a guard against
    // accidental per-pixel work: all six charts to SVG well under a frame each in release, and
    // under a generous bound in debug builds.
    let m = memory_data();
    let (t, th) = time_data();
    let r = search_report();
    let data = [
        ChartData::Memory(&m),
        time_chart(&t, &th),
        ChartData::Schedule(sched(8, 64, 2, Schedule::Interleaved, 0.01, 0.02)),
        search_chart(&r),
    ];
    let start = std::time::Instant::now();
    for d in &data {
        charts::to_svg(d, &ChartStyle::light(), W, H).unwrap();
    }
    let ms = start.elapsed().as_secs_f64() * 1e3;
    assert!(ms < 500.0, "{ms} ms");
}

/// The split-backward schedules draw B and W apart (their own legend entries and colour); ZB-V
/// says it is not drawn; DualPipe below its `2·pp` micro-batches says so too.
#[test]
fn split_backward_schedules_draw_b_and_w_apart() {
    let wgrad = ChartStyle::light().palette.wgrad;
    let hex = format!("#{:02X}{:02X}{:02X}", wgrad.0, wgrad.1, wgrad.2);
    for (sched, v, m) in [
        (Schedule::ZbH1, 1, 8),
        (Schedule::DualPipe, 1, 10),
        (Schedule::DualPipeV, 2, 10),
    ] {
        let s = sched_svg(4, m, v, sched, 0.01, 0.02);
        assert!(s.contains("Weight grad (W)"), "{sched:?}");
        assert!(s.contains("Input grad (B)"), "{sched:?}");
        assert!(s.to_uppercase().contains(&hex), "{sched:?}: no W blocks");
    }
    let s = sched_svg(4, 8, 1, Schedule::OneFOneB, 0.01, 0.02);
    assert!(!s.contains("Weight grad (W)"));
    assert!(sched_svg(4, 8, 2, Schedule::ZbV, 0.01, 0.02).contains("not drawn"));
    assert!(sched_svg(4, 6, 1, Schedule::DualPipe, 0.01, 0.02).contains("not drawn"));
}

#[test]
#[ignore]
fn dump_svgs() {
    let dir = std::env::var("CHART_DUMP").unwrap_or_else(|_| "/tmp/svgs".into());
    let m = memory_data();
    let m64 = MemoryEstimate {
        rows: (0..64)
            .map(|i| stage(i, 2.0, 2.0, 4.0, 60.0 - i as f64 * 0.8, 3.0))
            .collect::<Vec<_>>()
            .into(),
        capacity_bytes: 64.0 * GIB,
        ..MemoryEstimate::default()
    };
    let (t, th) = time_data();
    let r = search_report();
    let (dp, pp) = compared_points();
    let series = dp_and_pp_series(&dp, &pp);
    let bpts = bucket_sweep();
    let all = [
        ("memory", ChartData::Memory(&m)),
        ("time", time_chart(&t, &th)),
        (
            "scaling",
            ChartData::Scaling(scaling::ScalingData {
                series: &series,
                scaling: Scaling::Strong,
                current_gpus: Some(64),
                band: None,
                uncalibrated: None,
            }),
        ),
        (
            "bucket",
            ChartData::Bucket(bucket::BucketData {
                points: &bpts,
                current_mb: Some(32.0),
            }),
        ),
        (
            "schedule",
            ChartData::Schedule(sched(4, 8, 2, Schedule::Interleaved, 0.01, 0.02)),
        ),
        (
            "schedule1f1b",
            ChartData::Schedule(sched(4, 8, 1, Schedule::OneFOneB, 0.01, 0.02)),
        ),
        (
            "schedule-zbh1",
            ChartData::Schedule(sched(4, 8, 1, Schedule::ZbH1, 0.01, 0.02)),
        ),
        (
            "schedule-dualpipe",
            ChartData::Schedule(sched(4, 10, 1, Schedule::DualPipe, 0.01, 0.02)),
        ),
        (
            "schedule-dualpipev",
            ChartData::Schedule(sched(4, 10, 2, Schedule::DualPipeV, 0.01, 0.02)),
        ),
        (
            "schedule-zbv",
            ChartData::Schedule(sched(4, 8, 2, Schedule::ZbV, 0.01, 0.02)),
        ),
        ("memory64", ChartData::Memory(&m64)),
        (
            "search",
            ChartData::Search(search::SearchData {
                report: &r,
                current: Some(r.points[5].layout),
                current_at: None,
                capacity_bytes: Some(80.0 * GIB),
            }),
        ),
    ];
    for (name, d) in &all {
        for (theme, st) in [("light", ChartStyle::light()), ("dark", ChartStyle::dark())] {
            let s = charts::to_svg(d, &st, W, H).unwrap();
            std::fs::write(format!("{dir}/{name}-{theme}.svg"), s).unwrap();
        }
    }
}

/// Sweeping the pointer across the bucket chart's plot finds every bucket size once, in order,
/// and nothing outside the plot.
#[test]
fn bucket_hit_test_finds_each_size_in_order() {
    let pts: Vec<BucketPoint> = (0..13)
        .map(|i| BucketPoint {
            bucket_mb: f64::from(1u32 << i),
            exposed_dp_s: 0.1,
            hidden_dp_s: 0.2,
            step_s: 1.1,
        })
        .collect();
    let d = bucket::BucketData {
        points: &pts,
        current_mb: Some(160.0),
    };
    let mut seen: Vec<f64> = Vec::new();
    for x in 0..W {
        if let Some(p) = bucket::point_at(&d, W, H, f64::from(x), f64::from(H) / 2.0) {
            if seen.last() != Some(&p.bucket_mb) {
                seen.push(p.bucket_mb);
            }
        }
    }
    let want: Vec<f64> = (0..13).map(|i| f64::from(1u32 << i)).collect();
    assert_eq!(seen, want);
    // Below the x axis and left of the y axis: nothing.
    assert_eq!(bucket::point_at(&d, W, H, 400.0, f64::from(H) - 5.0), None);
    assert_eq!(bucket::point_at(&d, W, H, 10.0, 200.0), None);
}

/// The same for the scaling chart's GPU counts (two series, 8 … 1024 GPUs).
#[test]
fn scaling_hit_test_finds_each_gpu_count_in_order() {
    let a = linear_points(1e4);
    let b = linear_points(0.9e4);
    let series = [
        scaling::ScalingSeries {
            name: "A",
            points: &a,
        },
        scaling::ScalingSeries {
            name: "B",
            points: &b,
        },
    ];
    let d = scaling::ScalingData {
        series: &series,
        scaling: Scaling::Strong,
        current_gpus: Some(64),
        band: None,
        uncalibrated: None,
    };
    let mut seen: Vec<u64> = Vec::new();
    for x in 0..W {
        if let Some(n) = scaling::gpus_at(&d, W, H, f64::from(x), f64::from(H) / 2.0) {
            if seen.last() != Some(&n) {
                seen.push(n);
            }
        }
    }
    assert_eq!(seen, [8, 16, 32, 64, 128, 256, 512, 1024]);
}

/// A/B charts share a time scale: with `scale_s` = 3.14 s (twice this step of 1.57 s) the axis
/// reaches past 3 s, the bars take half the width, and the hit-test agrees with the drawing.
#[test]
fn time_chart_on_a_shared_scale() {
    let (t, th) = time_data();
    let own = time::TimeData {
        time: &t,
        throughput: &th,
        scale_s: None,
        uncalibrated_s: None,
    };
    let shared = time::TimeData {
        scale_s: Some(2.0 * 1.57),
        ..own
    };
    let s = svg(&ChartData::Time(shared));
    assert!(has_text(&s, "3"), "tick at 3 s on the shared axis");
    assert!(!has_text(&svg(&ChartData::Time(own)), "3"));
    // The critical path ends at 1.57 s: on its own scale that is near the right edge, on the
    // shared one near the middle. Probe the optimizer (last part) with a sweep along the bar.
    let end = |d: &time::TimeData<'_>| {
        (0..W)
            .rev()
            .find(|&x| time::segment_at(d, W, H, f64::from(x), 200.0).is_some_and(|g| !g.hidden))
            .expect("the bar is hit somewhere")
    };
    let (e_own, e_shared) = (end(&own), end(&shared));
    // Plot from x = 104 to 782 (margins 104 / 18): 1.57/(1.57·1.04) vs 1.57/(3.14·1.04) of 678 px.
    assert!(
        (f64::from(e_own) - (104.0 + 678.0 / 1.04)).abs() <= 3.0,
        "{e_own}"
    );
    assert!(
        (f64::from(e_shared) - (104.0 + 678.0 / 2.08)).abs() <= 3.0,
        "{e_shared}"
    );
}

#[cfg(not(target_arch = "wasm32"))]
mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn any_f64() -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(-1.0),
            Just(0.0),
            0.0..200.0 * GIB,
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        #[test]
        fn memory_any_numbers(
            vals in proptest::collection::vec((any_f64(), any_f64(), any_f64(), any_f64(), any_f64()), 0..80),
            cap in any_f64(),
            x in -10.0..900.0f64,
            y in -10.0..600.0f64,
        ) {
            let m = MemoryEstimate {
                rows: vals
                    .iter()
                    .enumerate()
                    .map(|(i, &(w, g, o, a, x))| StageMemory {
                        stage: i as u64,
                        weights_bytes: w,
                        gradients_bytes: g,
                        optimizer_bytes: o,
                        activations_bytes: a,
                        other_bytes: x,
                        ..StageMemory::default()
                    })
                    .collect::<Vec<_>>()
                    .into(),
                capacity_bytes: cap,
                ..MemoryEstimate::default()
            };
            let s = svg(&ChartData::Memory(&m));
            prop_assert!(!s.contains("NaN"));
            if let Some(seg) = memory::segment_at(&m, W, H, x, y) {
                prop_assert!(seg.bytes.is_finite() && seg.bytes > 0.0);
            }
        }

        #[test]
        fn schedule_any_sizes(
            p in 0u64..200,
            m in 0u64..100_000,
            v in 0u64..9,
            which in 0usize..3,
            tf in any_f64(),
            tb in any_f64(),
        ) {
            let d = sched(p, m, v, Schedule::ALL[which], tf / GIB, tb / GIB);
            prop_assert!(d.drawn_micro_batches() <= m.max(1));
            let s = svg(&ChartData::Schedule(d));
            prop_assert!(!s.contains("NaN"));
        }

        #[test]
        fn time_any_numbers(v in proptest::collection::vec(any_f64(), 14), x in 0.0..800.0f64, y in 0.0..480.0f64) {
            let mut t = TimeEstimate {
                step_s: v[0] / GIB,
                compute_s: v[1] / GIB,
                forward_s: v[2] / GIB,
                backward_s: v[3] / GIB,
                recompute_s: v[4] / GIB,
                bubble_s: v[5] / GIB,
                optimizer_s: v[6] / GIB,
                ..TimeEstimate::default()
            };
            t.exposed_comm_s.tp = v[7] / GIB;
            t.exposed_comm_s.dp = v[8] / GIB;
            t.hidden_comm_s.dp = v[9] / GIB;
            let th = Throughput { tokens_per_s: v[10], mfu: v[11] / GIB, ..Throughput::default() };
            let d = time::TimeData { time: &t, throughput: &th, scale_s: None, uncalibrated_s: None };
            let s = svg(&ChartData::Time(d));
            prop_assert!(!s.contains("NaN"));
            let _ = time::segment_at(&d, W, H, x, y);
        }
    }
}

#[test]
fn schedule_data_from_a_scenario() {
    // DESIGN.md's example: B = 1536, b = 1, d = 8 → m = 192; p = 16, vp = 1 → 1F1B.
    let s = paracalc::scenario::parse(
        r#"{
  "model":    {"name": "GPT-3 175B", "layers": 96, "hidden": 12288, "heads": 96,
               "vocab": 51200, "seq_len": 2048},
  "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16",
               "recompute": "selective"},
  "parallel": {"tp": 8, "pp": 16, "dp": 8},
  "cluster":  {"gpu": "a100-sxm4-80gb", "num_gpus": 1024}
}"#,
    )
    .unwrap();
    // The estimate's m and bubble: (p − 1)/(m + p − 1) = 15/207 of a 2.07 s step.
    let t = TimeEstimate {
        forward_s: 1.92,
        backward_s: 3.84,
        recompute_s: 0.192,
        micro_batches: 192,
        step_s: 2.07,
        bubble_s: 0.15,
        ..TimeEstimate::default()
    };
    let d = schedule::ScheduleData::from_scenario(&s, &t);
    assert_eq!((d.pp, d.micro_batches, d.vp), (16, 192, 1));
    assert_eq!(d.schedule, Schedule::OneFOneB);
    // 1.92 s / 192 = 10 ms forward; (3.84 + 0.192) / 192 = 21 ms backward with recompute.
    assert!((d.t_fwd_s - 0.010).abs() < 1e-12 && (d.t_bwd_s - 0.021).abs() < 1e-12);
    assert_eq!(d.drawn_micro_batches(), 32);
    // (p − 1)/(m + p − 1) = 15/207 = 7.25 %.
    let svg = svg(&ChartData::Schedule(d));
    assert!(svg.contains("1F1B · p = 16, m = 192 · bubble 7.25% of the step"));
    assert!(svg.contains("drawn with 32 of 192 micro-batches"));
}

#[test]
fn schedule_hit_test_finds_the_block() {
    use paracalc::engine::schedule::BlockKind;
    let d = sched(4, 8, 1, Schedule::OneFOneB, 0.01, 0.02);
    // Scan stage 3's row (the bottom one): its first block is forward 0 at 30–40 ms.
    let (mut found, mut y) = (None, 0.0);
    'outer: for py in (0..H).rev() {
        for px in 0..W {
            if let Some(b) = schedule::block_at(&d, W, H, f64::from(px), f64::from(py)) {
                found = Some(b);
                y = f64::from(py);
                break 'outer;
            }
        }
    }
    let b = found.unwrap();
    assert_eq!((b.stage, b.kind, b.micro_batch), (3, BlockKind::Forward, 0));
    assert!((b.start - 0.03).abs() < 1e-12 && (b.end - 0.04).abs() < 1e-12);
    // Further right on the same row: backward 0 follows immediately (40–60 ms).
    let next = (0..W)
        .rev()
        .filter_map(|px| schedule::block_at(&d, W, H, f64::from(px), y))
        .find(|x| x.kind == BlockKind::Backward && x.micro_batch == 0)
        .unwrap();
    assert!((next.start - 0.04).abs() < 1e-12);
    assert_eq!(schedule::block_at(&d, W, H, 5.0, 5.0), None);
}

#[test]
fn scaling_draws_the_error_band_and_the_uncalibrated_curve() {
    let a = linear_points(1e4);
    let u = linear_points(1.2e4);
    let series = [scaling::ScalingSeries {
        name: "Current",
        points: &a,
    }];
    let plain = strong_scaling(&series);
    let s0 = svg(&ChartData::Scaling(plain));
    assert!(!has_text(&s0, "±7 % expected error") && !has_text(&s0, "Uncalibrated"));
    let s = svg(&ChartData::Scaling(scaling::ScalingData {
        band: Some(0.07),
        uncalibrated: Some(&u),
        ..plain
    }));
    assert!(has_text(&s, "±7 % expected error"), "band legend");
    assert!(has_text(&s, "Uncalibrated"), "faint curve legend");
    // The band is a filled polygon; the uncalibrated curve and its legend swatch are two more
    // lines than without.
    assert!(s.matches("<polygon").count() > s0.matches("<polygon").count());
    assert_eq!(
        s.matches("<polyline").count(),
        s0.matches("<polyline").count() + 2
    );
}

/// A calibrated plan's time chart keeps the uncalibrated step beside it, faint: in the legend,
/// the caption and the summary, and on an axis long enough to show it.
#[test]
fn time_chart_shows_the_uncalibrated_step_faint() {
    let (t, th) = time_data();
    let calibrated = time::TimeData {
        time: &t,
        throughput: &th,
        scale_s: None,
        uncalibrated_s: Some(2.0 * 1.57),
    };
    let s = svg(&ChartData::Time(calibrated));
    assert!(has_text(&s, "uncalibrated step 3.14 s"), "{s}");
    assert!(
        has_text(&s, "3"),
        "the axis reaches the uncalibrated 3.14 s"
    );
    let summary = time::summary(&calibrated);
    assert!(
        summary.contains("(calibrated; 3.14 s uncalibrated)"),
        "{summary}"
    );
    let plain = time::TimeData {
        uncalibrated_s: None,
        ..calibrated
    };
    assert!(!svg(&ChartData::Time(plain)).contains("uncalibrated"));
}
