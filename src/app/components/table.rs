//! Column headings of the app's tables.

use yew::prelude::*;

/// One `<th scope="col">` per label, in order (a fragment: the caller owns the `<tr>`, so a
/// table can add a heading of another shape before or after them). One element in the bundle
/// instead of one per heading.
pub fn col_heads(labels: &[&'static str]) -> Html {
    labels
        .iter()
        .map(|&label| html! { <th scope="col">{ label }</th> })
        .collect()
}
