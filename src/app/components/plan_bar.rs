//! The plan bar: what to train and on what (the preset to start from, the GPU type and count,
//! the tokens), the model's size and the preset's sources, and the share and compare toolbar.

use yew::prelude::*;

use crate::app::click::emit_on_click;
use crate::app::components::cluster_form::gpu_select;
use crate::app::components::form::{num_field, FormProps};
use crate::app::components::model_size::model_size;
use crate::app::components::source_note::{SourceNote, Whose};
use crate::app::hooks::use_share::{CopyLink, EmbedDialogHandle};
use crate::app::state::{Action, State};
use crate::presets::{ModelPreset, MODEL_PRESETS};
use crate::scenario::FieldId;

/// Inputs of [`plan_bar`].
pub struct PlanBarProps<'a> {
    /// The page's state (preset, drafts, pinned A).
    pub state: &'a State,
    /// The form's scenario, issues and action callback.
    pub form: &'a FormProps,
    /// "Start from" changed.
    pub on_preset: Callback<Event>,
    /// The "Copy link" button ([`crate::app::hooks::use_copy_link`]).
    pub copy: &'a CopyLink,
    /// The "Embed…" dialog ([`crate::app::hooks::use_embed_dialog`]).
    pub embed: &'a EmbedDialogHandle,
}

/// The plan bar (a plain function: its state lives in the shell's hooks).
pub fn plan_bar(p: &PlanBarProps<'_>) -> Html {
    let state = p.state;
    let on_action = &p.form.on_action;
    let stale = !state.drafts.is_empty();
    // A retired preset's hint is shown (the others are for screen readers only).
    let retired = crate::presets::model_preset(state.preset).is_some_and(|m| !m.listed());
    html! {
        <section class="plan-bar" aria-label="What to train, on what">
            <div class="plan-fields" id="plan">
                <div class="field">
                    <label for="preset">{ "Start from" }</label>
                    <select id="preset" onchange={p.on_preset.clone()} aria-describedby="preset-hint">
                        { for MODEL_PRESETS.iter().filter(|m| m.listed() || m.id == state.preset).map(|m| html! {
                            <option value={m.id} selected={m.id == state.preset}>{ preset_label(m) }</option>
                        }) }
                    </select>
                    <p id="preset-hint" class={classes!("hint", retired.then_some("retired"))}>{ preset_hint(state.preset) }</p>
                </div>
                { gpu_select(p.form) }
                { num_field(FieldId::NumGpus, p.form) }
                { num_field(FieldId::TrainTokens, p.form) }
            </div>
            <div class="plan-about">
                { model_size(&p.form.scenario.model) }
                { preset_source(state.preset) }
            </div>
            <nav class="buttons toolbar" aria-label="Share and compare">
                <button type="button" id="copy-link" onclick={p.copy.onclick.clone()} aria-describedby="copy-status"
                    title={stale.then_some("A field is invalid: fix it first, or the link would share the last valid plan.")}>
                    { if p.copy.copied { "Link copied ✓" } else { "Copy link" } }</button>
                <span id="copy-status" class={classes!("copy-status", p.copy.refused.then_some("bad"))} role="status">
                    if p.copy.refused {
                        { "Not copied: " }
                        { state.drafts.iter().map(|d| d.label()).collect::<Vec<_>>().join(", ") }
                        { " is invalid, and the link would share the last valid plan. Fix it first." }
                    }
                </span>
                <button type="button" id="open-embed" onclick={p.embed.open.clone()} ref={p.embed.button.clone()}>{ "Embed…" }</button>
                if state.pinned.is_some() {
                    <button type="button" id="pin" onclick={emit_on_click(on_action, Action::Pin)} title="Replace A by the current plan">{ "Re-pin as A" }</button>
                } else {
                    <button type="button" id="pin" onclick={emit_on_click(on_action, Action::Pin)} title="Keep this plan as A, then change things to compare">{ "Pin as A (compare)" }</button>
                }
            </nav>
        </section>
    }
}

/// A preset's name in "Start from": a retired one (shown only to a page opened from an old link
/// that names it, [`crate::presets`] "Stability") says so.
fn preset_label(m: &ModelPreset) -> String {
    if m.listed() {
        m.name.to_string()
    } else {
        format!("{} (retired)", m.name)
    }
}

/// The hint under "Start from"; for a retired preset, why it is there and which to pick instead.
fn preset_hint(id: &str) -> String {
    match crate::presets::model_preset(id).and_then(|p| p.replaced_by) {
        Some(by) => format!(
            "A retired preset, kept so that this old link opens as it was made; “{}” in the list \
             is the plan its source ran.",
            crate::presets::model_preset(by).map_or(by, |b| b.name)
        ),
        None => "A published model and run; links store only what differs from it.".into(),
    }
}

/// The sources of the preset the plan started from (the model's shape and the published run's
/// layout), folded under the toolbar and fetched when unfolded; nothing when the plan did not
/// start from a preset.
fn preset_source(id: &str) -> Html {
    let Some(p) = MODEL_PRESETS.iter().find(|p| p.id == id) else {
        return html! {};
    };
    html! {
        <SourceNote id="preset-source" class="source preset-source"
            summary={format!("Where “{}” comes from", p.name)} whose={Whose::Preset(p.id.into())} />
    }
}
