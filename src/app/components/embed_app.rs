//! The embed shell: one chart, a one-line summary and a link to the full app; no forms, no page
//! chrome. Posts its height to the parent page.

use yew::prelude::*;

use crate::app::charts::ChartKind;
use crate::app::components::charts_panel::ChartsPanel;
use crate::app::components::summary::{one_line, page_fit};
use crate::app::derived::Derived;
use crate::app::hooks::{use_bands, use_evidence, use_post_height};
use crate::app::state::State;

/// Props of [`EmbedApp`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct EmbedAppProps {
    /// The state from the link (its `embed` names the chart).
    pub state: State,
}

/// One chart of the linked plan, read-only.
#[component]
pub fn EmbedApp(props: &EmbedAppProps) -> Html {
    let node = use_node_ref();
    use_post_height(node.clone());
    let s = &props.state;
    let kind = s.embed.unwrap_or(ChartKind::Memory);
    let derived = use_memo(s.clone(), Derived::of);
    // The published runs, for the same fit verdict as the full page ([`page_fit`]); until they
    // are loaded the caption judges with the engine's band.
    let evidence = use_evidence(true);
    let bands = use_bands(&s.scenario, evidence.ready());
    let frac = bands.texts.as_ref().and_then(|t| t.memory_frac);
    let line = match &*derived.estimate {
        Ok(e) => one_line(e, &s.scenario, page_fit(e, frac)),
        Err(e) => format!(
            "This plan has {} problem(s) in its inputs; open it in paracalc to fix them.",
            e.issues.len()
        ),
    };
    let open = format!("./?{}", s.query_with(None));
    html! {
        <div class="embed" ref={node} id="embed">
            <ChartsPanel
                scenario={derived.scenario.clone()}
                estimate={derived.estimate.clone()}
                pinned={derived.pinned.clone()}
                only={Some(kind)}
                selected={kind}
                on_apply_layout={Callback::noop()}
            />
            <p class="embed-line" id="summary">
                <span>{ line }</span>
                { " " }
                <a href={open} target="_blank" rel="noopener" id="open-full">{ "open in paracalc ↗" }</a>
            </p>
            if !s.notices.is_empty() {
                <p class="embed-notice" id="link-notices">{ format!("{} part(s) of this link were ignored: ", s.notices.len()) }
                    { s.notices.iter().map(|n| n.key.clone()).collect::<Vec<_>>().join(", ") }</p>
            }
        </div>
    }
}
