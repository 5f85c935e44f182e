//! The full-page shell, in the order a planner asks: the plan bar (what to train and on what:
//! model, GPU type and count, tokens; share and compare), then the answer (key numbers and
//! verdict beside the chart), then the knobs (the four form sections, rarely used settings
//! folded) beside the tools (measured run, published runs, imports and exports).

use std::rc::Rc;

use yew::prelude::*;

use crate::app::charts::ChartKind;
use crate::app::components::change_notice::{change_notice, use_change_notice, ChangeNoticeProps};
use crate::app::components::charts_panel::ChartsPanel;
use crate::app::components::cluster_form::cluster_form;
use crate::app::components::compare::{compare, CompareProps};
use crate::app::components::definitions::definitions;
use crate::app::components::embed_dialog::EmbedDialog;
use crate::app::components::evidence_panel::{evidence_panel, EvidencePanelProps};
use crate::app::components::fixes::{fixes, FixesProps};
use crate::app::components::form::FormProps;
use crate::app::components::header::header;
use crate::app::components::hf_import::HfImport;
use crate::app::components::issue_list::issue_list;
use crate::app::components::json_io::JsonIo;
use crate::app::components::measured_box::MeasuredBox;
use crate::app::components::megatron_panel::MegatronPanel;
use crate::app::components::model_form::model_form;
use crate::app::components::notices::{notices, NoticesProps};
use crate::app::components::parallel_form::parallel_form;
use crate::app::components::plan_bar::{plan_bar, PlanBarProps};
use crate::app::components::stack_configs::StackConfigs;
use crate::app::components::summary::{summary, SummaryProps};
use crate::app::components::training_form::training_form;
use crate::app::components::verdict::{verdict, VerdictProps};
use crate::app::derived::Derived;
use crate::app::hooks::{
    use_advice, use_bands, use_copy_link, use_embed_dialog, use_evidence, use_url_sync,
};
use crate::app::state::{Action, Draft, State};
use crate::scenario::Issue;

/// Props of [`App`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct AppProps {
    /// The state to start from (read from the URL query by [`crate::app::start`]).
    #[prop_or_default]
    pub initial: State,
}

/// A callback that dispatches the action `f` makes of its argument.
fn dispatcher<T: 'static>(
    state: &UseReducerHandle<State>,
    f: impl Fn(T) -> Action + 'static,
) -> Callback<T> {
    let state = state.clone();
    Callback::from(move |v: T| state.dispatch(f(v)))
}

/// The issues the forms show: the engine's, plus the fields whose typed text is not accepted
/// (the layers-per-stage text has no local check of its own).
fn form_issues(issues: &Rc<Vec<Issue>>, drafts: &[Draft]) -> Rc<Vec<Issue>> {
    if drafts.is_empty() {
        return issues.clone();
    }
    let mut all = (**issues).clone();
    all.extend(drafts.iter().map(|d| Issue {
        field: d.field.into(),
        message: d.why.clone(),
    }));
    Rc::new(all)
}

/// The whole page. Holds the [`State`], derives what it shows once per change ([`Derived`]),
/// and mirrors the state into the URL query.
#[component]
pub fn App(props: &AppProps) -> Html {
    let state = use_reducer({
        let initial = props.initial.clone();
        move || initial
    });
    let derived = use_memo(state.clone(), |s| Derived::of(s));
    let Derived {
        scenario,
        estimate: est,
        issues,
        model,
        pinned,
        query,
        state: state_rc,
    } = (*derived).clone();
    use_url_sync(query.clone());

    let on_action = dispatcher(&state, |a: Action| a);
    let on_preset = dispatcher(&state, |e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::LoadPreset(el.value())
    });
    let on_apply_layout = dispatcher(&state, Action::ApplyLayout);
    let on_select = dispatcher(&state, Action::SelectChart);
    let on_dismiss = dispatcher(&state, |()| Action::Dismiss);
    let drafts = Rc::new(state.drafts.clone());
    let stale = !drafts.is_empty();
    let form = FormProps {
        scenario: scenario.clone(),
        issues: form_issues(&issues, &drafts),
        on_action: on_action.clone(),
    };

    let notice = use_change_notice(state.undo.clone());
    // The engine's advice: the verdict and, for a plan that does not fit, the closest layouts
    // that do.
    let advice = use_advice(scenario.clone(), est.clone());
    // Error bands from the published runs most like the plan (evidence::band).
    let evidence = use_evidence(true);
    let bands = use_bands(&state.scenario, evidence.ready());
    let band = bands.band.clone();
    let copy = use_copy_link(state_rc.clone(), query, stale);
    let embed = use_embed_dialog();

    html! {
        <>
            <nav class="skip-links" aria-label="Skip links">
                <a class="skip-link" href="#summary" id="skip-results">{ "Skip to the key numbers" }</a>
                <a class="skip-link" href="#charts" id="skip-charts">{ "Skip to the charts" }</a>
            </nav>
            { header() }
            { plan_bar(&PlanBarProps { state: &state, form: &form, on_preset, copy: &copy, embed: &embed }) }
            { notices(&NoticesProps { notices: state.notices.clone(), message: None, on_dismiss: on_dismiss.clone() }) }
            <main class="layout">
                // The answer: key numbers and verdict, then the chart that matters; then the
                // knobs and the tools (beside each other on wide screens, in this order on
                // narrow ones).
                <div class="answer">
                    { change_notice(&ChangeNoticeProps { undo: state.undo.clone(), estimate: est.clone(), kept: notice, on_action: on_action.clone() }) }
                    { summary(&SummaryProps { scenario: scenario.clone(), estimate: est.clone(), drafts: drafts.clone(), bands: bands.texts }) }
                    <div class={classes!("stale-zone", stale.then_some("stale"))} id="results-zone">
                        { verdict(&VerdictProps { scenario: scenario.clone(), estimate: est.clone(), verdict: advice.verdict.clone(), on_action: on_action.clone() }) }
                        { fixes(&FixesProps { scenario: scenario.clone(), estimate: est.clone(), near: advice.near, verdict: advice.verdict, on_action: on_action.clone() }) }
                    </div>
                    if let Some(a) = pinned.clone() {
                        { compare(&CompareProps { a, b: scenario.clone(), b_estimate: est.clone(), on_action: on_action.clone() }) }
                    }
                </div>
                <div class={classes!("stale-zone", "charts-column", stale.then_some("stale"))} id="charts-zone">
                    <ChartsPanel
                        scenario={scenario.clone()}
                        estimate={est.clone()}
                        pinned={pinned.clone()}
                        selected={state.chart.unwrap_or(ChartKind::Memory)}
                        {on_apply_layout}
                        {on_select}
                        band={bands.frac}
                        memory_band={band.as_ref().and_then(|b| b.memory_frac(&state.scenario))}
                    />
                </div>
                <form class="inputs" aria-label="Inputs" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
                    { issue_list(&issues) }
                    { model_form(&form) }
                    { training_form(&form) }
                    { parallel_form(&form) }
                    { cluster_form(&form) }
                </form>
                <div class="tools">
                    <MeasuredBox scenario={scenario.clone()} on_action={on_action.clone()} usual_error={band.as_ref().map(|b| b.time_pct / 100.0)} />
                    { evidence_panel(&EvidencePanelProps { scenario: scenario.clone(), band, evidence }) }
                    // The import's message, in the page's flow right above the import panels
                    // (a box pinned to the viewport covered them).
                    { notices(&NoticesProps { notices: Vec::new(), message: state.message.clone(), on_dismiss }) }
                    <HfImport {model} on_action={on_action.clone()} />
                    <JsonIo scenario={scenario.clone()} on_action={on_action.clone()} />
                    <MegatronPanel scenario={scenario.clone()} />
                    <StackConfigs scenario={scenario.clone()} />
                    { definitions() }
                </div>
            </main>
            <footer class="site-footer">
                <p>{ "paracalc estimates from published formulas; it runs entirely in your browser and sends nothing anywhere. " }
                   <a href="embed-demo.html">{ "Embedding example" }</a></p>
            </footer>
            if let Some(base) = embed.base.clone() {
                <EmbedDialog state={state_rc} {base} on_close={embed.close.clone()} />
            }
        </>
    }
}
