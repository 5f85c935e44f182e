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

/// Props of [`ChangeNotice`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct ChangeNoticeProps {
    /// The announced change.
    pub undo: Option<Undo>,
    /// The estimate after it.
    pub estimate: Rc<Result<Estimate, ScenarioError>>,
    /// Dispatches undo / dismiss.
    pub on_action: Callback<Action>,
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

/// Renders nothing without a change to announce.
#[component]
pub fn ChangeNotice(props: &ChangeNoticeProps) -> Html {
    let before = use_memo(props.undo.clone(), |u| {
        u.as_ref().filter(|u| u.tried).map(|u| estimate(&u.before))
    });
    let undo_ref = use_node_ref();
    {
        // After a one-click change the clicked button is gone: focus goes to this notice's undo.
        let undo_ref = undo_ref.clone();
        let tried = props.undo.as_ref().is_some_and(|u| u.tried);
        use_effect_with(
            (props.undo.as_ref().map(|u| u.text.clone()), tried),
            move |(_, tried)| {
                if *tried {
                    if let Some(el) = undo_ref.cast::<web_sys::HtmlElement>() {
                        let _ = el.focus();
                    }
                }
            },
        );
    }
    let Some(u) = &props.undo else {
        return html! {};
    };
    let diff = match (&*before, &*props.estimate) {
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
                <button type="button" id="change-undo" onclick={undo} ref={undo_ref}>{ "Undo" }</button>
                <button type="button" class="link" id="change-keep" onclick={keep}>{ "Keep" }</button>
            </div>
        </div>
    }
}
