//! Link notices and import messages: what was ignored, as plain text.

use yew::prelude::*;

use crate::app::click::emit_on_click;
use crate::share::Notice;

/// What [`notices`] shows.
#[derive(Clone, Debug, PartialEq)]
pub struct NoticesProps {
    /// What the link could not use.
    pub notices: Vec<Notice>,
    /// The last import's message, `(is_error, text)`.
    pub message: Option<(bool, String)>,
    /// Hides them.
    pub on_dismiss: Callback<()>,
}

/// Renders nothing when there is nothing to say. Every string is rendered as text.
pub fn notices(props: &NoticesProps) -> Html {
    if props.notices.is_empty() && props.message.is_none() {
        return html! {};
    }
    let dismiss = emit_on_click(&props.on_dismiss, ());
    html! {
        <>
            if !props.notices.is_empty() {
                <div class="notices" role="status" id="notices">
                    <div class="notice warn" id="link-notices">
                        <p><strong>{ "Parts of this link were ignored" }</strong>{ " — those settings keep the preset's values:" }</p>
                        <ul>
                            { for props.notices.iter().map(|n| html! {
                                <li><code>{ n.key.clone() }</code>{ ": " }{ n.message.clone() }</li>
                            }) }
                        </ul>
                    </div>
                    <button type="button" class="link" id="dismiss-notices" onclick={dismiss.clone()}>{ "Dismiss" }</button>
                </div>
            }
            if let Some((error, text)) = &props.message {
                // Shown where the imports are, in the page's flow (never over them).
                <div class="import-message" role={if *error { "alert" } else { "status" }}>
                    <div class={classes!("notice", if *error { "bad" } else { "info" })} id="import-message">
                        { for text.lines().map(|l| html! { <p>{ l.to_string() }</p> }) }
                        <button type="button" class="link" id="dismiss-message" onclick={dismiss}>{ "Dismiss" }</button>
                    </div>
                </div>
            }
        </>
    }
}
