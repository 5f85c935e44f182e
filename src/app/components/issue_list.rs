//! Problems with the scenario, each naming its field.

use std::rc::Rc;

use yew::prelude::*;

use crate::scenario::Issue;

/// Props of [`IssueList`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct IssueListProps {
    /// The scenario's problems, in field order.
    pub issues: Rc<Vec<Issue>>,
}

/// Lists the scenario's problems; renders nothing when there are none.
#[component]
pub fn IssueList(props: &IssueListProps) -> Html {
    if props.issues.is_empty() {
        return html! {};
    }
    html! {
        <ul class="issues" role="status">
            { for props.issues.iter().map(|issue| html! {
                <li><code>{ issue.field.clone() }</code>{ ": " }{ issue.message.clone() }</li>
            }) }
        </ul>
    }
}
