//! The out-of-sample error band (`evidence::interval`) and its leave-one-source-out check
//! (`evidence::loso`), on hand-computed cases.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::evidence::interval::{
    interval, memory_band_fraction_with, new_source_factor, Errors, Metric, Widening, T90, Z80,
};
use paracalc::evidence::loso::coverage;
use paracalc::evidence::Case;
use paracalc::presets::model_preset;
use paracalc::scenario::Scenario;

fn plan() -> Scenario {
    model_preset("llama3-8b").unwrap().scenario()
}

/// Six runs of one plan in three sources with step errors A −10, −6; B 0, 4; C 5, 7 (%).
fn six() -> (Vec<Case>, Errors) {
    let groups = ["A", "A", "B", "B", "C", "C"];
    let cases = groups
        .iter()
        .enumerate()
        .map(|(i, g)| Case {
            id: format!("run{i}"),
            source: String::new(),
            scenario: plan(),
            step_s: 1.0,
            group: g.to_string(),
            memory_gib: Some(50.0),
            memory_kind: None,
        })
        .collect();
    let e = [-10.0, -6.0, 0.0, 4.0, 5.0, 7.0];
    let errors = Errors {
        step_pct: e.iter().map(|x| Some(*x)).collect(),
        memory_pct: e.iter().map(|x| Some(*x / 2.0)).collect(),
    };
    (cases, errors)
}

#[test]
fn the_band_adds_the_between_source_and_within_source_spreads() {
    let (cases, errors) = six();
    let b = interval(&cases, &errors, Metric::Step, &plan(), None).unwrap();
    // Source means −8, 2, 6: c = 0, σ_b² = (64 + 4 + 36)/2 = 52. Residuals ±2, ±2, ±1:
    // σ_w² = 18/6 = 3. A new source's offset from 3 source means: t₂ = 1.886, so σ_b² counts
    // (1.886/1.2816)²·(1 + 1/3) = 2.8875 times. Half width 1.2816·√(2.8875·52 + 3) = 15.860.
    let f3 = (T90[1] / Z80).powi(2) * (4.0 / 3.0);
    assert!((new_source_factor(3) - f3).abs() < 1e-12 && (f3 - 2.8875).abs() < 1e-4);
    assert_eq!((b.sources, b.runs), (3, 6));
    assert!(b.center_pct.abs() < 1e-12);
    assert!((b.between_pct - 52f64.sqrt()).abs() < 1e-12);
    assert!((b.within_pct - 3f64.sqrt()).abs() < 1e-12);
    let half = Z80 * (52.0 * f3 + 3.0).sqrt();
    assert!((b.hi_pct - half).abs() < 1e-12 && (b.lo_pct + half).abs() < 1e-12);
    assert!((half - 15.860).abs() < 1e-3);
    assert!(b.widened.is_empty() && !b.calibrated);
    // As measured over predicted: 1/(1 + 0.15860) = 0.8631 to 1/(1 − 0.15860) = 1.1885.
    let (lo, hi) = b.measured_over_predicted();
    assert!(
        (lo - 0.8631).abs() < 1e-4 && (hi - 1.1885).abs() < 1e-4,
        "{lo} {hi}"
    );
    assert!(
        b.text()
            .starts_with("80 % band 0.86–1.19× for a new cluster (3 sources, 6 runs)"),
        "{}",
        b.text()
    );
    // Throughput: (1 − 0.159, 1 + 0.159).
    assert!(
        b.rate_text().starts_with("80 % band 0.84–1.16×"),
        "{}",
        b.rate_text()
    );
    // Calibrated: centred, 1.2816·√(2·3) = 3.1393, narrower.
    let c = b.calibrated();
    assert!((c.hi_pct - Z80 * 6f64.sqrt()).abs() < 1e-12 && c.center_pct == 0.0);
    assert!(c.width() < b.width() && c.calibrated);
    assert!(c.text().contains("after calibration"));
}

#[test]
fn a_plan_beyond_every_published_scale_gets_a_wider_band_that_says_why() {
    let (cases, errors) = six();
    let mut far = plan();
    far.cluster.num_gpus *= 64;
    far.parallel.dp *= 64;
    let b = interval(&cases, &errors, Metric::Step, &far, None).unwrap();
    assert_eq!(b.widened, vec![Widening::Scale]);
    // One more offset: 1.2816·√(2·2.8875·52 + σ_w²) with σ_w from the runs most like it.
    let want = Z80 * (2.0 * new_source_factor(3) * 52.0 + b.within_pct.powi(2)).sqrt();
    assert!((b.hi_pct - want).abs() < 1e-9, "{} {want}", b.hi_pct);
    assert!(b.text().contains("wider: more GPUs than any published run"));
    // A calibration does not measure the larger scale: the scale widening stays.
    let c = b.calibrated();
    assert_eq!(c.widened, vec![Widening::Scale]);
    assert!(c.hi_pct > Z80 * 2f64.sqrt() * b.within_pct);
}

#[test]
fn leaving_a_source_out_builds_its_band_from_the_others() {
    let (cases, errors) = six();
    // Without A: sources B (2) and C (6), c = 4, σ_b² = 8, counted (3.078/1.2816)²·1.5 =
    // 8.652 times (two sources: t₁); four runs, σ_w² = (4+4+1+1)/4 = 2.5:
    // 4 ± 1.2816·√(8.652·8 + 2.5) = [−6.853, 14.853]. A's −6 falls inside, −10 outside.
    let b = interval(&cases, &errors, Metric::Step, &plan(), Some("A")).unwrap();
    let f2 = new_source_factor(2);
    assert!((f2 - 8.652).abs() < 1e-3);
    assert!((b.lo_pct - (4.0 - Z80 * (8.0 * f2 + 2.5).sqrt())).abs() < 1e-12);
    let cov = coverage(&cases, &errors, Metric::Step);
    let a = cov.groups.iter().find(|g| g.group == "A").unwrap();
    assert_eq!((a.runs, a.inside), (2, 1));
    // Without C: A (−8), B (2): c = −3, σ_b² = 50, σ_w² = 2: ±1.2816·√(8.652·50 + 2) =
    // ±26.72 → [−29.72, 23.72]: C's 5 and 7 are inside.
    let c = cov.groups.iter().find(|g| g.group == "C").unwrap();
    assert_eq!((c.runs, c.inside), (2, 2));
    assert_eq!(cov.runs, 6);
    assert!(cov.inside <= cov.runs && cov.median_width > 0.0);
}

#[test]
fn the_memory_verdict_reads_the_farther_end_of_the_memory_band() {
    let (cases, errors) = six();
    let s = plan();
    let (frac, why) = memory_band_fraction_with(&cases, &errors, &s).unwrap();
    // Memory errors are half the step's: half width 1.2816·√(2.8875·13 + 0.75) = 7.930 %;
    // measured/predicted 1/(1 − 0.07930) = 1.0861 is the farther end.
    let half = Z80 * (new_source_factor(3) * 13.0 + 0.75).sqrt() / 100.0;
    assert!((half - 0.07930).abs() < 1e-5);
    assert!((frac - (1.0 / (1.0 - half) - 1.0)).abs() < 1e-12, "{frac}");
    assert!(why.contains("new cluster"), "{why}");
    // A memory calibration narrows it to the within-source part.
    let mut cal = s.clone();
    cal.calibration.memory_gib = Some(1.0);
    let (narrow, why) = memory_band_fraction_with(&cases, &errors, &cal).unwrap();
    assert!(
        narrow < frac && why.contains("after calibration"),
        "{narrow} {why}"
    );
}

#[test]
fn the_definitions_card_states_the_registry_counts() {
    let s = paracalc::app::components::definitions::constants_sentence();
    let body = paracalc::docs::constants::BODY_NUMBERS;
    for (k, n) in paracalc::docs::constants::BY_KIND.iter().chain(&body) {
        assert!(s.contains(&format!("{n} {k}")), "{s}");
    }
    assert!(s.contains("ce6a0ec"), "{s}");
}

#[test]
fn left_out_sources_are_covered_as_the_acceptance_asks() {
    // Issue 31: on public.json, each group's runs against the band built without the group.
    // Measured 377 of 422 (89.3 %, median 26.5 points) for the step time and 39 of 47 (83.0 %,
    // 38.0 points) for the peak memory, whose five sources leave a new one's offset uncertain
    // (README).
    let values: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("data/public.json")).unwrap();
    let cases = paracalc::evidence::loso::cases_of(&values);
    let errors = Errors::of(&cases);
    let step = coverage(&cases, &errors, Metric::Step);
    assert_eq!(step.runs, 422);
    assert!(step.fraction() >= 0.75, "{}", step.fraction());
    assert!(step.median_width <= 30.0, "{}", step.median_width);
    // The previous similar-runs band covered far less.
    assert!(step.previous_fraction() < step.fraction() - 0.1);
    // Memory: 34 of 47 (72.3 %) at a median width of 18.4 points since the BLOOM 02-25 runs
    // hold DeepSpeed ZeRO-1's 16-bit gradients and its fp64 norm copy (states.md §8). Before
    // that fix, 36 of 47 at 30.0 points: the five sources' offsets now agree (means −7.8 to
    // −1.6 %), so a band built from four of them is narrower, and left-out torchtitan misses 5
    // of 18. With five sources a new one's coverage moves by a whole source (18 runs = 38 %),
    // so 72 % is within the noise of the 80 % it aims at; the floor below guards a real
    // regression, and the width pins the gain. With Megatron-DeepSpeed's own NCCL communicators
    // (states.md §13) 42 of 47 (89.4 %) at 21.4 points: BLOOM's rows now scatter about zero
    // (−12.3 to +20.3 %, the −r2 row's twin measured 6 GiB more on the same layout), which
    // widens the bands built with BLOOM in them (torchtitan's 18.9 → 21.4) and covers more of
    // every left-out source (BLOOM 02-25 10 → 14 of 18, torchtitan 13 → 17 of 18).
    let memory = coverage(&cases, &errors, Metric::Memory);
    assert_eq!(memory.runs, 47);
    assert!(memory.fraction() >= 0.85, "{}", memory.fraction());
    assert!(memory.median_width <= 22.0, "{}", memory.median_width);
}
