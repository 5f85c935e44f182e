//! `paracalc validate`.

use super::CliError;

/// Runs `paracalc validate`.
pub fn run(_args: &[String]) -> Result<String, CliError> {
    Err(CliError::input("paracalc validate: not implemented yet"))
}
