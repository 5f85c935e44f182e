//! All problems with the scenario, each linking to its field.

use std::rc::Rc;

use yew::prelude::*;

use crate::scenario::Issue;

/// Props of [`IssueList`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct IssueListProps {
    /// The scenario's problems, in field order.
    pub issues: Rc<Vec<Issue>>,
}

/// Lists the scenario's problems (also shown at each field); renders nothing when there are none.
#[component]
pub fn IssueList(props: &IssueListProps) -> Html {
    if props.issues.is_empty() {
        return html! {};
    }
    let n = props.issues.len();
    html! {
        <div class="issues" role="status" id="issues">
            <p><strong>{ format!("{n} problem{} to fix", if n == 1 { "" } else { "s" }) }</strong></p>
            <ul>
                { for props.issues.iter().map(|issue| html! {
                    <li><a href={format!("#{}", issue.field.replace('.', "-"))}><code>{ issue.field.to_string() }</code></a>{ ": " }{ issue.message.clone() }</li>
                }) }
            </ul>
        </div>
    }
}
