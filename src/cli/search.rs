//! `paracalc search FILE.json [--gpus N] [--top K] [--json]`: the best layouts for the model,
//! training setup and cluster of a scenario.

use super::args::{load_scenario, Args};
use super::error::CliError;
use crate::engine::search::{search, Layout, Ranked, SearchSpace};
use crate::engine::{estimate, Estimate};
use crate::scenario::Scenario;

/// Runs `paracalc search`.
pub fn run(args: &[String]) -> Result<String, CliError> {
    let a = Args::parse(args, &["--json", "--uneven"], &["--gpus", "--top"])?;
    let s = load_scenario(a.one("scenario file")?)?;
    let mut space = SearchSpace::default();
    if let Some(g) = a.value("--gpus") {
        let n: u64 = g.parse().map_err(|_| {
            CliError::input(format!("--gpus: \"{g}\" is not a positive whole number"))
        })?;
        if n == 0 || n > 10_000_000 {
            return Err(CliError::input(format!(
                "--gpus: {n} is out of range (1..=10000000)"
            )));
        }
        space.num_gpus = Some(n);
    }
    if let Some(k) = a.value("--top") {
        space.top = k
            .parse()
            .map_err(|_| CliError::input(format!("--top: \"{k}\" is not a whole number")))?;
    }
    space.allow_uneven = a.has("--uneven");
    // Check the model/training/cluster parts first so bad input is reported, not searched.
    let mut probe = s.clone();
    probe.cluster.num_gpus = space.num_gpus.unwrap_or(s.cluster.num_gpus);
    probe.parallel.dp =
        probe.cluster.num_gpus / (probe.parallel.tp * probe.parallel.pp * probe.parallel.cp).max(1);
    if let Err(e) = probe.validate() {
        let layout_only = e.issues.iter().all(|i| {
            i.field.starts_with("parallel.")
                || i.field == "cluster.num_gpus"
                || i.field == "training.global_batch"
        });
        if !layout_only {
            return Err(CliError::input(e.to_string()));
        }
    }
    let started = std::time::Instant::now();
    let report = search(&s, &space);
    let elapsed = started.elapsed().as_secs_f64();
    if a.has("--json") {
        let value = serde_json::json!({
            "evaluated": report.evaluated,
            "feasible": report.feasible,
            "elapsed_s": elapsed,
            "truncated": report.truncated,
            "best": report.best,
            "pareto": report.pareto,
            "rejected": report.rejected,
        });
        return serde_json::to_string_pretty(&value).map_err(|e| CliError::internal(e.to_string()));
    }
    let n = space.num_gpus.unwrap_or(s.cluster.num_gpus);
    let mut out = format!(
        "search: {} on {n} × {}\nevaluated {} layouts in {:.3} s ({:.0} layouts/s); {} fit in memory\n\n",
        if s.model.name.is_empty() { "model" } else { &s.model.name },
        s.cluster.gpu_name(),
        report.evaluated,
        elapsed,
        report.evaluated as f64 / elapsed.max(1e-9),
        report.feasible,
    );
    if !s.calibration.is_default() {
        out.push_str(&format!(
            "calibrated to a measured run: {}\n\n",
            s.calibration.describe()
        ));
    }
    out.push_str(&format!(
        "recompute selective = {}\n\n",
        s.recompute_label(crate::scenario::Recompute::Selective)
    ));
    out.push_str("best layouts (by throughput)\n");
    out.push_str(&table(&report.best));
    if let Some(best) = report.best.first() {
        out.push_str(&why(&s, n, best));
    }
    out.push_str("\nPareto front (throughput vs memory)\n");
    out.push_str(&table(&report.pareto));
    out.push_str("\nrejected\n");
    for (reason, count) in &report.rejected {
        out.push_str(&format!("  {count:>10}  {reason}\n"));
    }
    if report.truncated {
        out.push_str("(stopped at the candidate cap)\n");
    }
    Ok(out)
}

/// Why the best layout wins: its step-time breakdown next to that of plain sharded data
/// parallelism (ZeRO-3 over all `n` GPUs, no model parallelism, the same micro-batch where the
/// batch allows and the same recomputation) — the alternative practitioners weigh it against.
fn why(s: &Scenario, n: u64, best: &Ranked) -> String {
    let mut b = s.clone();
    b.cluster.num_gpus = n;
    best.layout.apply(&mut b);
    let mut z = b.clone();
    Layout {
        tp: 1,
        pp: 1,
        dp: n,
        cp: 1,
        ep: 1,
        vp: 1,
        zero_stage: 3,
        sp: false,
        schedule: None,
        first_last: None,
        ..best.layout
    }
    .apply(&mut z);
    // The winner's micro-batch, or the largest smaller one the batch splits into over n GPUs.
    let gb = z.training.global_batch;
    z.training.micro_batch = (1..=best.layout.micro_batch)
        .rev()
        .find(|&mb| gb % mb.saturating_mul(n).max(1) == 0)
        .unwrap_or(1);
    let mut out = String::from("\nwhy #1 (step-time breakdown, s)\n");
    for (label, sc) in [("#1", &b), ("ZeRO-3, no model parallelism", &z)] {
        match estimate(sc) {
            Ok(e) => out.push_str(&breakdown(label, &e)),
            Err(err) => out.push_str(&format!("  {label}: {err}\n")),
        }
    }
    out
}

/// One breakdown line: the step and its parts.
fn breakdown(label: &str, e: &Estimate) -> String {
    let t = &e.time;
    let x = &t.exposed_comm_s;
    format!(
        "  {label}: step {:.3} = compute {:.3} + recompute {:.3} + bubble {:.3} + optimizer {:.3}{}{} + exposed comm {:.3} (tp {:.3}, cp {:.3}, ep {:.3}, pp {:.3}, dp {:.3}; hidden {:.3}){}\n",
        t.step_s,
        t.compute_s,
        t.recompute_s,
        t.bubble_s,
        t.optimizer_s,
        if t.offload_s > 0.0 {
            format!(" + host offload {:.3}", t.offload_s)
        } else {
            String::new()
        },
        if t.host_s > 0.0 {
            format!(" + host-bound {:.3}", t.host_s)
        } else {
            String::new()
        },
        x.total(),
        x.tp,
        x.cp,
        x.ep,
        x.pp,
        x.dp,
        t.hidden_comm_s.total(),
        if e.memory.fits { "" } else { " — does not fit in memory" },
    )
}

/// A fixed-width table of ranked layouts.
fn table(rows: &[Ranked]) -> String {
    let mut out = String::from(
        "   #   tp   pp   dp   cp   ep   vp  mbs  recompute   zero  sp   step (s)   tokens/s    MFU   peak (GiB)  fit           schedule   first/last\n",
    );
    for (i, r) in rows.iter().enumerate() {
        let l = &r.layout;
        out.push_str(&format!(
            "{:>4} {:>4} {:>4} {:>4} {:>4} {:>4} {:>4} {:>4}  {:<10} {:>4}  {:<3} {:>9.3} {:>10.0} {:>5.1}% {:>11.2}  {:<12}  {:<10} {}\n",
            i + 1,
            l.tp,
            l.pp,
            l.dp,
            l.cp,
            l.ep,
            l.vp,
            l.micro_batch,
            l.recompute.as_str(),
            l.zero_stage,
            if l.sp { "on" } else { "off" },
            r.step_s,
            r.tokens_per_s,
            r.mfu * 100.0,
            r.peak_bytes / (1u64 << 30) as f64,
            r.verdict.words(),
            l.schedule.map_or("default", |x| x.as_str()),
            l.first_last
                .map_or_else(|| "even".to_string(), |(f, x)| format!("{f}/{x}")),
        ));
    }
    if rows.is_empty() {
        out.push_str("   (none fit in memory)\n");
    }
    out
}
