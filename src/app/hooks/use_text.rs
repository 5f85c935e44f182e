//! A text area's content as state.

use yew::prelude::*;

/// The text typed or pasted into a `<textarea>`, and the `oninput` that keeps it.
#[hook]
pub fn use_text() -> (UseStateHandle<String>, Callback<InputEvent>) {
    let text = use_state(String::new);
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let el: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            text.set(el.value());
        })
    };
    (text, oninput)
}
