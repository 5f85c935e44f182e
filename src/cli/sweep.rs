//! `paracalc sweep FILE.json [--gpus 8,16,…] [--weak] [--best] [--buckets 1,4,…]
//! [--micro-batches 1,2,…] [--seq 1024,2048,…] [--json]`: throughput and scaling efficiency
//! against GPU count (the scenario's layout, or with `--best` the best layout at each count),
//! the gradient-bucket-size curve, and optional micro-batch and sequence-length sweeps.

use super::args::{load_scenario, Args};
use super::error::CliError;
use crate::engine::search::SearchSpace;
use crate::engine::sweep::{
    default_bucket_sizes_mb, default_gpu_counts, sweep_bucket_size, sweep_gpus, sweep_gpus_best,
    sweep_values, BucketPoint, GpuPoint, Knob, Scaling, ValuePoint,
};
use crate::scenario::Scenario;

/// Everything one `paracalc sweep` computed, for the JSON or the text report.
struct Sweeps {
    /// Strong or weak scaling (`--weak`).
    scaling: Scaling,
    /// Whether each GPU count has its best layout (`--best`) rather than the scenario's.
    best: bool,
    /// One point per GPU count.
    points: Vec<GpuPoint>,
    /// One point per gradient-bucket size.
    bucket: Vec<BucketPoint>,
    /// The optional micro-batch and sequence-length sweeps, each under its JSON key.
    extra: Vec<(&'static str, Vec<ValuePoint>)>,
}

/// Runs `paracalc sweep`.
pub fn run(args: &[String]) -> Result<String, CliError> {
    let a = Args::parse(
        args,
        &["--json", "--weak", "--best"],
        &["--gpus", "--buckets", "--micro-batches", "--seq"],
    )?;
    let s = load_scenario(a.one("scenario file")?)?;
    s.validate().map_err(|e| CliError::input(e.to_string()))?;
    let gpus = gpu_counts(&a, &s)?;
    let buckets = bucket_sizes(&a)?;
    let scaling = if a.has("--weak") {
        Scaling::Weak
    } else {
        Scaling::Strong
    };
    let best = a.has("--best");
    let points = if best {
        sweep_gpus_best(&s, &gpus, scaling, &SearchSpace::default())
    } else {
        sweep_gpus(&s, &gpus, scaling)
    };
    let bucket = sweep_bucket_size(&s, &buckets).map_err(|e| CliError::input(e.to_string()))?;
    let sweeps = Sweeps {
        scaling,
        best,
        points,
        bucket,
        extra: value_sweeps(&a, &s)?,
    };
    if a.has("--json") {
        return to_json(&sweeps);
    }
    let mut out = if s.calibration.is_default() {
        String::new()
    } else {
        format!(
            "calibrated to a measured run: {}\n",
            s.calibration.describe()
        )
    };
    scaling_table(&mut out, &s, &sweeps);
    bucket_table(&mut out, &sweeps.bucket);
    value_tables(&mut out, &sweeps.extra);
    Ok(out)
}

/// The GPU counts of `--gpus`, else the default counts for `s`.
fn gpu_counts(a: &Args, s: &Scenario) -> Result<Vec<u64>, CliError> {
    let gpus: Vec<u64> = a
        .numbers("--gpus")?
        .unwrap_or_else(|| default_gpu_counts(s));
    if gpus.is_empty() || gpus.len() > 1000 || gpus.iter().any(|&n| n == 0 || n > 100_000_000) {
        return Err(CliError::input(
            "--gpus: give 1 to 1000 GPU counts, each between 1 and 100000000",
        ));
    }
    Ok(gpus)
}

/// The bucket sizes (MB) of `--buckets`, else the default sizes.
fn bucket_sizes(a: &Args) -> Result<Vec<f64>, CliError> {
    let buckets: Vec<f64> = a
        .numbers("--buckets")?
        .unwrap_or_else(default_bucket_sizes_mb);
    if buckets.is_empty()
        || buckets.len() > 1000
        || buckets.iter().any(|&b| !(b > 0.0 && b <= 1.0e7))
    {
        return Err(CliError::input(
            "--buckets: give 1 to 1000 sizes in MB, each in (0, 10000000]",
        ));
    }
    Ok(buckets)
}

/// The micro-batch (`--micro-batches`) and sequence-length (`--seq`) sweeps asked for, each
/// under its JSON key.
fn value_sweeps(a: &Args, s: &Scenario) -> Result<Vec<(&'static str, Vec<ValuePoint>)>, CliError> {
    let mut extra = Vec::new();
    for (flag, knob, name) in [
        ("--micro-batches", Knob::MicroBatch, "micro_batch"),
        ("--seq", Knob::SeqLen, "seq_len"),
    ] {
        if let Some(values) = a.numbers::<u64>(flag)? {
            if values.is_empty()
                || values.len() > 1000
                || values.iter().any(|&v| v == 0 || v > 1_000_000_000)
            {
                return Err(CliError::input(format!(
                    "{flag}: give 1 to 1000 values, each between 1 and 1000000000"
                )));
            }
            extra.push((name, sweep_values(s, knob, &values)));
        }
    }
    Ok(extra)
}

/// The `--json` report.
fn to_json(sw: &Sweeps) -> Result<String, CliError> {
    let mut value =
        serde_json::json!({ "scaling": sw.scaling, "gpus": sw.points, "bucket": sw.bucket });
    for (name, pts) in &sw.extra {
        value[*name] = serde_json::json!(pts);
    }
    serde_json::to_string_pretty(&value).map_err(|e| CliError::internal(e.to_string()))
}

/// The scaling table: one row per GPU count, the fixed share's note and where the curve bends
/// ([`crate::engine::advice::fixed`]).
fn scaling_table(out: &mut String, s: &Scenario, sw: &Sweeps) {
    *out += &format!(
        "{} scaling ({})\n     GPUs  tp×pp×dp×cp         batch   step (s)     tokens/s    MFU  efficiency  fixed  fits\n",
        if sw.scaling == Scaling::Weak { "weak" } else { "strong" },
        if sw.best {
            "the best layout at each GPU count".to_string()
        } else {
            format!(
                "tp {} × pp {} × cp {} kept, dp varies",
                s.parallel.tp, s.parallel.pp, s.parallel.cp
            )
        }
    );
    for p in &sw.points {
        match &p.error {
            Some(e) => out.push_str(&format!("{:>9}  {e}\n", p.num_gpus)),
            None => out.push_str(&format!(
                "{:>9}  {:<18} {:>7} {:>10.3} {:>12.0} {:>5.1}% {:>10.1}% {:>5.1}%  {}\n",
                p.num_gpus,
                format!("{}×{}×{}×{}", p.tp, p.pp, p.dp, p.cp),
                p.global_batch,
                p.step_s,
                p.tokens_per_s,
                p.mfu * 100.0,
                p.scaling_efficiency * 100.0,
                p.fixed.total_s() / p.step_s * 100.0,
                if p.fits { "yes" } else { "NO" }
            )),
        }
    }
    out.push_str(
        "  fixed: the share of the step paid once whatever the work per GPU (optimizer, \
         gradient norm, pipeline bubble, gradient reduction after the last backward)\n",
    );
    if let Some((n, note)) = crate::engine::advice::fixed::bend(&sw.points) {
        out.push_str(&format!(
            "  the curve bends at {n} GPUs. {}\n",
            crate::engine::advice::fixed::sentence(&note)
        ));
    }
}

/// The gradient-bucket-size table.
fn bucket_table(out: &mut String, bucket: &[BucketPoint]) {
    out.push_str(
        "\ngradient bucket size\n  bucket (MB)   exposed DP (s)   hidden DP (s)   step (s)\n",
    );
    for b in bucket {
        out.push_str(&format!(
            "{:>13.1} {:>16.4} {:>15.4} {:>10.3}\n",
            b.bucket_mb, b.exposed_dp_s, b.hidden_dp_s, b.step_s
        ));
    }
}

/// One table per micro-batch or sequence-length sweep.
fn value_tables(out: &mut String, extra: &[(&str, Vec<ValuePoint>)]) {
    for (name, pts) in extra {
        out.push_str(&format!(
            "\n{name} sweep\n{:>13}   step (s)     tokens/s    MFU   peak (GiB)  fits\n",
            name
        ));
        for p in pts {
            match &p.error {
                Some(e) => out.push_str(&format!("{:>13}  {e}\n", p.value)),
                None => out.push_str(&format!(
                    "{:>13} {:>10.3} {:>12.0} {:>5.1}% {:>11.2}  {}\n",
                    p.value,
                    p.step_s,
                    p.tokens_per_s,
                    p.mfu * 100.0,
                    p.peak_bytes / (1u64 << 30) as f64,
                    if p.fits { "yes" } else { "NO" }
                )),
            }
        }
    }
}
