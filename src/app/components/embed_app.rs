//! The embed shell: one chart, a one-line summary and a link to the full app; no forms, no page
//! chrome. Posts its height to the parent page.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::charts::ChartKind;
use crate::app::components::charts_panel::ChartsPanel;
use crate::app::components::summary::one_line;
use crate::app::hooks::use_post_height;
use crate::app::state::State;
use crate::engine::estimate;

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
    let scenario = use_memo(s.scenario.clone(), |x| Rc::new(x.clone()));
    let est = use_memo(s.scenario.clone(), |x| Rc::new(estimate(x)));
    let pinned = use_memo(s.pinned.clone(), |p| {
        p.as_ref()
            .map(|p| Rc::new((p.scenario.clone(), estimate(&p.scenario))))
    });
    let line = match &**est {
        Ok(e) => one_line(e, &s.scenario),
        Err(e) => format!(
            "This plan has {} problem(s) in its inputs; open it in paracalc to fix them.",
            e.issues.len()
        ),
    };
    let open = format!("./?{}", s.query_with(None));
    html! {
        <div class="embed" ref={node} id="embed">
            <ChartsPanel
                scenario={(*scenario).clone()}
                estimate={(*est).clone()}
                pinned={(*pinned).clone()}
                only={Some(kind)}
                initial={kind}
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
