//! Import a Hugging Face `config.json` by paste or file upload.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::components::tool_card::tool_card;
use crate::app::hooks::use_text;
use crate::app::state::Action;
use crate::hf;
use crate::scenario::Model;

/// Props of [`HfImport`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct HfImportProps {
    /// The current model (its sequence length is kept).
    pub model: Rc<Model>,
    /// Dispatches the import (or its error message).
    pub on_action: Callback<Action>,
}

/// Turns a config's text into an action: the model with a message, or an error message.
pub fn import_action(text: &str, base: &Model) -> Action {
    match hf::import(text, base) {
        Ok(got) => {
            let mut msg = format!("Imported {} architecture: {}.", got.family, got.model.name);
            for n in &got.notes {
                msg.push('\n');
                msg.push_str(n);
            }
            Action::ImportModel(Box::new(got.model), msg)
        }
        Err(e) => Action::Message(true, format!("config.json not imported: {e}")),
    }
}

/// A text area and a file picker; both fill the model section.
#[component]
pub fn HfImport(props: &HfImportProps) -> Html {
    let (text, oninput) = use_text();
    let onclick = {
        let (text, model, on_action) = (text.clone(), props.model.clone(), props.on_action.clone());
        Callback::from(move |_| on_action.emit(import_action(&text, &model)))
    };
    let onchange = {
        let (model, on_action) = (props.model.clone(), props.on_action.clone());
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            if file.size() > hf::MAX_CONFIG_BYTES as f64 {
                on_action.emit(Action::Message(
                    true,
                    format!(
                        "config.json not imported: the file is larger than {} KiB.",
                        hf::MAX_CONFIG_BYTES / 1024
                    ),
                ));
                return;
            }
            // The browser reads it (`Blob.text()`, a promise); gloo's FileReader wrapper cost
            // about 1 KB of the bundle.
            let read = wasm_bindgen_futures::JsFuture::from(file.text());
            let (model, on_action) = (model.clone(), on_action.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match read.await.ok().and_then(|t| t.as_string()) {
                    Some(t) => on_action.emit(import_action(&t, &model)),
                    None => on_action.emit(Action::Message(
                        true,
                        "The file could not be read.".to_string(),
                    )),
                }
            });
        })
    };
    tool_card(
        "hf-import",
        "Import a Hugging Face config.json",
        &format!(
            "{} configs fill the model section; the rest of the plan stays.",
            hf::FAMILIES
        ),
        html! {
            <>
                <label for="hf-text">{ "Paste config.json" }</label>
                <textarea id="hf-text" rows="6" spellcheck="false" placeholder="{ \"model_type\": \"llama\", \"hidden_size\": 4096, … }" {oninput} value={(*text).clone()} />
                <div class="buttons">
                    <button type="button" id="hf-apply" {onclick} disabled={text.trim().is_empty()}>{ "Import pasted config" }</button>
                    <label class="file">{ "or upload a file: " }<input type="file" id="hf-file" accept=".json,application/json" {onchange} /></label>
                </div>
            </>
        },
    )
}
