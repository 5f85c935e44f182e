//! The page header.

use yew::prelude::*;

/// The app's name and what it is for.
pub fn header() -> Html {
    html! {
        <header class="site-header">
            <h1>
                <svg class="logo" viewBox="0 0 32 32" aria-hidden="true">
                    <rect width="32" height="32" rx="6" fill="#2563eb" />
                    <rect x="6" y="17" width="5" height="9" rx="1" fill="#93c5fd" />
                    <rect x="13.5" y="10" width="5" height="16" rx="1" fill="#bfdbfe" />
                    <rect x="21" y="6" width="5" height="20" rx="1" fill="#ffffff" />
                </svg>
                { "paracalc" }
            </h1>
            <p class="tagline">
                { "Plan distributed Transformer training before you book the cluster: memory per GPU, step time, throughput, MFU and cost." }
            </p>
        </header>
    }
}
