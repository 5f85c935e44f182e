//! The full-page shell: header and toolbar, the four form sections, key numbers, A/B comparison,
//! charts, evidence and the import/export tools.

use yew::prelude::*;

use crate::app::browser;
use crate::app::charts::ChartKind;
use crate::app::components::charts_panel::ChartsPanel;
use crate::app::components::cluster_form::ClusterForm;
use crate::app::components::compare::Compare;
use crate::app::components::embed_dialog::EmbedDialog;
use crate::app::components::evidence_panel::EvidencePanel;
use crate::app::components::header::Header;
use crate::app::components::hf_import::HfImport;
use crate::app::components::issue_list::IssueList;
use crate::app::components::json_io::JsonIo;
use crate::app::components::megatron_panel::MegatronPanel;
use crate::app::components::model_form::ModelForm;
use crate::app::components::notices::Notices;
use crate::app::components::parallel_form::ParallelForm;
use crate::app::components::summary::Summary;
use crate::app::components::training_form::TrainingForm;
use crate::app::derived::Derived;
use crate::app::hooks::use_url_sync;
use crate::app::state::{Action, State};
use crate::presets::MODEL_PRESETS;

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
    let dispatch = |a: Action| dispatcher(&state, move |_: MouseEvent| a.clone());
    let on_preset = dispatcher(&state, |e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::LoadPreset(el.value())
    });
    let on_apply_layout = dispatcher(&state, Action::ApplyLayout);
    let on_select = dispatcher(&state, Action::SelectChart);
    let on_dismiss = dispatcher(&state, |()| Action::Dismiss);

    // Toolbar: copy link (the flag resets when the plan changes), embed dialog.
    let copied = use_state(|| false);
    let copy_link = {
        let (state, copied) = (state.clone(), copied.clone());
        Callback::from(move |_| {
            let url = format!("{}?{}", browser::page_base(), state.query_with(None));
            let copied = copied.clone();
            browser::copy_text(url, move |ok| copied.set(ok));
        })
    };
    {
        let copied = copied.clone();
        use_effect_with(query, move |_| copied.set(false));
    }
    let embed_base = use_state(|| None::<AttrValue>);
    let open_embed = {
        let embed_base = embed_base.clone();
        Callback::from(move |_| embed_base.set(Some(browser::page_base().into())))
    };
    let close_embed = {
        let embed_base = embed_base.clone();
        Callback::from(move |_| embed_base.set(None))
    };

    html! {
        <>
            <Header />
            <nav class="toolbar" aria-label="Plan">
                <div class="field inline">
                    <label for="preset">{ "Start from" }</label>
                    <select id="preset" onchange={on_preset} aria-describedby="preset-hint">
                        { for MODEL_PRESETS.iter().map(|p| html! {
                            <option value={p.id} selected={p.id == state.preset}>{ p.name }</option>
                        }) }
                    </select>
                    <span id="preset-hint" class="sr-only">{ "Loads the whole plan of a published model and run; links store only what differs from it." }</span>
                </div>
                <div class="buttons">
                    <button type="button" id="copy-link" onclick={copy_link}>{ if *copied { "Link copied ✓" } else { "Copy link" } }</button>
                    <button type="button" id="open-embed" onclick={open_embed}>{ "Embed…" }</button>
                    if state.pinned.is_some() {
                        <button type="button" id="pin" onclick={dispatch(Action::Pin)} title="Replace A by the current plan">{ "Re-pin as A" }</button>
                    } else {
                        <button type="button" id="pin" onclick={dispatch(Action::Pin)} title="Keep this plan as A, then change things to compare">{ "Pin as A (compare)" }</button>
                    }
                </div>
            </nav>
            <Notices notices={state.notices.clone()} message={state.message.clone()} {on_dismiss} />
            <main class="layout">
                <form class="inputs" aria-label="Inputs" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
                    <IssueList issues={issues.clone()} />
                    <ModelForm scenario={scenario.clone()} issues={issues.clone()} on_action={on_action.clone()} />
                    <TrainingForm scenario={scenario.clone()} issues={issues.clone()} on_action={on_action.clone()} />
                    <ParallelForm scenario={scenario.clone()} issues={issues.clone()} on_action={on_action.clone()} />
                    <ClusterForm scenario={scenario.clone()} issues={issues.clone()} on_action={on_action.clone()} />
                </form>
                <div class="results">
                    <Summary scenario={scenario.clone()} estimate={est.clone()} />
                    if let Some(a) = pinned.clone() {
                        <Compare {a} b={scenario.clone()} b_estimate={est.clone()} on_action={on_action.clone()} />
                    }
                    <ChartsPanel
                        scenario={scenario.clone()}
                        estimate={est.clone()}
                        pinned={pinned.clone()}
                        selected={state.chart.unwrap_or(ChartKind::Memory)}
                        {on_apply_layout}
                        {on_select}
                    />
                    <EvidencePanel scenario={scenario.clone()} />
                    <HfImport {model} on_action={on_action.clone()} />
                    <JsonIo scenario={scenario.clone()} on_action={on_action.clone()} />
                    <MegatronPanel scenario={scenario.clone()} />
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
