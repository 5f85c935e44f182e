//! All problems with the scenario, each linking to its field.

use yew::prelude::*;

use crate::scenario::Issue;

/// Lists the scenario's problems, in field order (also shown at each field); renders nothing
/// when there are none.
pub fn issue_list(issues: &[Issue]) -> Html {
    if issues.is_empty() {
        return html! {};
    }
    let n = issues.len();
    html! {
        <div class="issues" role="status" id="issues">
            <p><strong>{ format!("{n} problem{} to fix", if n == 1 { "" } else { "s" }) }</strong></p>
            <ul>
                { for issues.iter().map(|issue| html! {
                    <li><a href={format!("#{}", issue.field.replace('.', "-"))}><code>{ issue.field.to_string() }</code></a>{ ": " }{ issue.message.clone() }</li>
                }) }
            </ul>
        </div>
    }
}
