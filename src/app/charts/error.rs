//! The [`ChartError`] a chart returns when its backend fails (bad data draws a sentence
//! instead).

use plotters::drawing::DrawingAreaErrorKind;
use std::fmt;

/// Why a chart could not be drawn (a backend failure; bad data draws a message instead).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartError {
    message: String,
}

impl ChartError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ChartError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "chart could not be drawn: {}", self.message)
    }
}

impl std::error::Error for ChartError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for ChartError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        ChartError::new(e.to_string())
    }
}
