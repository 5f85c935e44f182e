//! `paracalc estimate`.

use super::CliError;

/// Runs `paracalc estimate`.
pub fn run(_args: &[String]) -> Result<String, CliError> {
    Err(CliError::input("paracalc estimate: not implemented yet"))
}
