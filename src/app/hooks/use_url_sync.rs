//! Mirrors the state into the page URL.

use yew::prelude::*;

/// Keeps the page's URL query equal to `query` (without `?`; `""` removes the query), using
/// `history.replaceState` so that typing does not fill the back button's history. The path and
/// the `#fragment` are kept.
///
/// Runs after each render in which `query` changed, and never during server-side rendering.
///
/// ```text
/// use_url_sync(state.to_query());
/// ```
#[hook]
pub fn use_url_sync(query: String) {
    use_effect_with(query, |query| replace_query(query));
}

/// Replaces the query of the current URL if it differs. Failures (no window, a sandboxed
/// iframe refusing `replaceState`) leave the URL as it is: the page keeps working.
fn replace_query(query: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    let current = location.search().unwrap_or_default();
    if current.strip_prefix('?').unwrap_or(&current) == query {
        return;
    }
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    let url = if query.is_empty() {
        format!("{path}{hash}")
    } else {
        format!("{path}?{query}{hash}")
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}
