//! [`Chart`]: the owned, cheaply cloned input of any one chart, as the app holds it in props
//! (`Rc` inside, compared by value so a canvas redraws only when its data changed). It lends the
//! borrowed [`ChartData`] the draw functions take, answers hit-tests with tooltip text, and writes
//! the text summary screen readers get.

use super::data::{draw, to_svg, ChartData};
use super::error::ChartError;
use super::style::ChartStyle;
use super::{bucket, scaling, schedule, search, time};
use crate::engine::search::{Layout, SearchReport};
use crate::engine::sweep::{BucketPoint, GpuPoint, Scaling};
use crate::engine::Estimate;
use crate::share::Chart as ChartKind;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::rc::Rc;

/// Scaling curves, owned.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingInput {
    /// Named series (the current layout first, then the strategy variants).
    pub series: Vec<(String, Vec<GpuPoint>)>,
    /// Strong or weak scaling.
    pub scaling: Scaling,
    /// The scenario's GPU count (marked).
    pub current_gpus: Option<u64>,
    /// Expected relative error of the first series (0.07 = ±7 %), drawn as a band around it
    /// ([`crate::evidence::band`]).
    pub band: Option<f64>,
    /// The first series without the scenario's calibration (drawn faint), when calibrated.
    pub uncalibrated: Option<Vec<GpuPoint>>,
}

/// Bucket curve, owned.
#[derive(Clone, Debug, PartialEq)]
pub struct BucketInput {
    /// One point per bucket size.
    pub points: Vec<BucketPoint>,
    /// The scenario's bucket size, MB (marked).
    pub current_mb: Option<f64>,
}

/// Search scatter, owned.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInput {
    /// The (possibly partial) search result.
    pub report: Rc<SearchReport>,
    /// The scenario's layout.
    pub current: Option<Layout>,
    /// Where the scenario's layout sits (peak bytes, tokens/s).
    pub current_at: Option<(f64, f64)>,
    /// GPU memory, bytes.
    pub capacity_bytes: Option<f64>,
}

/// The input of one chart, owned.
#[derive(Clone, Debug, PartialEq)]
pub enum Chart {
    /// Memory per stage, from an estimate.
    Memory(Rc<Estimate>),
    /// Step-time breakdown, from an estimate.
    Time {
        /// The estimate.
        estimate: Rc<Estimate>,
        /// Shared time-axis maximum, s (A/B charts side by side).
        scale_s: Option<f64>,
        /// The step time without the scenario's calibration, when calibrated.
        uncalibrated_s: Option<f64>,
    },
    /// Throughput vs GPUs.
    Scaling(Rc<ScalingInput>),
    /// Exposed DP time vs bucket size.
    Bucket(Rc<BucketInput>),
    /// Pipeline timeline.
    Schedule(schedule::ScheduleData),
    /// Search scatter.
    Search(Rc<SearchInput>),
}

impl Chart {
    /// Which chart.
    pub fn kind(&self) -> ChartKind {
        match self {
            Chart::Memory(_) => ChartKind::Memory,
            Chart::Time { .. } => ChartKind::Time,
            Chart::Scaling(_) => ChartKind::Scaling,
            Chart::Bucket(_) => ChartKind::Bucket,
            Chart::Schedule(_) => ChartKind::Schedule,
            Chart::Search(_) => ChartKind::Search,
        }
    }

    /// Calls `f` with the borrowed form the draw functions take.
    pub fn with_data<R>(&self, f: impl FnOnce(&ChartData<'_>) -> R) -> R {
        let mut series = Vec::new();
        f(&self.data(&mut series))
    }

    /// The borrowed form of the chart; a scaling chart's series are lent through `series`. Not
    /// generic, so every [`with_data`](Self::with_data) caller shares this one copy.
    fn data<'a>(&'a self, series: &'a mut Vec<scaling::ScalingSeries<'a>>) -> ChartData<'a> {
        match self {
            Chart::Memory(e) => ChartData::Memory(&e.memory),
            Chart::Time {
                estimate: e,
                scale_s,
                uncalibrated_s,
            } => ChartData::Time(time::TimeData {
                time: &e.time,
                throughput: &e.throughput,
                scale_s: *scale_s,
                uncalibrated_s: *uncalibrated_s,
            }),
            Chart::Scaling(s) => {
                series.extend(
                    s.series
                        .iter()
                        .map(|(name, points)| scaling::ScalingSeries { name, points }),
                );
                ChartData::Scaling(scaling::ScalingData {
                    series,
                    scaling: s.scaling,
                    current_gpus: s.current_gpus,
                    band: s.band,
                    uncalibrated: s.uncalibrated.as_deref(),
                })
            }
            Chart::Bucket(b) => ChartData::Bucket(bucket::BucketData {
                points: &b.points,
                current_mb: b.current_mb,
            }),
            Chart::Schedule(d) => ChartData::Schedule(*d),
            Chart::Search(s) => ChartData::Search(search::SearchData {
                report: &s.report,
                current: s.current,
                current_at: s.current_at,
                capacity_bytes: s.capacity_bytes,
            }),
        }
    }

    /// Draws the chart on `root`.
    ///
    /// # Errors
    /// Only backend failures.
    pub fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        style: &ChartStyle,
    ) -> Result<(), ChartError> {
        self.with_data(|d| draw(root, d, style))
    }

    /// The chart as an SVG document of `width × height` px (the SVG download).
    ///
    /// # Errors
    /// Only backend failures.
    pub fn to_svg(
        &self,
        style: &ChartStyle,
        width: u32,
        height: u32,
    ) -> Result<String, ChartError> {
        self.with_data(|d| to_svg(d, style, width, height))
    }

    /// File name stem for downloads (`paracalc-memory`).
    pub fn file_stem(&self) -> String {
        format!("paracalc-{}", self.kind().as_str())
    }

    /// Tooltip text for pixel (`x`, `y`) of a `width × height` drawing (CSS px), if the pointer
    /// is on something with exact values (the chart file's `tooltip`).
    pub fn tooltip(&self, width: u32, height: u32, x: f64, y: f64) -> Option<String> {
        self.with_data(|d| d.tooltip(width, height, x, y))
    }

    /// The layout under pixel (`x`, `y`) of a search chart, for click-to-apply.
    pub fn layout_at(&self, width: u32, height: u32, x: f64, y: f64) -> Option<Layout> {
        self.with_data(|d| match d {
            ChartData::Search(s) => search::point_at(s, width, height, x, y),
            _ => None,
        })
    }

    /// A one-paragraph text summary of what the chart shows (its accessible name; the chart
    /// file's `summary`).
    pub fn summary(&self) -> String {
        self.with_data(|d| d.summary())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::charts::memory;
    use crate::scenario::Scenario;

    fn bench() -> Scenario {
        crate::scenario::parse(include_str!("../../../tests/data/gpt3-175b-1024.json"))
            .expect("bench scenario parses")
    }

    #[test]
    fn memory_tooltip_and_summary_give_exact_values() {
        let s = bench();
        let e = Rc::new(crate::engine::estimate(&s).expect("bench estimates"));
        let chart = Chart::Memory(e.clone());
        let (x, y) = memory::segment_center(&e.memory, 800, 400, 2, memory::Component::Weights)
            .expect("stage 2 has weights");
        let tip = chart.tooltip(800, 400, x, y).expect("a segment");
        let w = super::super::style::fmt_bytes(e.memory.stages()[2].weights_bytes);
        assert!(
            tip.starts_with(&format!("Stage 2: Weights {w} of ")),
            "{tip}"
        );
        assert_eq!(chart.tooltip(800, 400, 2.0, 2.0), None);
        let summary = chart.summary();
        assert!(
            summary.starts_with("Memory per GPU for 16 pipeline stages: peak "),
            "{summary}"
        );
        assert!(summary.ends_with("; fits."), "{summary}");
        assert_eq!(chart.kind(), ChartKind::Memory);
        assert_eq!(chart.file_stem(), "paracalc-memory");
        let svg = chart
            .to_svg(&ChartStyle::dark(), 640, 360)
            .expect("renders");
        assert!(svg.contains("Memory per GPU by pipeline stage"));
    }

    #[test]
    fn scaling_tooltip_lists_each_series_at_that_count() {
        let s = bench();
        let Chart::Scaling(d) = crate::app::components::charts_panel::scaling_chart(
            &s,
            crate::engine::sweep::Scaling::Strong,
        ) else {
            panic!("not scaling");
        };
        let chart = Chart::Scaling(d.clone());
        let t = (0..800)
            .find_map(|x| {
                chart
                    .tooltip(800, 480, f64::from(x), 240.0)
                    .filter(|t| t.starts_with("1024 GPUs"))
            })
            .expect("a 1024-GPU column");
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "1024 GPUs");
        assert!(lines[1].starts_with("Current (TP8 PP16) "), "{t}");
        // DP + ZeRO-3 cannot split the 1536 batch over 1024 replicas: no line for it.
        assert!(!t.contains("DP + ZeRO-3"), "{t}");
    }
}
