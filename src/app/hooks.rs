//! Custom hooks: the app's browser side effects, kept out of the components' render code.
//!
//! - [`use_advice`](mod@use_advice): the engine's advice, computed again only when the scenario
//!   or its estimate changes.
//! - [`use_copy`](mod@use_copy): a "Copy" button: copy a text, remember whether it worked.
//! - [`use_evidence`](mod@use_evidence): the published runs, fetched once per page.
//! - [`use_post_height`](mod@use_post_height): embed mode: tell the parent page the height.
//! - [`use_search`](mod@use_search): the best-layout search, run without freezing the page.
//! - [`use_text`](mod@use_text): a text area's content as state.
//! - [`use_url_sync`](mod@use_url_sync): the state mirrored into the page URL, debounced.

pub mod use_advice;
pub mod use_copy;
pub mod use_evidence;
pub mod use_post_height;
pub mod use_text;
pub mod use_url_sync;

pub use use_advice::use_advice;
pub use use_copy::use_copy;
pub use use_evidence::use_evidence;
pub use use_post_height::use_post_height;
pub use use_text::use_text;
pub mod use_search;

pub use use_url_sync::use_url_sync;
