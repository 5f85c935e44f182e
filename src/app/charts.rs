//! Charts as plain functions over any plotters backend: `CanvasBackend` in the browser (through
//! [`ChartCanvas`](super::components::chart_canvas::ChartCanvas)), `SVGBackend` in native tests.
//!
//! A [`Chart`] is the data one chart needs; [`draw`] dispatches to the chart's own module. Add a
//! chart by adding a module with a `draw` function and a [`Chart`] variant.

pub mod stage_layers;

use std::fmt;

use plotters::coord::Shift;
use plotters::drawing::DrawingAreaErrorKind;
use plotters::prelude::{DrawingArea, DrawingBackend};

/// The data of one chart, compared by value so the canvas redraws only when it changes.
#[derive(Clone, Debug, PartialEq)]
pub enum Chart {
    /// Layers held by each pipeline stage, in stage order.
    StageLayers(Vec<u64>),
}

/// Draws `chart` onto `root`, filling all of it.
pub fn draw<DB: DrawingBackend>(
    chart: &Chart,
    root: &DrawingArea<DB, Shift>,
) -> Result<(), ChartError> {
    match chart {
        Chart::StageLayers(stages) => stage_layers::draw(root, stages)?,
    }
    root.present()?;
    Ok(())
}

/// A chart that could not be drawn, as text for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartError(pub String);

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the chart could not be drawn: {}", self.0)
    }
}

impl std::error::Error for ChartError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for ChartError {
    fn from(err: DrawingAreaErrorKind<E>) -> ChartError {
        ChartError(err.to_string())
    }
}
