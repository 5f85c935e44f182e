//! What the four form sections share: their props and helpers that wire a field to the state.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::components::num_field::NumField;
use crate::app::state::{Action, Num};
use crate::scenario::{Issue, Scenario};

/// Props of every form section ([`ModelForm`](super::model_form::ModelForm) …).
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct FormProps {
    /// The scenario being edited.
    pub scenario: Rc<Scenario>,
    /// The engine's problems with it, each naming a field.
    pub issues: Rc<Vec<Issue>>,
    /// Dispatches a change.
    pub on_action: Callback<Action>,
}

/// The messages of `issues` about `path` (exactly that field).
pub fn errors_for(issues: &[Issue], path: &str) -> Vec<String> {
    issues
        .iter()
        .filter(|i| i.field == path)
        .map(|i| i.message.clone())
        .collect()
}

/// The field paths the forms show errors at; issues about other paths are listed above the form.
pub fn shown_at_a_field(path: &str) -> bool {
    !matches!(
        path,
        "scenario" | "model" | "training" | "parallel" | "cluster" | "overhead"
    ) && !path.starts_with("cluster.gpu.peak_tflops_")
}

/// A [`NumField`] for `num`, wired to `SetNum`.
pub fn num_field(num: Num, props: &FormProps, placeholder: &str) -> Html {
    let spec = num.spec();
    let on_action = props.on_action.clone();
    let on_draft = {
        let on_action = props.on_action.clone();
        Callback::from(move |why| on_action.emit(Action::Draft(spec.path, spec.label, why)))
    };
    html! {
        <NumField
            key={spec.path}
            {spec}
            value={num.get(&props.scenario)}
            placeholder={AttrValue::from(placeholder.to_string())}
            errors={errors_for(&props.issues, spec.path)}
            on_change={Callback::from(move |v| on_action.emit(Action::SetNum(num, v)))}
            {on_draft}
        />
    }
}

/// A callback that maps a value to an action and dispatches it.
pub fn send<T: 'static>(
    props: &FormProps,
    f: impl Fn(T) -> Option<Action> + 'static,
) -> Callback<T> {
    let on_action = props.on_action.clone();
    Callback::from(move |v: T| {
        if let Some(a) = f(v) {
            on_action.emit(a);
        }
    })
}

/// The select value of an optional switch: "" = default, "on", "off".
pub fn opt_bool_value(v: Option<bool>) -> &'static str {
    match v {
        None => "",
        Some(true) => "on",
        Some(false) => "off",
    }
}

/// The optional switch of a select value (see [`opt_bool_value`]).
pub fn opt_bool_of(v: &str) -> Option<bool> {
    match v {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}
