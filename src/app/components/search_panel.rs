//! The search tab: runs [`use_search`] in slices with a progress bar and a cancel button, then
//! shows the scatter (click a point to apply it) and a table of the best layouts (each row applies
//! its layout), plus why the other layouts were rejected.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::charts::input::SearchInput;
use crate::app::charts::search::layout_label;
use crate::app::charts::style::{fmt_bytes, fmt_pct, fmt_rate, fmt_seconds};
use crate::app::charts::{Chart, Theme};
use crate::app::click::emit_on_click;
use crate::app::components::chart_canvas::ChartCanvas;
use crate::app::components::table::col_heads;
use crate::app::hooks::use_fetched::{use_evidence, Evidence};
use crate::app::hooks::use_search::{use_search, SHOWN};
use crate::engine::search::Layout;
use crate::engine::Estimate;
use crate::evidence::band;
use crate::evidence::{published_like, Case};
use crate::scenario::{Scenario, ScenarioError};
use crate::text::num::Fixed;

/// Props of [`SearchPanel`].
#[derive(Clone, PartialEq, Properties)]
pub struct SearchPanelProps {
    /// The scenario whose model, training setup and cluster are searched.
    pub scenario: Rc<Scenario>,
    /// Its estimate (marks the current layout).
    pub estimate: Rc<Result<Estimate, ScenarioError>>,
    /// Run the search (the tab is visible); hidden panels keep their last result.
    #[prop_or(true)]
    pub enabled: bool,
    /// Chart palette.
    #[prop_or_default]
    pub theme: Theme,
    /// A point or a table row was chosen.
    pub on_apply_layout: Callback<Layout>,
    /// The plan's memory band as a fraction (the owner's [`band::Band::memory_frac`]): rows
    /// whose peak is within it of the limit are marked tight ([`band::fit_caveat`]).
    #[prop_or_default]
    pub memory_band: Option<f64>,
}

/// "123 456" (thin groups for large counts).
fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push('\u{202F}');
        }
        out.push(ch);
    }
    out
}

/// Sliced layout search with progress, scatter and best-layout table.
#[component]
pub fn SearchPanel(props: &SearchPanelProps) -> Html {
    let search = use_search(props.scenario.clone(), props.enabled);
    let evidence = use_evidence(props.enabled);
    let cases: Option<Rc<Vec<Case>>> = match evidence {
        Evidence::Ready(c) => Some(c),
        _ => None,
    };
    let st = search.status.clone();
    let current = Layout::of(&props.scenario);
    let current_at = match &*props.estimate {
        Ok(e) => Some((e.memory.peak_bytes, e.throughput.tokens_per_s)),
        Err(_) => None,
    };
    let capacity = match &*props.estimate {
        Ok(e) if e.memory.capacity_bytes > 0.0 => Some(e.memory.capacity_bytes),
        _ => None,
    };
    let chart = use_memo(
        (
            st.report.clone(),
            current,
            current_at.map(|(a, b)| (a.to_bits(), b.to_bits())),
            capacity.map(f64::to_bits),
        ),
        move |(report, ..)| {
            report.as_ref().map(|r| {
                Rc::new(Chart::Search(Rc::new(SearchInput {
                    report: r.clone(),
                    current: Some(current),
                    current_at,
                    capacity_bytes: capacity,
                })))
            })
        },
    );

    let tight = Tight {
        capacity,
        frac: props.memory_band,
    };

    // Rank layouts like published runs first (the default), or purely by speed.
    let published_first = use_state(|| true);
    let on_order = {
        let published_first = published_first.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            published_first.set(el.checked());
        })
    };
    let on_cancel = emit_on_click(&search.cancel, ());
    let on_restart = emit_on_click(&search.restart, ());

    let status_text = if st.running {
        format!(
            "Searching… {} of {} layouts ({}%)",
            grouped(st.done),
            grouped(st.total),
            Fixed(st.fraction() * 100.0, 0)
        )
    } else if let Some(r) = &st.report {
        format!(
            "Searched {} layouts in {}: {} fit in memory.",
            grouped(r.evaluated),
            fmt_seconds(st.elapsed_ms / 1000.0),
            grouped(r.feasible)
        )
    } else if st.cancelled {
        format!(
            "Search cancelled after {} of {} layouts.",
            grouped(st.done),
            grouped(st.total)
        )
    } else {
        "The search starts when this tab is shown.".to_string()
    };
    let state = if st.running {
        "running"
    } else if st.report.is_some() {
        "done"
    } else if st.cancelled {
        "cancelled"
    } else {
        "idle"
    };

    html! {
        <div class="search-panel" data-search-state={state} data-search-slices={st.slices.to_string()}
            data-search-ms={Fixed(st.elapsed_ms, 0).to_string()}>
            <div class="search-status">
                <progress
                    class="search-progress"
                    max={st.total.max(1).to_string()}
                    value={st.done.to_string()}
                    aria-label="Search progress"
                />
                <span class="search-status-text" role="status" aria-live="polite">{ status_text }</span>
                if st.running {
                    <button type="button" class="search-cancel" onclick={on_cancel}>{ "Cancel" }</button>
                } else {
                    <button type="button" class="search-restart" onclick={on_restart}>{ "Search again" }</button>
                }
            </div>
            if let Some(chart) = (*chart).clone() {
                <ChartCanvas
                    id="chart-search"
                    {chart}
                    theme={props.theme}
                    height={400}
                    on_pick={props.on_apply_layout.clone()}
                />
            }
            if let Some(r) = &st.report {
                <p class="field check search-order">
                    <input type="checkbox" id="search-published-first" checked={*published_first} onchange={on_order} />
                    <label for="search-published-first">{ "Layouts like published runs first (else fastest first)" }</label>
                </p>
                { best_table(r, &current, &props.on_apply_layout, &props.scenario, cases.as_deref().map(Vec::as_slice), tight, *published_first) }
                { rejected_list(r) }
            }
        </div>
    }
}

/// The published run like `layout` on `base` ([`published_like`]); `None` while the runs load.
fn like_published<'a>(
    base: &Scenario,
    layout: &Layout,
    cases: Option<&'a [Case]>,
) -> Option<Option<&'a Case>> {
    let cases = cases?;
    let mut s = base.clone();
    layout.apply(&mut s);
    Some(published_like(cases, &s))
}

/// Whether published runs like a layout exist ([`like_published`]), as a table cell.
fn published_cell(like: Option<Option<&Case>>) -> Html {
    let Some(like) = like else {
        return html! { <td class="muted">{ "…" }</td> };
    };
    match like {
        Some(c) => html! {
            <td class="published" title={format!("{} on {} × {} ({})", c.scenario.model.name,
                c.scenario.cluster.num_gpus, c.scenario.cluster.gpu_name(), c.source)}>
                { "published" }<br/><span class="small">{ c.scenario.model.name.clone() }</span>
            </td>
        },
        None => html! { <td class="extrapolated">{ "extrapolated" }</td> },
    }
}

/// The GPU's usable memory and the plan's memory band, for marking layouts whose peak is within
/// the band of the limit.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Tight {
    capacity: Option<f64>,
    frac: Option<f64>,
}

impl Tight {
    /// The caveat when a layout peaking at `peak` bytes could fail to fit ([`band::fit_caveat`]).
    fn of(self, peak: f64) -> Option<String> {
        band::fit_caveat(peak, self.capacity?, self.frac?)
    }
}

/// The best layouts, fastest first; each row applies its layout and says whether published runs
/// like it exist (same GPU generation, framework and parallel style) or it is extrapolated, and
/// marks a peak memory within the memory band of the limit as tight.
fn best_table(
    r: &crate::engine::search::SearchReport,
    current: &Layout,
    on_apply: &Callback<Layout>,
    base: &Scenario,
    cases: Option<&[Case]>,
    tight: Tight,
    published_first: bool,
) -> Html {
    if r.best.is_empty() {
        return html! { <p class="search-none">{ "No layout fits in GPU memory." }</p> };
    }
    // Each kept layout with the published run like it; those like one first (a stable sort, so
    // fastest first within each group), then the first SHOWN.
    let mut rows: Vec<_> = r
        .best
        .iter()
        .map(|b| (b, like_published(base, &b.layout, cases)))
        .collect();
    if published_first {
        crate::sort::sort_by_key(&mut rows, |(_, like)| !matches!(like, Some(Some(_))));
    }
    rows.truncate(SHOWN);
    // Wider than a narrow screen: the table scrolls inside its box, not the page.
    html! {
        <div class="table-wrap">
        <table class="search-best">
            <caption>{ if published_first { "Layouts that fit, those like published runs first, then the fastest (click a row to use it)" } else { "Fastest layouts that fit (click a row to use it)" } }</caption>
            <thead>
                <tr>
                    { col_heads(&["#", "Runs like it", "Layout", "Recompute", "Throughput", "MFU", "Step", "Peak memory"]) }
                    <th scope="col"><span class="visually-hidden">{ "Apply" }</span></th>
                </tr>
            </thead>
            <tbody>
                { for rows.into_iter().enumerate().map(|(i, (b, like))| {
                    let layout = b.layout;
                    let onclick = emit_on_click(on_apply, layout);
                    let is_current = layout == *current;
                    html! {
                        <tr class={classes!("search-row", is_current.then_some("current"))} {onclick}>
                            <td>{ i + 1 }</td>
                            { published_cell(like) }
                            <td>{ layout_label(&layout) }{ if layout.sp { " SP" } else { "" } }</td>
                            <td>{ base.recompute_label(layout.recompute) }</td>
                            <td>{ fmt_rate(b.tokens_per_s, "tokens/s") }</td>
                            <td>{ fmt_pct(b.mfu) }</td>
                            <td>{ fmt_seconds(b.step_s) }</td>
                            if let Some(caveat) = tight.of(b.peak_bytes) {
                                <td class="tight" title={caveat}>
                                    { fmt_bytes(b.peak_bytes) }<br/><span class="small">{ "tight" }</span>
                                </td>
                            } else {
                                <td>{ fmt_bytes(b.peak_bytes) }</td>
                            }
                            <td>
                                if is_current {
                                    <span class="search-current">{ "current" }</span>
                                } else {
                                    <button type="button" class="search-apply"
                                        aria-label={format!("Use {}", layout_label(&layout))}>{ "Use" }</button>
                                }
                            </td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
        </div>
    }
}

/// Rejected layouts by reason.
fn rejected_list(r: &crate::engine::search::SearchReport) -> Html {
    if r.rejected.is_empty() {
        return html! {};
    }
    let total: u64 = r.rejected.values().sum();
    html! {
        <details class="search-rejected">
            <summary>{ format!("{} layouts rejected, by reason", grouped(total)) }</summary>
            <ul>
                { for r.rejected.iter().map(|(why, n)| html! { <li>{ format!("{}: {why}", grouped(*n)) }</li> }) }
            </ul>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::{grouped, Tight};

    #[test]
    fn a_layout_within_the_memory_band_of_the_limit_is_tight() {
        use crate::engine::memory::overhead::GIB;
        let t = Tight {
            capacity: Some(79.65 * GIB),
            frac: Some(0.10),
        };
        // 77.86 GiB: 1.79 free ≤ 0.10 · 77.86 = 7.79.
        assert_eq!(
            t.of(77.86 * GIB).as_deref(),
            Some("The limit is inside the ±10 % memory error: it may not fit.")
        );
        // 67.07 GiB: 12.58 free > 6.71.
        assert_eq!(t.of(67.07 * GIB), None);
        // No band (evidence not loaded) or no capacity: never tight.
        assert_eq!(Tight { frac: None, ..t }.of(77.86 * GIB), None);
        assert_eq!(
            Tight {
                capacity: None,
                ..t
            }
            .of(77.86 * GIB),
            None
        );
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1\u{202F}000");
        assert_eq!(grouped(131_072), "131\u{202F}072");
        assert_eq!(grouped(1_234_567), "1\u{202F}234\u{202F}567");
    }
}
