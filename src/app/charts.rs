//! The six live charts, each one backend-generic function (STYLE.md house rule 12):
//! `draw<DB: DrawingBackend>(root, data, style) -> Result<(), ChartError>`, in the shape of
//! plotters-wasm-demo's `func_plot::draw`. The app draws them on a canvas through
//! [`canvas::draw_on_canvas`] (high-DPI aware); [`to_svg`] renders the same function to an SVG
//! string for downloads and for the native tests (`tests/charts.rs`).
//!
//! Each chart file owns its `draw`, its hit-test, its `tooltip` and its `summary` (the text
//! screen readers get); [`ChartData`] dispatches to them.
//!
//! | chart | data | hit-test |
//! |---|---|---|
//! | [`memory`] | [`MemoryEstimate`] | [`memory::segment_at`] |
//! | [`time`] | [`time::TimeData`] | [`time::segment_at`] |
//! | [`scaling`] | [`scaling::ScalingData`] | [`scaling::gpus_at`] |
//! | [`bucket`] | [`bucket::BucketData`] | [`bucket::point_at`] |
//! | [`schedule`] | [`schedule::ScheduleData`] | [`schedule::block_at`] |
//! | [`search`] | [`search::SearchData`] | [`search::point_at`] |
//!
//! The app holds a chart's input as an owned, cheaply cloned [`Chart`] ([`input`]): it lends the
//! borrowed [`ChartData`], answers hit-tests with tooltip text and writes the text summary that
//! is the canvas's accessible name.
//!
//! Every chart draws its title, a caption, a legend and axis titles with units; empty or
//! degenerate data (no stages, all-zero times, no points) draws a sentence instead of a plot.
//! Layout is computed from the size alone (not from measured text), so hit-tests agree with what
//! was drawn. Sizes are CSS pixels.
//!
//! Children not named above:
//! - [`backend`]: One drawing backend type for every chart (canvas or SVG, both paracalc's own).
//! - [`canvas`]: Drawing a chart on an HTML canvas, crisp on high-DPI screens.
//! - [`painter`]: the drawing calls on a canvas's 2D context (`Painter`), the canvas backend's.
//! - [`data`]: [`ChartData`], the borrowed input of any one chart, and its dispatch.
//! - [`error`]: the [`ChartError`] a chart returns when its backend fails.
//! - [`frame`]: the frame every chart draws in (header, plot rectangle, axes' mesh).
//! - [`style`]: Shared look of every chart.
//! - [`svg`]: SVG output, as plotters' SVG backend writes it, at the same text size as the canvas.

mod backend;
pub mod bucket;
pub mod canvas;
mod data;
mod error;
mod frame;
pub mod input;
pub mod memory;
mod painter;
pub mod scaling;
pub mod schedule;
pub mod search;
pub mod style;
mod svg;
pub mod time;

pub use data::{draw, to_svg, ChartData};
pub use error::ChartError;
pub use frame::PlotRect;
pub use input::Chart;
pub use style::{ChartStyle, Palette, Theme};

/// Which chart (also the `?embed=` and `chart=` value): the share link's chart id, so the
/// app and the link format name charts with one type.
pub use crate::share::Chart as ChartKind;
