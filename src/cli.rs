//! The native command-line tool: `estimate`, `validate`, `calibrate`, `search`, `sweep`, `link`, `unlink`.
//!
//! Exit codes: 0 ok, 2 bad input (the message names the field), 1 internal error. Every command
//! returns its output as a `String` so tests can call it without a process.
//!
//! Every command, one line each:
//! - [`estimate`]: `paracalc estimate`, the readable report or JSON.
//! - [`validate`]: `paracalc validate`, predicted vs published measurements.
//! - [`calibrate`]: `paracalc calibrate`, fit the calibration section to a measured run.
//! - [`search`]: `paracalc search`, the best layouts.
//! - [`sweep`]: `paracalc sweep`, scaling, bucket, micro-batch and sequence sweeps.
//! - [`link`]: `paracalc link` and `unlink`, share links.
//! - [`bench`]: `paracalc bench`, engine speed.
//! - [`trust`]: how far to trust a command-line estimate (the error bands).
//!
//! What every command shares:
//! - [`args`]: a command's arguments, the files they name and the usage text.
//! - [`error`]: the [`CliError`] a command fails with.

mod args;
mod bench;
mod calibrate;
mod error;
mod estimate;
mod link;
mod search;
mod sweep;
mod trust;
mod validate;

pub use args::USAGE;
pub use error::CliError;

/// Runs the tool with `args` (without the program name); returns stdout text or an error.
pub fn run(args: &[String]) -> Result<String, CliError> {
    let Some((cmd, rest)) = args.split_first() else {
        return Err(CliError::input(USAGE));
    };
    match cmd.as_str() {
        "estimate" => estimate::run(rest),
        "validate" => validate::run(rest),
        "calibrate" => calibrate::run(rest),
        "search" => search::run(rest),
        "sweep" => sweep::run(rest),
        "link" => link::run_link(rest),
        "unlink" => link::run_unlink(rest),
        "bench" => bench::run(rest),
        "-h" | "--help" | "help" => Ok(USAGE.to_string()),
        other => Err(CliError::input(format!(
            "unknown command \"{other}\"\n\n{USAGE}"
        ))),
    }
}
