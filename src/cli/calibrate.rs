//! `paracalc calibrate FILE.json --step-s SECONDS [--memory-gib GIB] [--json]`: fits the
//! scenario's `calibration` section to one measured run ([`crate::calibrate`]) and prints the
//! scenario with it. `--json` prints only the scenario (ready for `estimate`, `search`, `sweep`
//! or `link`); the readable form says first what was fitted and why.

use super::args::{load_scenario, Args};
use super::error::CliError;
use crate::calibrate::{fit, FitError, Measurement, MemoryKind};

/// The CLI option that carries each measured input, for messages.
fn option_of(input: &str) -> &'static str {
    match input {
        "memory_gib" => "--memory-gib",
        _ => "--step-s",
    }
}

/// Runs `paracalc calibrate`.
pub fn run(args: &[String]) -> Result<String, CliError> {
    let a = Args::parse(args, &["--json"], &["--step-s", "--memory-gib"])?;
    let path = a.one("scenario file (FILE.json)")?;
    let step_s = a.number("--step-s")?.ok_or_else(|| {
        CliError::input("--step-s SECONDS is required: the measured time of one optimizer step.")
    })?;
    let m = Measurement {
        step_s,
        memory_gib: a.number("--memory-gib")?,
        memory_kind: MemoryKind::DeviceUsed,
    };
    let mut s = load_scenario(path)?;
    let f = fit(&s, &m).map_err(|e| match e {
        FitError::Scenario(err) => CliError::input(format!("{path}: {err}")),
        FitError::Implausible { input, message } => {
            CliError::input(format!("{}: {message}", option_of(input)))
        }
    })?;
    // A measurement far outside the usual error is flagged against the uncalibrated plan.
    let warning =
        super::trust::bands(&super::trust::cases(), &s.uncalibrated()).and_then(|(b, _)| {
            crate::evidence::band::unusual_miss(f.step_before_s, m.step_s, b.time_pct / 100.0)
        });
    s.calibration = f.calibration;
    let json = s.to_json_pretty();
    if a.has("--json") {
        return Ok(format!("{json}\n"));
    }
    let mut o = format!(
        "measured step {:.4} s; predicted {:.4} s before, {:.4} s after calibration\n{}\n",
        m.step_s,
        f.step_before_s,
        f.step_after_s,
        f.explain()
    );
    if let Some(w) = warning {
        o.push_str(&format!("warning: {w}\n"));
    }
    if let (Some(before), Some(gib)) = (f.memory_before_gib, m.memory_gib) {
        o.push_str(&format!(
            "memory: measured {gib:.2} GiB, predicted {before:.2} GiB (whole device) before calibration\n"
        ));
    }
    o.push_str("\nscenario with its calibration section:\n");
    o.push_str(&json);
    o.push('\n');
    Ok(o)
}
