//! Mirrors the state into the page URL, debounced.

use std::rc::Rc;
use std::time::Duration;

use gloo::timers::callback::Timeout;
use yew::prelude::*;

/// How long typing must pause before the URL is rewritten.
pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// Keeps the page's URL query equal to `query` (without `?`), using `history.replaceState` so
/// that typing does not fill the back button's history. The write waits until `query` has not
/// changed for [`DEBOUNCE`]: a new value replaces the pending [`Timeout`], and dropping the old
/// one cancels it (the `function_delayed_input` pattern). The path and `#fragment` are kept.
///
/// Runs only in the browser (effects never run during server-side rendering).
///
/// ```text
/// use_url_sync(derived.query.clone());
/// ```
#[hook]
pub fn use_url_sync(query: Rc<str>) {
    let pending = use_mut_ref(|| None::<Timeout>);
    use_effect_with(query, move |query| {
        let query = query.clone();
        *pending.borrow_mut() = Some(Timeout::new(DEBOUNCE.as_millis() as u32, move || {
            replace_query(&query)
        }));
    });
}

/// Replaces the query of the current URL if it differs. Failures (no window, a sandboxed
/// iframe refusing `replaceState`) leave the URL as it is: the page keeps working.
pub fn replace_query(query: &str) {
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
