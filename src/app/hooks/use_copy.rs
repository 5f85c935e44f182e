//! A "Copy" button's behaviour: copy a text, remember whether it worked.

use yew::prelude::*;

use crate::app::browser;

/// Copies `text` to the clipboard on each click; the handle holds whether the last copy
/// worked (for the button's "Copied ✓"), and a component may reset it when the text changes.
///
/// ```ignore
/// let (copied, copy) = use_copy(args.clone());
/// html! { <button onclick={copy}>{ if *copied { "Copied ✓" } else { "Copy" } }</button> }
/// ```
#[hook]
pub fn use_copy(text: String) -> (UseStateHandle<bool>, Callback<MouseEvent>) {
    let copied = use_state(bool::default);
    let copy = {
        let copied = copied.clone();
        Callback::from(move |_| {
            let copied = copied.clone();
            browser::copy_text(text.clone(), move |ok| copied.set(ok));
        })
    };
    (copied, copy)
}
