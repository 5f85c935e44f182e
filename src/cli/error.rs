//! The [`CliError`] every command fails with: the message for stderr and the exit code.

use std::fmt;

/// A failed command: what to print on stderr and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// 2 for bad input, 1 for an internal error.
    pub code: i32,
    /// The message, naming the field where there is one.
    pub message: String,
}

impl CliError {
    /// Bad input (exit 2).
    pub fn input(message: impl Into<String>) -> CliError {
        CliError {
            code: 2,
            message: message.into(),
        }
    }

    /// Internal error (exit 1).
    pub fn internal(message: impl Into<String>) -> CliError {
        CliError {
            code: 1,
            message: message.into(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
