//! The "Embed" dialog: the iframe snippet for one chart of the current plan.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::browser;
use crate::app::charts::ChartKind;
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

/// The `<iframe>` snippet for `chart` of `state`, served from `base`.
pub fn snippet(state: &State, base: &str, chart: ChartKind) -> String {
    let url = format!("{base}?{}", state.query_with(Some(chart)));
    let url = url.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        "<iframe src=\"{url}\" title=\"paracalc: {} chart\" width=\"100%\" height=\"440\" style=\"border:0\" loading=\"lazy\"></iframe>",
        chart.as_str()
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
    let copied = use_state(|| false);
    let code = snippet(&props.state, &props.base, *chart);
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
    let copy = {
        let (code, copied) = (code.clone(), copied.clone());
        Callback::from(move |_| {
            let copied = copied.clone();
            browser::copy_text(code.clone(), move |ok| copied.set(ok));
        })
    };
    let close = {
        let cb = props.on_close.clone();
        Callback::from(move |_| cb.emit(()))
    };
    let onkeydown = {
        let cb = props.on_close.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                cb.emit(());
            }
        })
    };
    html! {
        <div class="dialog-backdrop" {onkeydown}>
            <div class="dialog card" role="dialog" aria-modal="true" aria-labelledby="embed-title" id="embed-dialog">
                <h2 id="embed-title">{ "Embed a chart" }</h2>
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
