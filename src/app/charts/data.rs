//! [`ChartData`]: the borrowed input of any one chart, and the dispatch of its `draw`,
//! `tooltip` and `summary` (and [`to_svg`]) to the chart file it belongs to.

use super::backend::ChartBackend;
use super::error::ChartError;
use super::style::ChartStyle;
use super::svg::Svg;
use super::{bucket, memory, scaling, schedule, search, time};
use crate::engine::MemoryEstimate;
use crate::share::Chart as ChartKind;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The input of any one chart, for code that handles charts uniformly (canvas component, SVG
/// download, embed).
#[derive(Clone, Copy, Debug)]
pub enum ChartData<'a> {
    /// Memory per stage.
    Memory(&'a MemoryEstimate),
    /// Step-time breakdown.
    Time(time::TimeData<'a>),
    /// Scaling curves.
    Scaling(scaling::ScalingData<'a>),
    /// Bucket-size curve.
    Bucket(bucket::BucketData<'a>),
    /// Pipeline timeline.
    Schedule(schedule::ScheduleData),
    /// Search scatter.
    Search(search::SearchData<'a>),
}

impl ChartData<'_> {
    /// Which chart this is.
    pub fn kind(&self) -> ChartKind {
        match self {
            ChartData::Memory(_) => ChartKind::Memory,
            ChartData::Time(_) => ChartKind::Time,
            ChartData::Scaling(_) => ChartKind::Scaling,
            ChartData::Bucket(_) => ChartKind::Bucket,
            ChartData::Schedule(_) => ChartKind::Schedule,
            ChartData::Search(_) => ChartKind::Search,
        }
    }
}

impl ChartData<'_> {
    /// Tooltip text for pixel (`x`, `y`) of a `width × height` drawing (CSS px), if the pointer
    /// is on something with exact values: each chart file's `tooltip`.
    pub fn tooltip(&self, width: u32, height: u32, x: f64, y: f64) -> Option<String> {
        match self {
            ChartData::Memory(d) => memory::tooltip(d, width, height, x, y),
            ChartData::Time(d) => time::tooltip(d, width, height, x, y),
            ChartData::Scaling(d) => scaling::tooltip(d, width, height, x, y),
            ChartData::Bucket(d) => bucket::tooltip(d, width, height, x, y),
            ChartData::Schedule(d) => schedule::tooltip(d, width, height, x, y),
            ChartData::Search(d) => search::tooltip(d, width, height, x, y),
        }
    }

    /// A one-paragraph text summary of what the chart shows: each chart file's `summary`.
    pub fn summary(&self) -> String {
        match self {
            ChartData::Memory(d) => memory::summary(d),
            ChartData::Time(d) => time::summary(d),
            ChartData::Scaling(d) => scaling::summary(d),
            ChartData::Bucket(d) => bucket::summary(d),
            ChartData::Schedule(d) => schedule::summary(d),
            ChartData::Search(d) => search::summary(d),
        }
    }
}

/// Draws whichever chart `data` holds on `root`.
///
/// # Errors
/// Only backend failures.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData<'_>,
    style: &ChartStyle,
) -> Result<(), ChartError> {
    match data {
        ChartData::Memory(d) => memory::draw(root, d, style),
        ChartData::Time(d) => time::draw(root, d, style),
        ChartData::Scaling(d) => scaling::draw(root, d, style),
        ChartData::Bucket(d) => bucket::draw(root, d, style),
        ChartData::Schedule(d) => schedule::draw(root, d, style),
        ChartData::Search(d) => search::draw(root, d, style),
    }
}

/// Renders a chart as an SVG document of `width × height` px (for the SVG download and tests).
///
/// # Errors
/// Only backend failures.
pub fn to_svg(
    data: &ChartData<'_>,
    style: &ChartStyle,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    let mut out = String::new();
    {
        let root = ChartBackend::Svg(Svg::new(&mut out, (width.max(1), height.max(1))))
            .into_drawing_area();
        draw(&root, data, style)?;
        root.present()?;
    }
    Ok(out)
}
