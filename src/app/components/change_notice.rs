//! The notice of the last change the app made by itself (dp following tp, the GPU count
//! following dp, a custom stage split cleared) or on one click (a tried suggestion, an applied
//! layout), with an undo; a tried change also shows the key numbers before and after.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::click::emit_on_click;
use crate::app::format;
use crate::app::state::{Action, Undo};
use crate::engine::{estimate, Estimate};
use crate::scenario::ScenarioError;

/// What [`change_notice`] shows.
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeNoticeProps {
    /// The announced change.
    pub undo: Option<Undo>,
    /// The estimate after it.
    pub estimate: Rc<Result<Estimate, ScenarioError>>,
    /// What [`use_change_notice`] keeps for it.
    pub kept: ChangeNoticeState,
    /// Dispatches undo / dismiss.
    pub on_action: Callback<Action>,
}

/// What the notice keeps between renders ([`use_change_notice`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeNoticeState {
    /// The estimate before a tried change (`None` for other changes).
    pub before: Rc<Option<Result<Estimate, ScenarioError>>>,
    /// The undo button, which takes keyboard focus after a one-click change.
    pub undo_ref: NodeRef,
}

/// "step 14.9 s → 13.9 s (−6.8 %) · tokens/s … · MFU … · peak …" from `a` to `b`.
pub fn before_after(a: &Estimate, b: &Estimate) -> String {
    let fit = |e: &Estimate| if e.memory.fits { "" } else { " (OOM)" };
    format!(
        "step {} → {} ({}) · {} → {} tokens/s · MFU {} → {} · peak {}{} → {}{} per GPU",
        format::duration(a.time.step_s),
        format::duration(b.time.step_s),
        format::delta(a.time.step_s, b.time.step_s),
        format::si(a.throughput.tokens_per_s),
        format::si(b.throughput.tokens_per_s),
        format::pct(a.throughput.mfu),
        format::pct(b.throughput.mfu),
        format::gib(a.memory.peak_bytes),
        fit(a),
        format::gib(b.memory.peak_bytes),
        fit(b),
    )
}

/// The estimate before the announced change `undo`, when it was tried (computed again only
/// when the change does), and the undo button's ref: after a one-click change the clicked button
/// is gone, so focus goes to this notice's undo.
#[hook]
pub fn use_change_notice(undo: Option<Undo>) -> ChangeNoticeState {
    let tried = undo.as_ref().is_some_and(|u| u.tried);
    let text = undo.as_ref().map(|u| u.text.clone());
    let before = use_memo(undo, |u| {
        u.as_ref().filter(|u| u.tried).map(|u| estimate(&u.before))
    });
    let undo_ref = use_node_ref();
    {
        let undo_ref = undo_ref.clone();
        use_effect_with((text, tried), move |(_, tried)| {
            if *tried {
                if let Some(el) = undo_ref.cast::<web_sys::HtmlElement>() {
                    let _ = el.focus();
                }
            }
        });
    }
    ChangeNoticeState { before, undo_ref }
}

/// Renders nothing without a change to announce.
pub fn change_notice(props: &ChangeNoticeProps) -> Html {
    let Some(u) = &props.undo else {
        return html! {};
    };
    let diff = match (&*props.kept.before, &*props.estimate) {
        (Some(Ok(a)), Ok(b)) => Some(before_after(a, b)),
        _ => None,
    };
    let undo = emit_on_click(&props.on_action, Action::Undo);
    let keep = emit_on_click(&props.on_action, Action::KeepChange);
    html! {
        <div class="notice info change-notice" id="change-notice" role="status">
            <p id="change-text">{ u.text.clone() }</p>
            if let Some(d) = diff {
                <p id="change-diff" class="small">{ d }</p>
            }
            <div class="buttons">
                <button type="button" id="change-undo" onclick={undo} ref={props.kept.undo_ref.clone()}>{ "Undo" }</button>
                <button type="button" class="link" id="change-keep" onclick={keep}>{ "Keep" }</button>
            </div>
        </div>
    }
}
