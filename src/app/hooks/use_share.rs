//! The plan bar's share tools: "Copy link" (refused while a field's text is not accepted) and
//! the "Embed…" dialog (focus returns to its button on close).

use std::rc::Rc;

use yew::prelude::*;

use crate::app::browser;
use crate::app::state::State;

/// The "Copy link" button: what it shows and what a click does.
pub struct CopyLink {
    /// The link was copied (reset when the plan changes).
    pub copied: bool,
    /// The copy was refused: a field's text is not accepted, and the link would share the last
    /// valid plan, not what the form shows (reset when the plan or the drafts change).
    pub refused: bool,
    /// Copies the page's link to the clipboard, or refuses.
    pub onclick: Callback<MouseEvent>,
}

/// "Copy link" for `state`, whose link query is `query`; `stale` when a field's text is not
/// accepted.
#[hook]
pub fn use_copy_link(state: Rc<State>, query: Rc<str>, stale: bool) -> CopyLink {
    let copied = use_state(bool::default);
    let refused = use_state(bool::default);
    let onclick = {
        let (copied, refused) = (copied.clone(), refused.clone());
        Callback::from(move |_| {
            if !state.drafts.is_empty() {
                refused.set(true);
                return;
            }
            let url = format!("{}?{}", browser::page_base(), state.query_with(None));
            let copied = copied.clone();
            browser::copy_text(url, move |ok| copied.set(ok));
        })
    };
    {
        let (copied, refused) = (copied.clone(), refused.clone());
        use_effect_with((query, stale), move |_| {
            copied.set(false);
            refused.set(false);
        });
    }
    CopyLink {
        copied: *copied,
        refused: *refused,
        onclick,
    }
}

/// The "Embed…" dialog: open with the page's address, closed, and the button that opens it.
pub struct EmbedDialogHandle {
    /// The page's address without query while the dialog is open.
    pub base: Option<AttrValue>,
    /// Opens the dialog.
    pub open: Callback<MouseEvent>,
    /// Closes it; focus returns to [`EmbedDialogHandle::button`].
    pub close: Callback<()>,
    /// The button that opens it.
    pub button: NodeRef,
}

/// The open/closed state of the "Embed…" dialog.
#[hook]
pub fn use_embed_dialog() -> EmbedDialogHandle {
    let base = use_state(|| None::<AttrValue>);
    let button = use_node_ref();
    let open = {
        let base = base.clone();
        Callback::from(move |_| base.set(Some(browser::page_base().into())))
    };
    let close = {
        let (base, button) = (base.clone(), button.clone());
        Callback::from(move |_| {
            base.set(None);
            // Focus returns to the button that opened the dialog.
            if let Some(b) = button.cast::<web_sys::HtmlElement>() {
                let _ = b.focus();
            }
        })
    };
    EmbedDialogHandle {
        base: (*base).clone(),
        open,
        close,
        button,
    }
}
