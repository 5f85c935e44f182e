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
    /// The chart selected first (share key `chart`).
    #[prop_or(ChartKind::Memory)]
    pub initial: ChartKind,
    /// A search point or row was chosen.
    pub on_apply_layout: Callback<Layout>,
    /// The selected tab changed.
    #[prop_or_default]
    pub on_select: Callback<ChartKind>,
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

/// The six charts; see the module docs.
#[component]
pub fn ChartsPanel(props: &ChartsPanelProps) -> Html {
    let selected = use_state_eq(|| props.only.unwrap_or(props.initial));
    let scaling = use_state_eq(|| Scaling::Strong);
    let theme = use_state_eq(Theme::default);
    let kind = props.only.unwrap_or(*selected);

    // prefers-color-scheme, read and followed in an effect (never while rendering).
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

    let estimate = use_memo(props.estimate.clone(), |e| {
        e.as_ref().as_ref().ok().map(|e| Rc::new(e.clone()))
    });
    let pinned = use_memo(props.pinned.clone(), |p| {
        p.as_ref().and_then(|p| {
            p.1.as_ref()
                .ok()
                .map(|e| (Rc::new(p.0.clone()), Rc::new(e.clone())))
        })
    });

    let memory = use_memo(estimate.clone(), |e| {
        (**e).clone().map(|e| Rc::new(Chart::Memory(e)))
    });
    let time = use_memo(estimate.clone(), |e| {
        (**e).clone().map(|estimate| {
            Rc::new(Chart::Time {
                estimate,
                scale_s: None,
            })
        })
    });
    // A/B: A's memory and time charts, and B's time chart on A's and B's common time scale.
    let pinned_charts = use_memo((pinned.clone(), estimate.clone()), |(p, b)| {
        let ((_, a), b) = ((**p).as_ref()?, (**b).as_ref()?);
        let scale_s = Some(a.time.step_s.max(b.time.step_s));
        Some((
            Rc::new(Chart::Memory(a.clone())),
            Rc::new(Chart::Time {
                estimate: a.clone(),
                scale_s,
            }),
            Rc::new(Chart::Time {
                estimate: b.clone(),
                scale_s,
            }),
        ))
    });
    let ok = estimate.is_some();
    let scaling_chart = use_memo(
        (
            props.scenario.clone(),
            *scaling,
            kind == ChartKind::Scaling && ok,
        ),
        |(s, mode, needed)| needed.then(|| Rc::new(scaling_chart(s, *mode))),
    );
    let bucket_chart = use_memo(
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
    let schedule_chart = use_memo((props.scenario.clone(), estimate.clone()), |(s, e)| {
        (**e)
            .as_ref()
            .map(|e| Rc::new(Chart::Schedule(ScheduleData::from_scenario(s, &e.time))))
    });

    let select = {
        let (selected, on_select) = (selected.clone(), props.on_select.clone());
        Callback::from(move |k: ChartKind| {
            if *selected != k {
                selected.set(k);
                on_select.emit(k);
            }
        })
    };
    let onkeydown = {
        let (select, current) = (select.clone(), kind);
        Callback::from(move |e: KeyboardEvent| {
            if let Some(k) = tab_after_key(current, &e.key()) {
                e.prevent_default();
                select.emit(k);
                focus_by_id(&format!("chart-tab-{}", k.as_str()));
            }
        })
    };

    let theme_v = *theme;
    let body = match (&*estimate, kind) {
        (None, _) => {
            let msg = match &*props.estimate {
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
        (Some(_), ChartKind::Memory | ChartKind::Time) => {
            let b = if kind == ChartKind::Memory {
                (*memory).clone()
            } else {
                (*time).clone()
            };
            let ab = (*pinned_charts).clone().zip((*pinned).clone());
            match (b, ab) {
                (Some(b), Some(((am, at, bt), (_, ae)))) => {
                    let (a, b) = if kind == ChartKind::Memory {
                        (am, b)
                    } else {
                        (at, bt)
                    };
                    let summary = (*estimate)
                        .as_ref()
                        .map(|be| ab_summary(&ae, be))
                        .unwrap_or_default();
                    html! {
                        <>
                            <p class="charts-ab-summary">{ summary }</p>
                            <div class="charts-ab">
                                <section class="charts-ab-side" aria-label="A: pinned scenario">
                                    <h3 class="charts-ab-title"><span class="ab-badge ab-a">{ "A" }</span>{ " pinned" }</h3>
                                    <ChartCanvas key={format!("{}-a", kind.as_str())} id={format!("chart-{}-a", kind.as_str())} chart={a} theme={theme_v} height={360} />
                                </section>
                                <section class="charts-ab-side" aria-label="B: current scenario">
                                    <h3 class="charts-ab-title"><span class="ab-badge ab-b">{ "B" }</span>{ " current" }</h3>
                                    <ChartCanvas key={kind.as_str()} id={format!("chart-{}", kind.as_str())} chart={b} theme={theme_v} height={360} />
                                </section>
                            </div>
                        </>
                    }
                }
                (Some(b), None) => html! {
                    <ChartCanvas key={kind.as_str()} id={format!("chart-{}", kind.as_str())} chart={b} theme={theme_v} height={380} />
                },
                (None, _) => html! {},
            }
        }
        (Some(_), ChartKind::Scaling) => {
            let toggle = |mode: Scaling, label: &'static str| {
                let scaling = scaling.clone();
                let pressed = *scaling == mode;
                html! {
                    <button type="button" class="scaling-mode" aria-pressed={pressed.to_string()}
                        onclick={Callback::from(move |_: MouseEvent| scaling.set(mode))}>{ label }</button>
                }
            };
            html! {
                <>
                    <div class="scaling-toggle" role="group" aria-label="Scaling mode">
                        { toggle(Scaling::Strong, "Strong scaling (fixed global batch)") }
                        { toggle(Scaling::Weak, "Weak scaling (fixed batch per replica)") }
                    </div>
                    if let Some(chart) = (*scaling_chart).clone() {
                        <ChartCanvas key="scaling" id="chart-scaling" {chart} theme={theme_v} height={460} />
                    }
                </>
            }
        }
        (Some(_), ChartKind::Bucket) => match (*bucket_chart).clone() {
            Some(chart) => {
                html! { <ChartCanvas key="bucket" id="chart-bucket" {chart} theme={theme_v} height={380} /> }
            }
            None => {
                html! { <p class="charts-error">{ "The bucket sweep needs a valid scenario." }</p> }
            }
        },
        (Some(_), ChartKind::Schedule) => match (*schedule_chart).clone() {
            Some(chart) => {
                html! { <ChartCanvas key="schedule" id="chart-schedule" {chart} theme={theme_v} height={380} /> }
            }
            None => html! {},
        },
        (Some(_), ChartKind::Search) => html! {},
    };
    // The search panel stays mounted (hidden when another tab is shown) so its result survives
    // tab switches; it only searches while visible.
    let search = if ok && (props.only.is_none() || props.only == Some(ChartKind::Search)) {
        let visible = kind == ChartKind::Search;
        html! {
            <div class="charts-search" hidden={!visible}>
                <SearchPanel
                    scenario={props.scenario.clone()}
                    estimate={props.estimate.clone()}
                    enabled={visible}
                    theme={theme_v}
                    on_apply_layout={props.on_apply_layout.clone()}
                />
            </div>
        }
    } else {
        html! {}
    };

    let panel_id = format!("chart-panel-{}", kind.as_str());
    if props.only.is_some() {
        return html! {
            <div class={classes!("charts", "charts-panel", "charts-embed", theme_class(theme_v))} id="charts" data-chart={kind.as_str()}>
                { body }
                { search }
            </div>
        };
    }
    html! {
        <section class={classes!("card", "charts", "charts-panel", theme_class(theme_v))} id="charts"
            aria-label="Charts" data-chart={kind.as_str()}>
            <div class="charts-tabs" role="tablist" aria-label="Charts">
                { for ChartKind::ALL.iter().map(|&k| {
                    let on = k == kind;
                    let onclick = {
                        let select = select.clone();
                        Callback::from(move |_: MouseEvent| select.emit(k))
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
            <div class="charts-tabpanel" role="tabpanel" id={panel_id}
                aria-labelledby={format!("chart-tab-{}", kind.as_str())}>
                { body }
                { search }
            </div>
        </section>
    }
}

fn theme_class(t: Theme) -> &'static str {
    match t {
        Theme::Light => "charts-light",
        Theme::Dark => "charts-dark",
    }
}

/// Scaling curves: the current layout and the strategy variants over the default GPU counts.
pub fn scaling_chart(s: &Scenario, mode: Scaling) -> Chart {
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
    Chart::Scaling(Rc::new(ScalingInput {
        series,
        scaling: mode,
        current_gpus: Some(s.cluster.num_gpus),
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
        initial: ChartKind,
    ) -> String {
        let e = crate::engine::estimate(&scenario);
        render(ChartsPanelProps {
            scenario: Rc::new(scenario),
            estimate: Rc::new(e),
            pinned,
            only,
            initial,
            on_apply_layout: Callback::noop(),
            on_select: Callback::noop(),
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
