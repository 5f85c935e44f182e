//! The six charts for the current scenario, as keyboard-accessible tabs (or one chart alone in
//! embed mode). Chart data is derived with `use_memo` from the scenario and its estimate, and only
//! for the chart on show (the sweeps cost tens of estimates; the search runs only while its tab
//! is visible). With a pinned scenario the memory and time charts show A and B side by side.
//! The chart theme follows `prefers-color-scheme`, read in an effect (SSR renders light).

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;
use yew::prelude::*;

use crate::app::charts::input::{BucketInput, ScalingInput};
use crate::app::charts::schedule::ScheduleData;
use crate::app::charts::style::{fmt_bytes, fmt_pct, fmt_seconds};
use crate::app::charts::{Chart, ChartKind, Theme};
use crate::app::components::chart_canvas::ChartCanvas;
use crate::app::components::search_panel::SearchPanel;
use crate::engine::search::Layout;
use crate::engine::sweep::{
    default_bucket_sizes_mb, default_gpu_counts, set_scaling_efficiency, strategy_variants,
    sweep_bucket_size, sweep_gpus, Scaling,
};
use crate::engine::Estimate;
use crate::scenario::{Scenario, ScenarioError};

/// Props of [`ChartsPanel`].
#[derive(Clone, PartialEq, Properties)]
pub struct ChartsPanelProps {
    /// The current scenario (B of an A/B comparison).
    pub scenario: Rc<Scenario>,
    /// Its estimate.
    pub estimate: Rc<Result<Estimate, ScenarioError>>,
    /// The pinned scenario and its estimate (A of A/B).
    #[prop_or_default]
    pub pinned: Option<Rc<(Scenario, Result<Estimate, ScenarioError>)>>,
    /// Embed mode: show just this chart, without tabs.
    #[prop_or_default]
    pub only: Option<ChartKind>,
    /// The selected chart (the state's `chart`, share key `chart`); the panel keeps no
    /// selection of its own.
    #[prop_or(ChartKind::Memory)]
    pub selected: ChartKind,
    /// A search point or row was chosen.
    pub on_apply_layout: Callback<Layout>,
    /// A tab was chosen: the owner updates `selected`.
    #[prop_or_default]
    pub on_select: Callback<ChartKind>,
    /// Expected relative error of the plan's step time (0.07 = ±7 %), drawn around the scaling
    /// curve ([`crate::evidence::band`]).
    #[prop_or_default]
    pub band: Option<f64>,
    /// Expected relative error of the plan's peak memory (0.1 = ±10 %), for the search table's
    /// tight rows ([`crate::evidence::band::fit_caveat`]).
    #[prop_or_default]
    pub memory_band: Option<f64>,
}

/// Tab label.
pub fn tab_label(kind: ChartKind) -> &'static str {
    match kind {
        ChartKind::Memory => "Memory",
        ChartKind::Time => "Step time",
        ChartKind::Scaling => "Scaling",
        ChartKind::Bucket => "Bucket size",
        ChartKind::Schedule => "Schedule",
        ChartKind::Search => "Search",
    }
}

/// The tab reached from `kind` by a navigation key (`None` for other keys).
pub fn tab_after_key(kind: ChartKind, key: &str) -> Option<ChartKind> {
    let all = ChartKind::ALL;
    let n = all.len();
    let i = all.iter().position(|k| *k == kind).unwrap_or(0);
    let j = match key {
        "ArrowRight" | "ArrowDown" => (i + 1) % n,
        "ArrowLeft" | "ArrowUp" => (i + n - 1) % n,
        "Home" => 0,
        "End" => n - 1,
        _ => return None,
    };
    all.get(j).copied()
}

/// "B vs A" deltas for the A/B caption: step time and peak memory.
pub fn ab_summary(a: &Estimate, b: &Estimate) -> String {
    let dt = if a.time.step_s > 0.0 {
        b.time.step_s / a.time.step_s - 1.0
    } else {
        0.0
    };
    let dm = b.memory.peak_bytes - a.memory.peak_bytes;
    let sign = if dm < 0.0 { "−" } else { "+" };
    format!(
        "B vs A: step {} → {} ({}{}), peak memory {} → {} ({sign}{})",
        fmt_seconds(a.time.step_s),
        fmt_seconds(b.time.step_s),
        if dt >= 0.0 { "+" } else { "−" },
        fmt_pct(dt.abs()),
        fmt_bytes(a.memory.peak_bytes),
        fmt_bytes(b.memory.peak_bytes),
        fmt_bytes(dm.abs()),
    )
}

/// The charts' data, each memoised on what it depends on (see `use_charts`).
struct Charts {
    memory: Option<Rc<Chart>>,
    time: Option<Rc<Chart>>,
    /// A/B: A's memory and time charts, and B's time chart on their common time scale.
    ab: Option<(Rc<Chart>, Rc<Chart>, Rc<Chart>)>,
    scaling: Option<Rc<Chart>>,
    bucket: Option<Rc<Chart>>,
    schedule: Option<Rc<Chart>>,
}

/// The six charts; see the module docs. Steps: the theme (`use_theme`), the chart data
/// (`use_charts`), the body for the selected chart (`body`), and the tab list (`tabs`).
#[component]
pub fn ChartsPanel(props: &ChartsPanelProps) -> Html {
    let kind = props.only.unwrap_or(props.selected);
    let scaling = use_state_eq(|| Scaling::Strong);
    let theme = use_theme();
    let charts = use_charts(props, kind, *scaling);
    let body = body(props, kind, &charts, &scaling, theme);
    let search = search_panel(props, kind, charts.memory.is_some(), theme);
    let panel_id = format!("chart-panel-{}", kind.as_str());
    if props.only.is_some() {
        return html! {
            <div class={classes!("charts", "charts-panel", "charts-embed", theme_class(theme))} id="charts" data-chart={kind.as_str()}>
                { body }
                { search }
            </div>
        };
    }
    html! {
        <section class={classes!("card", "charts", "charts-panel", theme_class(theme))} id="charts"
            aria-label="Charts" data-chart={kind.as_str()}>
            { tabs(kind, &props.on_select) }
            <div class="charts-tabpanel" role="tabpanel" id={panel_id}
                aria-labelledby={format!("chart-tab-{}", kind.as_str())}>
                { body }
                { search }
            </div>
        </section>
    }
}

/// The chart theme: `prefers-color-scheme`, read and followed in an effect (never while
/// rendering; server-side rendering keeps the light theme).
#[hook]
fn use_theme() -> Theme {
    let theme = use_state_eq(Theme::default);
    {
        let theme = theme.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window()
                .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
                .map(|mq| {
                    let pick = |dark: bool| if dark { Theme::Dark } else { Theme::Light };
                    theme.set(pick(mq.matches()));
                    let target = mq.clone();
                    gloo::events::EventListener::new(&mq, "change", move |_| {
                        theme.set(pick(target.matches()));
                    })
                });
            move || drop(listener)
        });
    }
    *theme
}

/// Every chart's data, memoised: the estimate's charts once per estimate, the sweeps (tens of
/// estimates) only while their tab is shown.
#[hook]
fn use_charts(props: &ChartsPanelProps, kind: ChartKind, mode: Scaling) -> Charts {
    let estimate = use_memo(props.estimate.clone(), |e| {
        e.as_ref().as_ref().ok().map(|e| Rc::new(e.clone()))
    });
    let pinned = use_memo(props.pinned.clone(), |p| {
        p.as_ref()
            .and_then(|p| p.1.as_ref().ok().map(|e| Rc::new(e.clone())))
    });
    let memory = use_memo(estimate.clone(), |e| {
        (**e).clone().map(|e| Rc::new(Chart::Memory(e)))
    });
    let time = use_memo((estimate.clone(), props.scenario.clone()), |(e, s)| {
        (**e).clone().map(|estimate| {
            Rc::new(Chart::Time {
                estimate,
                scale_s: None,
                uncalibrated_s: uncalibrated_step_s(s),
            })
        })
    });
    let ab = use_memo((pinned, estimate.clone()), |(a, b)| {
        let (a, b) = ((**a).as_ref()?, (**b).as_ref()?);
        let scale_s = Some(a.time.step_s.max(b.time.step_s));
        let time = |e: &Rc<Estimate>| {
            Rc::new(Chart::Time {
                estimate: e.clone(),
                scale_s,
                uncalibrated_s: None,
            })
        };
        Some((Rc::new(Chart::Memory(a.clone())), time(a), time(b)))
    });
    let ok = estimate.is_some();
    let scaling = use_memo(
        (
            props.scenario.clone(),
            mode,
            kind == ChartKind::Scaling && ok,
            props.band.map(f64::to_bits),
        ),
        |(s, mode, needed, band)| {
            needed.then(|| Rc::new(scaling_chart_with_band(s, *mode, band.map(f64::from_bits))))
        },
    );
    let bucket = use_memo(
        (
            props.scenario.clone(),
            estimate.clone(),
            kind == ChartKind::Bucket,
        ),
        |(s, e, needed)| {
            let e = (**e).as_ref().filter(|_| *needed)?;
            Some(Rc::new(bucket_chart(s, e)?))
        },
    );
    let schedule = use_memo((props.scenario.clone(), estimate), |(s, e)| {
        (**e)
            .as_ref()
            .map(|e| Rc::new(Chart::Schedule(ScheduleData::from_scenario(s, &e.time))))
    });
    Charts {
        memory: (*memory).clone(),
        time: (*time).clone(),
        ab: (*ab).clone(),
        scaling: (*scaling).clone(),
        bucket: (*bucket).clone(),
        schedule: (*schedule).clone(),
    }
}

/// The canvas of one chart.
fn canvas(chart: Rc<Chart>, id: String, key: String, theme: Theme, height: u32) -> Html {
    html! { <ChartCanvas {key} {id} {chart} {theme} {height} /> }
}

/// What the selected chart shows: a message while the scenario is invalid, else its canvas
/// (two side by side for an A/B memory or time chart; the mode toggle above the scaling chart).
fn body(
    props: &ChartsPanelProps,
    kind: ChartKind,
    charts: &Charts,
    scaling: &UseStateHandle<Scaling>,
    theme: Theme,
) -> Html {
    let id = format!("chart-{}", kind.as_str());
    let key = kind.as_str().to_string();
    if charts.memory.is_none() {
        return invalid_message(&props.estimate);
    }
    match kind {
        ChartKind::Memory | ChartKind::Time => {
            let (b, a) = if kind == ChartKind::Memory {
                (
                    charts.memory.clone(),
                    charts.ab.as_ref().map(|x| (x.0.clone(), None)),
                )
            } else {
                (
                    charts.time.clone(),
                    charts.ab.as_ref().map(|x| (x.1.clone(), Some(x.2.clone()))),
                )
            };
            match (b, a) {
                (Some(b), Some((a, b_shared))) => {
                    ab_view(props, kind, a, b_shared.unwrap_or(b), theme)
                }
                (Some(b), None) => canvas(b, id, key, theme, 380),
                (None, _) => html! {},
            }
        }
        ChartKind::Scaling => html! {
            <>
                { scaling_toggle(scaling) }
                { for charts.scaling.clone().map(|c| canvas(c, id, key, theme, 460)) }
            </>
        },
        ChartKind::Bucket => match charts.bucket.clone() {
            Some(c) => canvas(c, id, key, theme, 380),
            None => {
                html! { <p class="charts-error">{ "The bucket sweep needs a valid scenario." }</p> }
            }
        },
        ChartKind::Schedule => charts
            .schedule
            .clone()
            .map_or_else(|| html! {}, |c| canvas(c, id, key, theme, 380)),
        ChartKind::Search => html! {},
    }
}

/// Why there are no charts: the first of the scenario's problems.
fn invalid_message(estimate: &Result<Estimate, ScenarioError>) -> Html {
    let msg = match estimate {
        Err(e) => match e.issues.first() {
            Some(i) => format!(
                "The charts appear once the scenario is valid ({} problem{}; first: {}: {}).",
                e.issues.len(),
                if e.issues.len() == 1 { "" } else { "s" },
                i.field,
                i.message
            ),
            None => "The charts appear once the scenario is valid.".to_string(),
        },
        Ok(_) => String::new(),
    };
    html! { <p class="charts-error" role="status">{ msg }</p> }
}

/// A (pinned) and B (current) side by side, with the B-vs-A caption.
fn ab_view(
    props: &ChartsPanelProps,
    kind: ChartKind,
    a: Rc<Chart>,
    b: Rc<Chart>,
    theme: Theme,
) -> Html {
    let summary = match (&*props.estimate, props.pinned.as_deref()) {
        (Ok(be), Some((_, Ok(ae)))) => ab_summary(ae, be),
        _ => String::new(),
    };
    let k = kind.as_str();
    html! {
        <>
            <p class="charts-ab-summary">{ summary }</p>
            <div class="charts-ab">
                <section class="charts-ab-side" aria-label="A: pinned scenario">
                    <h3 class="charts-ab-title"><span class="ab-badge ab-a">{ "A" }</span>{ " pinned" }</h3>
                    { canvas(a, format!("chart-{k}-a"), format!("{k}-a"), theme, 360) }
                </section>
                <section class="charts-ab-side" aria-label="B: current scenario">
                    <h3 class="charts-ab-title"><span class="ab-badge ab-b">{ "B" }</span>{ " current" }</h3>
                    { canvas(b, format!("chart-{k}"), k.to_string(), theme, 360) }
                </section>
            </div>
        </>
    }
}

/// Strong / weak scaling buttons.
fn scaling_toggle(scaling: &UseStateHandle<Scaling>) -> Html {
    let toggle = |mode: Scaling, label: &'static str| {
        let scaling = scaling.clone();
        let pressed = *scaling == mode;
        html! {
            <button type="button" class="scaling-mode" aria-pressed={pressed.to_string()}
                onclick={Callback::from(move |_: MouseEvent| scaling.set(mode))}>{ label }</button>
        }
    };
    html! {
        <div class="scaling-toggle" role="group" aria-label="Scaling mode">
            { toggle(Scaling::Strong, "Strong scaling (fixed global batch)") }
            { toggle(Scaling::Weak, "Weak scaling (fixed batch per replica)") }
        </div>
    }
}

/// The search panel. It stays mounted (hidden when another tab is shown) so its result
/// survives tab switches; it only searches while visible.
fn search_panel(props: &ChartsPanelProps, kind: ChartKind, ok: bool, theme: Theme) -> Html {
    if !ok || !(props.only.is_none() || props.only == Some(ChartKind::Search)) {
        return html! {};
    }
    let visible = kind == ChartKind::Search;
    html! {
        <div class="charts-search" hidden={!visible}>
            <SearchPanel
                scenario={props.scenario.clone()}
                estimate={props.estimate.clone()}
                enabled={visible}
                {theme}
                on_apply_layout={props.on_apply_layout.clone()}
                memory_band={props.memory_band}
            />
        </div>
    }
}

/// The tab list: click or arrow keys choose a chart (the owner's `on_select`); the keyboard
/// moves focus to the new tab.
fn tabs(kind: ChartKind, on_select: &Callback<ChartKind>) -> Html {
    let onkeydown = {
        let on_select = on_select.clone();
        Callback::from(move |e: KeyboardEvent| {
            if let Some(k) = tab_after_key(kind, &e.key()) {
                e.prevent_default();
                on_select.emit(k);
                focus_by_id(&format!("chart-tab-{}", k.as_str()));
            }
        })
    };
    html! {
        <div class="charts-tabs" role="tablist" aria-label="Charts">
            { for ChartKind::ALL.iter().map(|&k| {
                let on = k == kind;
                let onclick = {
                    let on_select = on_select.clone();
                    Callback::from(move |_: MouseEvent| if k != kind { on_select.emit(k) })
                };
                html! {
                    <button
                        type="button"
                        role="tab"
                        class="charts-tab"
                        id={format!("chart-tab-{}", k.as_str())}
                        aria-selected={on.to_string()}
                        aria-controls={format!("chart-panel-{}", k.as_str())}
                        tabindex={if on { "0" } else { "-1" }}
                        {onclick}
                        onkeydown={onkeydown.clone()}
                    >{ tab_label(k) }</button>
                }
            }) }
        </div>
    }
}

fn theme_class(t: Theme) -> &'static str {
    match t {
        Theme::Light => "charts-light",
        Theme::Dark => "charts-dark",
    }
}

/// The step time of `s` without its calibration, when it has one (the time chart's faint
/// marker); `None` for an uncalibrated scenario or an estimate that fails.
pub fn uncalibrated_step_s(s: &Scenario) -> Option<f64> {
    if s.calibration.is_default() {
        return None;
    }
    crate::engine::estimate(&s.uncalibrated())
        .ok()
        .map(|e| e.time.step_s)
}

/// Scaling curves: the current layout and the strategy variants over the default GPU counts.
pub fn scaling_chart(s: &Scenario, mode: Scaling) -> Chart {
    scaling_chart_with_band(s, mode, None)
}

/// [`scaling_chart`] with the expected relative error `band` of the current layout drawn around
/// its curve; a calibrated scenario also gets its uncalibrated curve, drawn faint.
pub fn scaling_chart_with_band(s: &Scenario, mode: Scaling, band: Option<f64>) -> Chart {
    let counts = default_gpu_counts(s);
    let mut series = strategy_variants(s)
        .into_iter()
        .map(|(name, v)| {
            let name = if name == "current" {
                format!(
                    "Current (TP{} PP{}{})",
                    s.parallel.tp,
                    s.parallel.pp,
                    if s.parallel.cp > 1 {
                        format!(" CP{}", s.parallel.cp)
                    } else {
                        String::new()
                    }
                )
            } else {
                name.to_string()
            };
            (name, sweep_gpus(&v, &counts, mode))
        })
        .collect::<Vec<_>>();
    let mut views: Vec<&mut [_]> = series.iter_mut().map(|x| x.1.as_mut_slice()).collect();
    set_scaling_efficiency(&mut views);
    let uncalibrated =
        (!s.calibration.is_default()).then(|| sweep_gpus(&s.uncalibrated(), &counts, mode));
    Chart::Scaling(Rc::new(ScalingInput {
        series,
        scaling: mode,
        current_gpus: Some(s.cluster.num_gpus),
        band,
        uncalibrated,
    }))
}

/// The bucket-size curve of `s`, marked at the bucket its estimate `e` models
/// ([`TimeEstimate::dp_bucket_bytes`](crate::engine::TimeEstimate::dp_bucket_bytes)); `None`
/// when the sweep fails.
pub fn bucket_chart(s: &Scenario, e: &Estimate) -> Option<Chart> {
    let points = sweep_bucket_size(s, &default_bucket_sizes_mb()).ok()?;
    Some(Chart::Bucket(Rc::new(BucketInput {
        points,
        current_mb: Some(e.time.dp_bucket_bytes / 1e6),
    })))
}

/// Moves keyboard focus to the element with `id`, if any.
fn focus_by_id(id: &str) {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_keys_wrap_around_the_tabs() {
        for (from, key, to) in [
            (ChartKind::Memory, "ArrowRight", ChartKind::Time),
            (ChartKind::Memory, "ArrowLeft", ChartKind::Search),
            (ChartKind::Search, "ArrowRight", ChartKind::Memory),
            (ChartKind::Bucket, "Home", ChartKind::Memory),
            (ChartKind::Bucket, "End", ChartKind::Search),
        ] {
            assert_eq!(tab_after_key(from, key), Some(to), "{key}");
        }
        assert_eq!(tab_after_key(ChartKind::Bucket, "a"), None);
    }

    #[test]
    fn ab_summary_signs() {
        let mut a = Estimate::default();
        a.time.step_s = 2.0;
        a.memory.peak_bytes = 40.0 * 1024.0 * 1024.0 * 1024.0;
        let mut b = a.clone();
        b.time.step_s = 1.5; // −25%
        b.memory.peak_bytes = 42.0 * 1024.0 * 1024.0 * 1024.0; // +2 GiB
        assert_eq!(
            ab_summary(&a, &b),
            "B vs A: step 2.00 s → 1.50 s (−25.0%), peak memory 40.0 GiB → 42.0 GiB (+2.0 GiB)"
        );
    }

    #[test]
    fn scaling_chart_has_the_current_layout_and_variants() {
        let s = crate::scenario::parse(include_str!("../../../tests/data/gpt3-175b-1024.json"))
            .expect("bench scenario parses");
        let Chart::Scaling(d) = scaling_chart(&s, Scaling::Strong) else {
            panic!("not a scaling chart");
        };
        let names: Vec<&str> = d.series.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(
            names,
            ["Current (TP8 PP16)", "DP + ZeRO-3", "TP + DP", "PP + DP"]
        );
        assert_eq!(d.current_gpus, Some(1024));
        // Current layout: 128, 256, …, 4096 GPUs (tp·pp = 128, up to 4 × 1024).
        let gpus: Vec<u64> = d.series[0].1.iter().map(|p| p.num_gpus).collect();
        assert_eq!(gpus, [128, 256, 512, 1024, 2048, 4096]);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod ssr {
    use super::*;

    fn render(props: ChartsPanelProps) -> String {
        futures::executor::block_on(
            yew::LocalServerRenderer::<ChartsPanel>::with_props(props).render(),
        )
    }

    /// The panel for `scenario` (estimated here), with no-op callbacks.
    fn render_scenario(
        scenario: Scenario,
        pinned: Option<Rc<(Scenario, Result<Estimate, ScenarioError>)>>,
        only: Option<ChartKind>,
        selected: ChartKind,
    ) -> String {
        let e = crate::engine::estimate(&scenario);
        render(ChartsPanelProps {
            scenario: Rc::new(scenario),
            estimate: Rc::new(e),
            pinned,
            only,
            selected,
            on_apply_layout: Callback::noop(),
            on_select: Callback::noop(),
            band: None,
            memory_band: None,
        })
    }

    fn bench() -> Scenario {
        crate::scenario::parse(include_str!("../../../tests/data/gpt3-175b-1024.json"))
            .expect("bench scenario parses")
    }

    #[test]
    fn renders_six_tabs_natively_with_the_initial_one_selected() {
        let html = render_scenario(bench(), None, None, ChartKind::Schedule);
        assert_eq!(html.matches("role=\"tab\"").count(), 6, "{html}");
        assert!(html.contains("id=\"chart-tab-schedule\""));
        assert!(html.contains("aria-selected=\"true\""));
        assert!(html.contains("<canvas"), "{html}");
        assert!(html.contains("id=\"chart-schedule\""));
        assert!(html.contains("role=\"tablist\""));
        // The accessible name is the chart's summary: 16 stages, 1F1B.
        assert!(
            html.contains("Pipeline schedule 1f1b with 16 stages"),
            "{html}"
        );
    }

    #[test]
    fn an_invalid_scenario_shows_text_not_charts() {
        let mut s = bench();
        s.parallel.tp = 7;
        assert!(crate::engine::estimate(&s).is_err());
        let html = render_scenario(s, None, Some(ChartKind::Memory), ChartKind::Memory);
        assert!(
            html.contains("The charts appear once the scenario is valid"),
            "{html}"
        );
        assert!(!html.contains("<canvas"));
        assert!(!html.contains("role=\"tablist\""), "embed mode has no tabs");
    }

    #[test]
    fn embed_mode_shows_only_its_chart() {
        let html = render_scenario(bench(), None, Some(ChartKind::Bucket), ChartKind::Memory);
        assert_eq!(html.matches("<canvas").count(), 1, "{html}");
        assert!(html.contains("id=\"chart-bucket\""));
        assert!(!html.contains("role=\"tablist\""));
        assert!(
            !html.contains("search-panel"),
            "no search in a bucket embed"
        );
    }

    #[test]
    fn pinned_shows_a_and_b_side_by_side() {
        let s = bench();
        let mut a = s.clone();
        a.parallel.tp = 4;
        a.parallel.dp = 16;
        let ae = crate::engine::estimate(&a);
        let html = render_scenario(s, Some(Rc::new((a, ae))), None, ChartKind::Time);
        assert!(html.contains("id=\"chart-time-a\""), "{html}");
        assert!(html.contains("id=\"chart-time\""));
        assert!(html.contains("B vs A: step"));
    }
}
