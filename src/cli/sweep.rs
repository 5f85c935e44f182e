//! `paracalc sweep`.

use super::CliError;

/// Runs `paracalc sweep`.
pub fn run(_args: &[String]) -> Result<String, CliError> {
    Err(CliError::input("paracalc sweep: not implemented yet"))
}
