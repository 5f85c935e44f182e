//! The page header.

use yew::prelude::*;

/// The app's name and what it is for.
#[component]
pub fn Header() -> Html {
    html! {
        <header class="site-header">
            <h1>{ "paracalc" }</h1>
            <p class="tagline">
                { "Plan distributed Transformer training before you book the cluster: memory, step time and throughput per GPU." }
            </p>
        </header>
    }
}
