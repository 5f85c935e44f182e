//! The page header.

use yew::prelude::*;

/// The app's name and what it is for.
#[component]
pub fn Header() -> Html {
    html! {
        <header class="site-header">
            <h1><span class="logo" aria-hidden="true"></span>{ "paracalc" }</h1>
            <p class="tagline">
                { "Plan distributed Transformer training before you book the cluster: memory per GPU, step time, throughput, MFU and cost." }
            </p>
        </header>
    }
}
