//! The "Embed" dialog: the iframe snippet for one chart of the current plan.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::charts::ChartKind;
use crate::app::click::emit_on_click;
use crate::app::hooks::use_copy;
use crate::app::state::State;

/// Props of [`EmbedDialog`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct EmbedDialogProps {
    /// The state to embed.
    pub state: Rc<State>,
    /// The page's address without query (`https://host/path/`).
    pub base: AttrValue,
    /// Closes the dialog.
    pub on_close: Callback<()>,
}

/// The iframe height, in CSS pixels, that shows the whole embed of `chart` (its canvas, the
/// controls above it, the summary line and the link) at widths from 600 px up; an A/B
/// comparison draws two charts. Measured in headless Chromium by `tests/e2e/e2e.mjs`, which
/// fails when an embed outgrows its snippet.
pub fn embed_height(chart: ChartKind, pinned: bool) -> u32 {
    let single = match chart {
        // Measured 483 px at 600 px wide (canvas 380, controls, summary line and link).
        ChartKind::Memory | ChartKind::Time | ChartKind::Schedule | ChartKind::Bucket => 520,
        // Measured 597 px (canvas 460).
        ChartKind::Scaling => 620,
        // The scatter, the ten best layouts (their cells wrap at 600 px) and the rejected list:
        // measured 1240 px for Llama 3 70B on 64 GPUs.
        ChartKind::Search => 1400,
    };
    match (pinned, chart) {
        (true, ChartKind::Memory | ChartKind::Time) => 2 * single,
        _ => single,
    }
}

/// The `<iframe>` snippet for `chart` of `state`, served from `base`.
pub fn snippet(state: &State, base: &str, chart: ChartKind) -> String {
    let url = format!("{base}?{}", state.query_with(Some(chart)));
    let url = url.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        "<iframe src=\"{url}\" title=\"paracalc: {} chart\" width=\"100%\" height=\"{}\" style=\"border:0\" loading=\"lazy\"></iframe>",
        chart.as_str(),
        embed_height(chart, state.pinned.is_some())
    )
}

/// A modal-style panel with a chart picker, the snippet and a copy button.
#[component]
pub fn EmbedDialog(props: &EmbedDialogProps) -> Html {
    let chart = use_state(|| props.state.chart.unwrap_or(ChartKind::Memory));
    let first = use_node_ref();
    {
        // Move keyboard focus into the dialog when it opens.
        let first = first.clone();
        use_effect_with((), move |_| {
            if let Some(el) = first.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    let code = snippet(&props.state, &props.base, *chart);
    let (copied, copy) = use_copy(code.clone());
    let onchange = {
        let (chart, copied) = (chart.clone(), copied.clone());
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Some(k) = ChartKind::parse(&el.value()) {
                chart.set(k);
                copied.set(false);
            }
        })
    };
    let close = emit_on_click(&props.on_close, ());
    let dialog = use_node_ref();
    let onkeydown = {
        let cb = props.on_close.clone();
        let dialog = dialog.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                cb.emit(());
            } else if e.key() == "Tab" {
                trap_tab(&dialog, &e);
            }
        })
    };
    let stale = !props.state.drafts.is_empty();
    html! {
        <div class="dialog-backdrop" {onkeydown}>
            <div class="dialog card" role="dialog" aria-modal="true" aria-labelledby="embed-title" id="embed-dialog" ref={dialog}>
                <h2 id="embed-title">{ "Embed a chart" }</h2>
                if stale {
                    <p class="notice bad" id="embed-stale" role="alert">
                        { format!("Not the plan the form shows: {} is invalid, so this embed shows the last valid plan. Fix the field first.",
                            props.state.drafts.iter().map(|d| d.label()).collect::<Vec<_>>().join(", ")) }
                    </p>
                }
                <p class="muted">{ "Paste this into a documentation page. The chart shows this plan, fills the page width, and links back here. The embed posts its height to the page (message { paracalcHeight: number }), see embed-demo.html." }</p>
                <label for="embed-chart">{ "Chart" }</label>
                <select id="embed-chart" {onchange}>
                    { for ChartKind::ALL.iter().map(|k| html! {
                        <option value={k.as_str()} selected={*k == *chart}>{ k.as_str() }</option>
                    }) }
                </select>
                <label for="embed-code">{ "HTML" }</label>
                <textarea id="embed-code" rows="5" readonly=true spellcheck="false" value={code} />
                <div class="buttons">
                    <button type="button" id="embed-copy" onclick={copy} ref={first}>{ if *copied { "Copied ✓" } else { "Copy snippet" } }</button>
                    <button type="button" id="embed-close" onclick={close}>{ "Close" }</button>
                </div>
            </div>
        </div>
    }
}

/// Keeps Tab and Shift+Tab inside the dialog: from its last focusable control Tab goes to the
/// first, and Shift+Tab from the first goes to the last.
fn trap_tab(dialog: &NodeRef, e: &KeyboardEvent) {
    use wasm_bindgen::JsCast;
    let Some(root) = dialog.cast::<web_sys::Element>() else {
        return;
    };
    let Ok(list) = root.query_selector_all("button, select, textarea, input, a[href]") else {
        return;
    };
    let items: Vec<web_sys::HtmlElement> = (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        .collect();
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return;
    };
    let active = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element());
    let is = |el: &web_sys::HtmlElement| {
        active
            .as_ref()
            .is_some_and(|a| a == el.unchecked_ref::<web_sys::Element>())
    };
    let inside = active.as_ref().is_some_and(|a| root.contains(Some(a)));
    if e.shift_key() && (is(first) || !inside) {
        e.prevent_default();
        let _ = last.focus();
    } else if !e.shift_key() && (is(last) || !inside) {
        e.prevent_default();
        let _ = first.focus();
    }
}
