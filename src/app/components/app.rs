//! The full-page shell, in the order a planner asks: the plan bar (what to train and on what:
//! model, GPU type and count, tokens; share and compare), then the answer (key numbers and
//! verdict beside the chart), then the knobs (the four form sections, rarely used settings
//! folded) beside the tools (measured run, published runs, imports and exports).

use std::rc::Rc;

use yew::prelude::*;

use crate::app::browser;
use crate::app::charts::ChartKind;
use crate::app::click::emit_on_click;
use crate::app::components::change_notice::{change_notice, use_change_notice, ChangeNoticeProps};
use crate::app::components::charts_panel::ChartsPanel;
use crate::app::components::cluster_form::{cluster_form, gpu_select};
use crate::app::components::compare::{compare, CompareProps};
use crate::app::components::definitions::definitions;
use crate::app::components::embed_dialog::EmbedDialog;
use crate::app::components::evidence_panel::{evidence_panel, EvidencePanelProps};
use crate::app::components::fixes::{fixes, FixesProps};
use crate::app::components::form::{num_field, FormProps};
use crate::app::components::header::header;
use crate::app::components::hf_import::HfImport;
use crate::app::components::issue_list::issue_list;
use crate::app::components::json_io::JsonIo;
use crate::app::components::measured_box::MeasuredBox;
use crate::app::components::megatron_panel::MegatronPanel;
use crate::app::components::model_form::model_form;
use crate::app::components::model_size::model_size;
use crate::app::components::notices::{notices, NoticesProps};
use crate::app::components::parallel_form::parallel_form;
use crate::app::components::stack_configs::StackConfigs;
use crate::app::components::summary::{summary, BandTexts, SummaryProps};
use crate::app::components::training_form::training_form;
use crate::app::components::verdict::{verdict, VerdictProps};
use crate::app::derived::Derived;
use crate::app::hooks::{use_advice, use_evidence, use_url_sync};
use crate::app::state::{Action, State};
use crate::evidence::band;
use crate::presets::MODEL_PRESETS;
use crate::scenario::{FieldId, Issue};

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
    // The forms also show the fields whose typed text is not accepted (the layers-per-stage
    // text has no local check of its own).
    let drafts = Rc::new(state.drafts.clone());
    let stale = !drafts.is_empty();
    let form_issues = if stale {
        let mut all = (*issues).clone();
        all.extend(drafts.iter().map(|d| Issue {
            field: d.field.into(),
            message: d.why.clone(),
        }));
        Rc::new(all)
    } else {
        issues.clone()
    };

    let form = FormProps {
        scenario: scenario.clone(),
        issues: form_issues,
        on_action: on_action.clone(),
    };

    let notice = use_change_notice(state.undo.clone());
    // The engine's advice: the verdict and, for a plan that does not fit, the closest layouts
    // that do.
    let advice = use_advice(scenario.clone(), est.clone());

    // Error bands from the published runs most like the plan (evidence::band); the calibrated
    // band pairs those runs, so it is recomputed only when the set of runs changes.
    let evidence = use_evidence(true);
    let cases = evidence.cases();
    let loaded = cases.as_ref().map(|c| Rc::as_ptr(c) as usize);
    let band = use_memo((state.scenario.clone(), loaded), {
        let cases = cases.clone();
        move |(s, _)| cases.as_ref().and_then(|c| band::band(c, s)).map(Rc::new)
    });
    let band: Option<Rc<band::Band>> = (*band).clone();
    let calibrated = !state.scenario.calibration.is_default();
    let cal_band = use_memo(
        (band.as_ref().map(|b| b.runs.clone()), loaded, calibrated),
        {
            let cases = cases.clone();
            move |(runs, _, on)| match (cases.as_ref(), runs, on) {
                (Some(c), Some(runs), true) => band::calibrated(c, runs),
                _ => None,
            }
        },
    );
    // The scaling chart's band: the farther end of the out-of-sample step band (calibrated when
    // the plan is), the in-sample calibrated or plain MAPE when there is none.
    let band_frac = band
        .as_ref()
        .map(|b| match (b.step_reach_for(&state.scenario), *cal_band) {
            (Some(r), _) => r.fraction(),
            (None, Some((pct, _))) if calibrated => pct / 100.0,
            _ => b.time_pct / 100.0,
        });
    let bands = band.as_ref().map(|b| {
        Rc::new(BandTexts {
            step: band::step_text(b, &state.scenario, *cal_band),
            step_spread: (!calibrated).then(|| b.spread.tile_text()),
            rate: b.rate_text(&state.scenario),
            memory: b.memory_text(&state.scenario),
            memory_spread: b.memory_spread.map(|m| m.peak_tile_text()),
            memory_frac: b.memory_frac(&state.scenario),
        })
    });

    // Toolbar: copy link (the flag resets when the plan changes), embed dialog.
    let copied = use_state(bool::default);
    // Copy link refuses while a field's text is not accepted: the link would share the last
    // valid plan, not what the form shows.
    let refused = use_state(bool::default);
    let copy_link = {
        let (state, copied, refused) = (state.clone(), copied.clone(), refused.clone());
        Callback::from(move |_| {
            if !state.drafts.is_empty() {
                refused.set(true);
                return;
            }
            let url = format!("{}?{}", browser::page_base(), state.query_with(None));
            let copied = copied.clone();
            browser::copy_text(url, move |ok| copied.set(ok));
        })
    };
    {
        let (copied, refused) = (copied.clone(), refused.clone());
        use_effect_with((query, stale), move |_| {
            copied.set(false);
            refused.set(false);
        });
    }
    let embed_base = use_state(|| None::<AttrValue>);
    let open_embed = {
        let embed_base = embed_base.clone();
        Callback::from(move |_| embed_base.set(Some(browser::page_base().into())))
    };
    let embed_button = use_node_ref();
    let close_embed = {
        let (embed_base, embed_button) = (embed_base.clone(), embed_button.clone());
        Callback::from(move |_| {
            embed_base.set(None);
            // Focus returns to the button that opened the dialog.
            if let Some(b) = embed_button.cast::<web_sys::HtmlElement>() {
                let _ = b.focus();
            }
        })
    };

    html! {
        <>
            <nav class="skip-links" aria-label="Skip links">
                <a class="skip-link" href="#summary" id="skip-results">{ "Skip to the key numbers" }</a>
                <a class="skip-link" href="#charts" id="skip-charts">{ "Skip to the charts" }</a>
            </nav>
            { header() }
            <section class="plan-bar" aria-label="What to train, on what">
                <div class="plan-fields" id="plan">
                    <div class="field">
                        <label for="preset">{ "Start from" }</label>
                        <select id="preset" onchange={on_preset} aria-describedby="preset-hint">
                            { for MODEL_PRESETS.iter().map(|p| html! {
                                <option value={p.id} selected={p.id == state.preset}>{ p.name }</option>
                            }) }
                        </select>
                        <p id="preset-hint" class="hint">{ "A published model and run; links store only what differs from it." }</p>
                    </div>
                    { gpu_select(&form) }
                    { num_field(FieldId::NumGpus, &form, "") }
                    { num_field(FieldId::TrainTokens, &form, "not set") }
                </div>
                <div class="plan-about">
                    { model_size(&scenario.model) }
                    { preset_source(state.preset) }
                </div>
                <nav class="buttons toolbar" aria-label="Share and compare">
                    <button type="button" id="copy-link" onclick={copy_link} aria-describedby="copy-status"
                        title={stale.then_some("A field is invalid: fix it first, or the link would share the last valid plan.")}>
                        { if *copied { "Link copied ✓" } else { "Copy link" } }</button>
                    <span id="copy-status" class={classes!("copy-status", (*refused).then_some("bad"))} role="status">
                        if *refused {
                            { "Not copied: " }
                            { drafts.iter().map(|d| d.label()).collect::<Vec<_>>().join(", ") }
                            { " is invalid, and the link would share the last valid plan. Fix it first." }
                        }
                    </span>
                    <button type="button" id="open-embed" onclick={open_embed} ref={embed_button}>{ "Embed…" }</button>
                    if state.pinned.is_some() {
                        <button type="button" id="pin" onclick={emit_on_click(&on_action, Action::Pin)} title="Replace A by the current plan">{ "Re-pin as A" }</button>
                    } else {
                        <button type="button" id="pin" onclick={emit_on_click(&on_action, Action::Pin)} title="Keep this plan as A, then change things to compare">{ "Pin as A (compare)" }</button>
                    }
                </nav>
            </section>
            { notices(&NoticesProps { notices: state.notices.clone(), message: None, on_dismiss: on_dismiss.clone() }) }
            <main class="layout">
                // The answer: key numbers and verdict, then the chart that matters; then the
                // knobs and the tools (beside each other on wide screens, in this order on
                // narrow ones).
                <div class="answer">
                    { change_notice(&ChangeNoticeProps { undo: state.undo.clone(), estimate: est.clone(), kept: notice, on_action: on_action.clone() }) }
                    { summary(&SummaryProps { scenario: scenario.clone(), estimate: est.clone(), drafts: drafts.clone(), bands }) }
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
                        band={band_frac}
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
                    { evidence_panel(&EvidencePanelProps { scenario: scenario.clone(), band: band.clone(), evidence }) }
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
            if let Some(base) = (*embed_base).clone() {
                <EmbedDialog state={state_rc} {base} on_close={close_embed} />
            }
        </>
    }
}

/// The sources of the preset the plan started from (the model's shape and the published run's
/// layout), folded under the toolbar; nothing when the plan did not start from a preset.
fn preset_source(id: &str) -> Html {
    let Some(p) = MODEL_PRESETS.iter().find(|p| p.id == id) else {
        return html! {};
    };
    html! {
        <details class="source preset-source" id="preset-source">
            <summary>{ format!("Where “{}” comes from", p.name) }</summary>
            <p>{ "Model: " }{ p.source }</p>
            <p>{ "Run: " }{ p.setup_source }</p>
        </details>
    }
}
