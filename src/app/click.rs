//! Buttons that send a fixed value when clicked.

use yew::prelude::*;

/// A click handler that emits `value` to `target` (an action to dispatch, `()` to a close or
/// cancel callback, a layout to apply).
///
/// Every button that sends a fixed value shares this one closure per value type: a closure
/// written at each button would be a type of its own, compiled (with its drop and call glue)
/// once per button.
pub fn emit_on_click<T: Clone + 'static>(target: &Callback<T>, value: T) -> Callback<MouseEvent> {
    let target = target.clone();
    Callback::from(move |_: MouseEvent| target.emit(value.clone()))
}
