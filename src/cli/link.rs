//! `paracalc link` and `paracalc unlink`.

use super::CliError;

/// Runs `paracalc link FILE.json`.
pub fn run_link(_args: &[String]) -> Result<String, CliError> {
    Err(CliError::input("paracalc link: not implemented yet"))
}

/// Runs `paracalc unlink TEXT`.
pub fn run_unlink(_args: &[String]) -> Result<String, CliError> {
    Err(CliError::input("paracalc unlink: not implemented yet"))
}
