//! `paracalc search`.

use super::CliError;

/// Runs `paracalc search`.
pub fn run(_args: &[String]) -> Result<String, CliError> {
    Err(CliError::input("paracalc search: not implemented yet"))
}
