//! The Yew web app.
//!
//! Data flows one way: the URL query becomes the initial [`State`] (read once by [`start`] and
//! passed in as props, so the components never touch the browser while rendering and render
//! natively in tests); the form dispatches [`Action`]s; the shell derives what the charts need
//! and mirrors the state back into the URL query with `history.replaceState`.
//!
//! Layout (one component per file, see `STYLE.md`):
//! - [`state`]: the [`State`] (one [`Scenario`](crate::scenario::Scenario)), its [`Action`]s and
//!   the URL query it is read from and written to;
//! - [`components`]: the [`App`] shell and its parts;
//! - [`charts`]: backend-generic plotters drawing functions (canvas in the browser, SVG in tests);
//! - [`hooks`]: browser side effects (`use_url_sync`).

pub mod charts;
pub mod components;
pub mod hooks;
pub mod state;

pub use components::app::{App, AppProps};
pub use state::{Action, State};

/// Mounts the app into the page body, with the state read from the page's URL query.
///
/// This is the one place that picks a shell: an embed shell (`?embed=<chart>`, see `DESIGN.md`)
/// will be chosen here from the same query.
#[cfg(target_arch = "wasm32")]
pub fn start() {
    let search = gloo::utils::window()
        .location()
        .search()
        .unwrap_or_default();
    let initial = State::from_query(&search);
    yew::Renderer::<App>::with_props(AppProps { initial }).render();
}
