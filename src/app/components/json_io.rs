//! The scenario as JSON (the `DESIGN.md` format): export to copy or download, import by paste.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::browser;
use crate::app::components::tool_card::tool_card;
use crate::app::hooks::{use_copy, use_text};
use crate::app::state::Action;
use crate::scenario::{self, Scenario};

/// Props of [`JsonIo`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct JsonIoProps {
    /// The current scenario.
    pub scenario: Rc<Scenario>,
    /// Dispatches an import.
    pub on_action: Callback<Action>,
}

/// Parses pasted scenario JSON into an action (shape errors name the field).
pub fn json_action(text: &str) -> Action {
    if text.len() > 1 << 20 {
        return Action::Message(
            true,
            "Scenario not loaded: the text is larger than 1 MiB.".into(),
        );
    }
    // Accept a validation case too (`{"scenario": {...}, ...}`).
    let value = scenario::json::parse::parse(text);
    let parsed = match &value {
        Ok(v) if v.get("scenario").is_some() && v.get("model").is_none() => {
            v.get("scenario").map(scenario::from_value)
        }
        _ => None,
    }
    .unwrap_or_else(|| scenario::parse(text));
    match parsed {
        Ok(s) => Action::ReplaceScenario(Box::new(s)),
        Err(e) => Action::Message(true, format!("Scenario not loaded:\n{e}")),
    }
}

/// Export and import.
#[component]
pub fn JsonIo(props: &JsonIoProps) -> Html {
    let (text, oninput) = use_text();
    let json = props.scenario.to_json_pretty();
    let load = {
        let (text, on_action) = (text.clone(), props.on_action.clone());
        Callback::from(move |_| on_action.emit(json_action(&text)))
    };
    let download = {
        let json = json.clone();
        let on_action = props.on_action.clone();
        Callback::from(move |_| {
            if browser::download("scenario.json", &json, "application/json").is_err() {
                on_action.emit(Action::Message(
                    true,
                    "The download could not start; copy the text instead.".into(),
                ));
            }
        })
    };
    let (copied, copy) = use_copy(json.clone());
    tool_card(
        "json-io",
        "Scenario JSON",
        "The same format as the command-line tool (paracalc estimate FILE.json).",
        html! {
            <>
                <label for="json-export">{ "This scenario" }</label>
                <textarea id="json-export" rows="10" readonly=true spellcheck="false" value={json} />
                <div class="buttons">
                    <button type="button" id="json-copy" onclick={copy}>{ if *copied { "Copied ✓" } else { "Copy JSON" } }</button>
                    <button type="button" id="json-download" onclick={download}>{ "Download scenario.json" }</button>
                </div>
                <label for="json-import">{ "Load a scenario" }</label>
                <textarea id="json-import" rows="5" spellcheck="false" placeholder="Paste scenario JSON here" {oninput} value={(*text).clone()} />
                <div class="buttons">
                    <button type="button" id="json-load" onclick={load} disabled={text.trim().is_empty()}>{ "Load pasted JSON" }</button>
                </div>
            </>
        },
    )
}
