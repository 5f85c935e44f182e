//! `paracalc link` and `paracalc unlink`: scenario JSON ↔ share-link query (see [`crate::share`]).

use super::args::{load_scenario, Args};
use super::error::CliError;
use crate::share;

/// Runs `paracalc link FILE.json [--preset ID] [--lenient]`: prints the share-link query
/// (`v=1&model=…`). Without `--preset`, the link starts from the preset closest to the scenario.
/// An invalid scenario is an input error (exit 2) unless `--lenient`: links can carry a scenario
/// that is still being edited, but a file handed to `link` is usually meant to be shared as is.
pub fn run_link(args: &[String]) -> Result<String, CliError> {
    let args = Args::parse(args, &["--lenient"], &["--preset"])?;
    let path = args.one("scenario file")?;
    let s = load_scenario(path)?;
    if !args.has("--lenient") {
        s.validate()
            .map_err(|e| CliError::input(format!("{path}: {e}")))?;
    }
    let preset = match args.value("--preset") {
        None => share::nearest_preset(&s).id,
        Some(id) => {
            crate::presets::model_preset(id)
                .ok_or_else(|| {
                    let known: Vec<&str> =
                        crate::presets::MODEL_PRESETS.iter().map(|p| p.id).collect();
                    CliError::input(format!(
                        "--preset: unknown model preset \"{}\"; known: {}",
                        id.chars().take(40).collect::<String>(),
                        known.join(", ")
                    ))
                })?
                .id
        }
    };
    Ok(share::encode(&s, preset))
}

/// Runs `paracalc unlink TEXT [--lenient]`: prints the scenario of a link (the query, with or
/// without `?`, or a whole URL) as JSON.
///
/// Strict by default: any notice (unknown key, bad value …) or an invalid scenario is an input
/// error (exit 2) listing every problem by key. With `--lenient` the scenario is printed anyway
/// and the notices go to stderr.
pub fn run_unlink(args: &[String]) -> Result<String, CliError> {
    let args = Args::parse(args, &["--lenient"], &[])?;
    let text = args.one("link")?;
    let decoded = share::decode(text).map_err(|e| CliError::input(format!("link: {e}")))?;
    let lenient = args.has("--lenient");
    if !decoded.notices.is_empty() && !lenient {
        let list: Vec<String> = decoded
            .notices
            .iter()
            .map(|n| format!("  link key {n}"))
            .collect();
        return Err(CliError::input(format!(
            "the link has {} problem(s):\n{}\n(use --lenient to print the scenario anyway)",
            decoded.notices.len(),
            list.join("\n")
        )));
    }
    if !lenient {
        if let Err(e) = decoded.scenario.validate() {
            return Err(CliError::input(format!(
                "the link decodes, but its scenario is invalid:\n{e}\n(use --lenient to print it anyway)"
            )));
        }
    }
    let mut out = decoded.scenario.to_json_pretty();
    if lenient {
        for n in &decoded.notices {
            eprintln!("paracalc: ignored link key {n}");
        }
    }
    out.push('\n');
    Ok(out)
}
