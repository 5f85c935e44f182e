//! The full-page shell: header, form, chart.

use yew::prelude::*;

use crate::app::charts::stage_layers::Chart;
use crate::app::components::chart_canvas::ChartCanvas;
use crate::app::components::header::Header;
use crate::app::components::issue_list::IssueList;
use crate::app::components::pipeline_form::PipelineForm;
use crate::app::hooks::use_url_sync;
use crate::app::state::{Action, State};

/// Props of [`App`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct AppProps {
    /// The state to start from (read from the URL query by [`crate::app::start`]).
    #[prop_or_default]
    pub initial: State,
}

/// The whole page. Holds the [`State`], derives the chart data, and mirrors the state into the
/// URL query.
#[component]
pub fn App(props: &AppProps) -> Html {
    let state = use_reducer({
        let initial = props.initial.clone();
        move || initial
    });
    use_url_sync(state.to_query());

    let layers = state.scenario.model.layers;
    let pp = state.scenario.parallel.pp;
    let stages = use_memo((*state).clone(), |s| s.stage_layers());
    let chart = use_memo(stages.clone(), |stages| {
        Chart::StageLayers((**stages).clone())
    });
    let issues = use_memo(state.scenario.clone(), |s| {
        s.validate().err().map(|e| e.issues).unwrap_or_default()
    });

    let on_layers = {
        let state = state.clone();
        Callback::from(move |v| state.dispatch(Action::SetLayers(v)))
    };
    let on_pp = {
        let state = state.clone();
        Callback::from(move |v| state.dispatch(Action::SetPp(v)))
    };

    html! {
        <>
            <Header />
            <main class="layout">
                <PipelineForm {layers} {pp} {on_layers} {on_pp} />
                <section class="card results" aria-labelledby="results-title">
                    <h2 id="results-title">{ "Pipeline split" }</h2>
                    <p id="summary" class="summary">{ summary(layers, &stages) }</p>
                    <ChartCanvas
                        id="chart-stage-layers"
                        chart={chart}
                        label="Bar chart of the layers held by each pipeline stage"
                    />
                    <IssueList issues={issues} />
                </section>
            </main>
        </>
    }
}

/// "96 layers on 16 stages: 6 per stage" or "30 layers on 4 stages: 7 to 8 per stage".
fn summary(layers: u64, stages: &[u64]) -> String {
    let n = stages.len();
    let min = stages.iter().copied().min().unwrap_or(0);
    let max = stages.iter().copied().max().unwrap_or(0);
    let s = if n == 1 { "stage" } else { "stages" };
    if min == max {
        format!("{layers} layers on {n} {s}: {min} per stage")
    } else {
        format!("{layers} layers on {n} {s}: {min} to {max} per stage")
    }
}
