//! [`Chart`]: the owned, cheaply cloned input of any one chart, as the app holds it in props
//! (`Rc` inside, compared by value so a canvas redraws only when its data changed). It lends the
//! borrowed [`ChartData`] the draw functions take, answers hit-tests with tooltip text, and writes
//! the text summary screen readers get.

use super::style::{fmt_bytes, fmt_pct, fmt_rate, fmt_seconds, ChartStyle};
use super::{bucket, memory, scaling, schedule, search, time, ChartData, ChartError, ChartKind};
use crate::engine::schedule::BlockKind;
use crate::engine::search::{Layout, SearchReport};
use crate::engine::sweep::{BucketPoint, GpuPoint, Scaling};
use crate::engine::Estimate;
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
        match self {
            Chart::Memory(e) => f(&ChartData::Memory(&e.memory)),
            Chart::Time {
                estimate: e,
                scale_s,
            } => f(&ChartData::Time(time::TimeData {
                time: &e.time,
                throughput: &e.throughput,
                scale_s: *scale_s,
            })),
            Chart::Scaling(s) => {
                let series: Vec<scaling::ScalingSeries<'_>> = s
                    .series
                    .iter()
                    .map(|(name, points)| scaling::ScalingSeries { name, points })
                    .collect();
                f(&ChartData::Scaling(scaling::ScalingData {
                    series: &series,
                    scaling: s.scaling,
                    current_gpus: s.current_gpus,
                }))
            }
            Chart::Bucket(b) => f(&ChartData::Bucket(bucket::BucketData {
                points: &b.points,
                current_mb: b.current_mb,
            })),
            Chart::Schedule(d) => f(&ChartData::Schedule(*d)),
            Chart::Search(s) => f(&ChartData::Search(search::SearchData {
                report: &s.report,
                current: s.current,
                current_at: s.current_at,
                capacity_bytes: s.capacity_bytes,
            })),
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
        self.with_data(|d| super::draw(root, d, style))
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
        self.with_data(|d| super::to_svg(d, style, width, height))
    }

    /// File name stem for downloads (`paracalc-memory`).
    pub fn file_stem(&self) -> String {
        format!("paracalc-{}", self.kind().as_str())
    }

    /// Tooltip text for pixel (`x`, `y`) of a `width × height` drawing (CSS px), if the pointer
    /// is on something with exact values.
    pub fn tooltip(&self, width: u32, height: u32, x: f64, y: f64) -> Option<String> {
        match self {
            Chart::Memory(e) => {
                let s = memory::segment_at(&e.memory, width, height, x, y)?;
                Some(format!(
                    "Stage {}: {} {} of {}",
                    s.stage,
                    s.component.label(),
                    fmt_bytes(s.bytes),
                    fmt_bytes(s.stage_total_bytes)
                ))
            }
            Chart::Time {
                estimate: e,
                scale_s,
            } => {
                let d = time::TimeData {
                    time: &e.time,
                    throughput: &e.throughput,
                    scale_s: *scale_s,
                };
                let s = time::segment_at(&d, width, height, x, y)?;
                let step = e.time.step_s;
                let share = if step > 0.0 && !s.hidden {
                    format!(" ({} of the step)", fmt_pct(s.seconds / step))
                } else {
                    String::new()
                };
                Some(format!(
                    "{}{}: {}{share}",
                    if s.hidden { "hidden " } else { "" },
                    s.part.label(),
                    fmt_seconds(s.seconds)
                ))
            }
            Chart::Schedule(d) => {
                let b = schedule::block_at(d, width, height, x, y)?;
                let kind = match b.kind {
                    BlockKind::Forward => "forward",
                    BlockKind::Backward => "backward",
                    BlockKind::WeightGrad => "weight gradient",
                };
                let chunk = if d.vp > 1 {
                    format!(", chunk {}", b.chunk)
                } else {
                    String::new()
                };
                let when = if d.t_fwd_s > 0.0 {
                    format!("{} → {}", fmt_seconds(b.start), fmt_seconds(b.end))
                } else {
                    format!("{:.1} → {:.1} (relative)", b.start, b.end)
                };
                Some(format!(
                    "Stage {}, micro-batch {}{chunk}: {kind} {when}",
                    b.stage, b.micro_batch
                ))
            }
            Chart::Search(s) => {
                let d = search::SearchData {
                    report: &s.report,
                    current: s.current,
                    current_at: s.current_at,
                    capacity_bytes: s.capacity_bytes,
                };
                let r = search::ranked_at(&d, width, height, x, y)?;
                Some(format!(
                    "{}: {}, MFU {}, peak {} (click to apply)",
                    search::layout_label(&r.layout),
                    fmt_rate(r.tokens_per_s, "tokens/s"),
                    fmt_pct(r.mfu),
                    fmt_bytes(r.peak_bytes)
                ))
            }
            Chart::Bucket(b) => {
                let d = bucket::BucketData {
                    points: &b.points,
                    current_mb: b.current_mb,
                };
                let p = bucket::point_at(&d, width, height, x, y)?;
                Some(format!(
                    "Bucket {}: step {}, exposed DP {}, hidden DP {}",
                    bucket::fmt_mb(p.bucket_mb),
                    fmt_seconds(p.step_s),
                    fmt_seconds(p.exposed_dp_s),
                    fmt_seconds(p.hidden_dp_s)
                ))
            }
            Chart::Scaling(s) => {
                let gpus = self.with_data(|d| match d {
                    ChartData::Scaling(d) => scaling::gpus_at(d, width, height, x, y),
                    _ => None,
                })?;
                Some(scaling_tooltip(s, gpus))
            }
        }
    }

    /// The layout under pixel (`x`, `y`) of a search chart, for click-to-apply.
    pub fn layout_at(&self, width: u32, height: u32, x: f64, y: f64) -> Option<Layout> {
        match self {
            Chart::Search(s) => search::point_at(
                &search::SearchData {
                    report: &s.report,
                    current: s.current,
                    current_at: s.current_at,
                    capacity_bytes: s.capacity_bytes,
                },
                width,
                height,
                x,
                y,
            ),
            _ => None,
        }
    }

    /// A one-paragraph text summary of what the chart shows (its accessible name).
    pub fn summary(&self) -> String {
        match self {
            Chart::Memory(e) => {
                let m = &e.memory;
                format!(
                    "Memory per GPU for {} pipeline stages: peak {} on stage {} of {} usable; {}.",
                    m.stages.len(),
                    fmt_bytes(m.peak_bytes),
                    m.peak_stage,
                    fmt_bytes(m.capacity_bytes),
                    if m.fits { "fits" } else { "does not fit" }
                )
            }
            Chart::Time { estimate: e, .. } => {
                let t = &e.time;
                let x = &t.exposed_comm_s;
                format!(
                    "Step time {}: compute {}, recompute {}, exposed communication {}, bubble {}, optimizer {}{}; hidden communication {}. MFU {}, {}.",
                    fmt_seconds(t.step_s),
                    fmt_seconds(t.compute_s),
                    fmt_seconds(t.recompute_s),
                    fmt_seconds(x.total()),
                    fmt_seconds(t.bubble_s),
                    fmt_seconds(t.optimizer_s),
                    if t.offload_s > 0.0 {
                        format!(", host offload {}", fmt_seconds(t.offload_s))
                    } else {
                        String::new()
                    },
                    fmt_seconds(t.hidden_comm_s.total()),
                    fmt_pct(e.throughput.mfu),
                    fmt_rate(e.throughput.tokens_per_s, "tokens/s")
                )
            }
            Chart::Scaling(s) => {
                let parts: Vec<String> = s
                    .series
                    .iter()
                    .filter_map(|(name, pts)| {
                        let last = pts.iter().rev().find(|p| p.error.is_none())?;
                        Some(format!(
                            "{name}: {} at {} GPUs ({} efficiency)",
                            fmt_rate(last.tokens_per_s, "tokens/s"),
                            last.num_gpus,
                            fmt_pct(last.scaling_efficiency)
                        ))
                    })
                    .collect();
                let mode = match s.scaling {
                    Scaling::Strong => "Strong",
                    Scaling::Weak => "Weak",
                };
                format!("{mode} scaling. {}.", parts.join("; "))
            }
            Chart::Bucket(b) => {
                let best = b
                    .points
                    .iter()
                    .min_by(|x, y| x.step_s.total_cmp(&y.step_s));
                match best {
                    Some(p) => format!(
                        "Exposed data-parallel communication for {} bucket sizes; shortest step {} at {} MB.",
                        b.points.len(),
                        fmt_seconds(p.step_s),
                        p.bucket_mb
                    ),
                    None => "No bucket sizes.".to_string(),
                }
            }
            Chart::Schedule(d) => format!(
                "Pipeline schedule {} with {} stages, {} micro-batches, {} chunks per stage: bubble {} of the step.",
                d.schedule.as_str(),
                d.pp,
                d.micro_batches,
                d.vp,
                fmt_pct(d.bubble_fraction)
            ),
            Chart::Search(s) => {
                let r = &s.report;
                match r.best.first() {
                    Some(b) => format!(
                        "{} layouts evaluated, {} fit. Best: {} at {}, peak {}.",
                        r.evaluated,
                        r.feasible,
                        search::layout_label(&b.layout),
                        fmt_rate(b.tokens_per_s, "tokens/s"),
                        fmt_bytes(b.peak_bytes)
                    ),
                    None => format!("{} layouts evaluated, none fits.", r.evaluated),
                }
            }
        }
    }
}

/// "1024 GPUs", then one line per series ("Current … 145 k tokens/s (86.0% eff.)"), for one
/// column of the scaling chart.
fn scaling_tooltip(s: &ScalingInput, gpus: u64) -> String {
    let parts: Vec<String> = s
        .series
        .iter()
        .filter_map(|(name, pts)| {
            let p = pts
                .iter()
                .find(|p| p.num_gpus == gpus && p.error.is_none())?;
            let fit = if p.fits { "" } else { ", does not fit" };
            Some(format!(
                "{name} {} ({} eff.{fit})",
                fmt_rate(p.tokens_per_s, "tokens/s"),
                fmt_pct(p.scaling_efficiency)
            ))
        })
        .collect();
    format!("{gpus} GPUs\n{}", parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let w = super::super::style::fmt_bytes(e.memory.stages[2].weights_bytes);
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
        let t = scaling_tooltip(&d, 1024);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "1024 GPUs");
        assert!(lines[1].starts_with("Current (TP8 PP16) "), "{t}");
        // DP + ZeRO-3 cannot split the 1536 batch over 1024 replicas: no line for it.
        assert!(!t.contains("DP + ZeRO-3"), "{t}");
    }
}
