//! Custom hooks: the app's browser side effects, kept out of the components' render code.

pub mod use_advice;
pub mod use_bands;
pub mod use_evidence;
pub mod use_post_height;
pub mod use_share;
pub mod use_url_sync;

pub use use_advice::use_advice;
pub use use_bands::use_bands;
pub use use_evidence::use_evidence;
pub use use_post_height::use_post_height;
pub use use_share::{use_copy_link, use_embed_dialog};
pub mod use_search;

pub use use_url_sync::use_url_sync;
