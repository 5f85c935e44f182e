//! The Yew web app.
//!
//! Data flows one way: the URL query becomes the initial [`State`] (read once by [`start`] and
//! passed in as props, so the components never touch the browser while rendering and render
//! natively in tests); the forms dispatch [`Action`]s; the shell computes the estimate once per
//! change and mirrors the state back into the URL query (debounced `history.replaceState`).
//!
//! Layout (one component per file, see `STYLE.md`):
//! - [`state`]: the [`State`] (one [`Scenario`](crate::scenario::Scenario), the pinned A, the
//!   link's notices), its [`Action`]s, and the share-link query ([`crate::share`]);
//! - [`derived`]: what a render shows, computed once per state change (estimate, issues, query);
//! - [`components`]: the [`App`] and [`EmbedApp`] shells and their parts;
//! - [`charts`]: backend-generic plotters drawing functions (canvas in the browser, SVG in tests);
//! - [`hooks`]: browser side effects (`use_url_sync`, `use_post_height`);
//! - [`format`]: numbers as text with units.
//!
//! Children not named above:
//! - [`browser`]: Small browser helpers for event handlers (never called while rendering, so
//!   components still render natively).
//! - [`click`]: Buttons that send a fixed value when clicked.
//! - [`heap`]: the memory allocator of the browser build.

pub mod browser;
pub mod charts;
pub mod click;
pub mod components;
pub mod derived;
pub mod format;
pub mod heap;
pub mod hooks;
pub mod state;

pub use components::app::{App, AppProps};
pub use components::embed_app::{EmbedApp, EmbedAppProps};
pub use state::{Action, State};

/// Mounts the app: [`EmbedApp`] when the link has `embed=<chart>`, else the full [`App`].
///
/// First installs a panic hook that shows the page's hidden `#fatal` box (in `index.html`) with
/// the message and a reset link, so a bug never leaves a dead page.
#[cfg(target_arch = "wasm32")]
pub fn start() {
    install_panic_hook();
    let search = gloo::utils::window()
        .location()
        .search()
        .unwrap_or_default();
    let initial = State::from_query(&search);
    let body = gloo::utils::body();
    if initial.embed.is_some() {
        let _ = body.set_attribute("class", "embed-mode");
        yew::Renderer::<EmbedApp>::with_props(EmbedAppProps { state: initial }).render();
    } else {
        yew::Renderer::<App>::with_props(AppProps { initial }).render();
    }
}

/// Shows panics in the `#fatal` box (text only) and logs them to the console.
#[cfg(target_arch = "wasm32")]
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        gloo::console::error!(format!("paracalc: {message}"));
        show_fatal(&message);
    }));
}

/// Fills and reveals the `#fatal` box. Works on any page that has one (the full app and embeds).
#[cfg(target_arch = "wasm32")]
pub fn show_fatal(message: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(pre) = doc.get_element_by_id("fatal-message") {
        pre.set_text_content(Some(message));
    }
    if let Some(fatal) = doc.get_element_by_id("fatal") {
        let _ = fatal.remove_attribute("hidden");
    }
}
