//! Custom hooks: the app's browser side effects, kept out of the components' render code.
//!
//! - [`use_advice`](mod@use_advice): the engine's advice, computed again only when the scenario
//!   or its estimate changes.
//! - [`use_bands`](mod@use_bands): the error bands beside the key numbers, recomputed when
//!   the plan or the loaded runs change.
//! - [`use_copy`](mod@use_copy): a "Copy" button: copy a text, remember whether it worked.
//! - [`use_fetched`](mod@use_fetched): data files next to index.html (the published runs, the
//!   presets' sources), each fetched once per page when first needed.
//! - [`use_post_height`](mod@use_post_height): embed mode: tell the parent page the height.
//! - [`use_share`](mod@use_share): the plan bar's "Copy link" and "Embed…" dialog.
//! - [`use_search`](mod@use_search): the best-layout search, run without freezing the page.
//! - [`use_text`](mod@use_text): a text area's content as state.
//! - [`use_url_sync`](mod@use_url_sync): the state mirrored into the page URL, debounced.

pub mod use_advice;
pub mod use_bands;
pub mod use_copy;
pub mod use_fetched;
pub mod use_post_height;
pub mod use_share;
pub mod use_text;
pub mod use_url_sync;

pub use use_advice::use_advice;
pub use use_bands::use_bands;
pub use use_copy::use_copy;
pub use use_fetched::{use_evidence, use_sources};
pub use use_post_height::use_post_height;
pub use use_share::{use_copy_link, use_embed_dialog};
pub use use_text::use_text;
pub mod use_search;

pub use use_url_sync::use_url_sync;
