//! PLACEHOLDER for the charts panel (the charts engineer's `charts_panel.rs` replaces this file
//! on merge; only the props are the contract). Draws the memory chart so the page has one.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::charts::{canvas, ChartData, ChartKind, ChartStyle};
use crate::engine::{search::Layout, Estimate};
use crate::scenario::{Scenario, ScenarioError};

/// Props of [`ChartsPanel`] (the contract between the app shell and the charts).
#[derive(Clone, PartialEq, Properties)]
pub struct ChartsPanelProps {
    /// The current scenario (B).
    pub scenario: Rc<Scenario>,
    /// Its estimate.
    pub estimate: Rc<Result<Estimate, ScenarioError>>,
    /// A of an A/B comparison.
    #[prop_or_default]
    pub pinned: Option<Rc<(Scenario, Result<Estimate, ScenarioError>)>>,
    /// Embed mode: just this chart.
    #[prop_or_default]
    pub only: Option<ChartKind>,
    /// The chart selected first (share key `chart`).
    #[prop_or(ChartKind::Memory)]
    pub initial: ChartKind,
    /// Clicking a search point.
    pub on_apply_layout: Callback<Layout>,
    /// The chart tab changed.
    #[prop_or_default]
    pub on_select: Callback<ChartKind>,
}

/// The memory chart only (placeholder).
#[component]
pub fn ChartsPanel(props: &ChartsPanelProps) -> Html {
    let canvas_ref = use_node_ref();
    {
        let canvas_ref = canvas_ref.clone();
        use_effect_with(props.estimate.clone(), move |est| {
            if let (Some(c), Ok(e)) = (canvas_ref.cast::<web_sys::HtmlCanvasElement>(), &**est) {
                let _ =
                    canvas::draw_on_canvas(&c, &ChartData::Memory(&e.memory), &ChartStyle::light());
            }
        });
    }
    html! {
        <section class="charts card" id="charts" aria-label="Charts">
            <figure class="chart">
                <canvas ref={canvas_ref} id="chart-memory" class="chart-canvas" role="img"
                    aria-label="Memory per GPU for each pipeline stage, stacked by component" />
            </figure>
        </section>
    }
}
