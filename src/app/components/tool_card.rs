//! The folded cards of the page's tools (evidence, imports, exports).

use yew::prelude::*;

/// A card folded under its title: `<details class="card tool">` whose summary is the title,
/// then a muted introduction, then `body`.
pub fn tool_card(id: &'static str, title: &'static str, intro: &str, body: Html) -> Html {
    html! {
        <details class="card tool" {id}>
            <summary><h2>{ title }</h2></summary>
            <p class="muted">{ intro }</p>
            { body }
        </details>
    }
}
