//! What the four form sections share: their props and helpers that wire a field to the state.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::components::num_field::{checkbox, select, NumField, Opt};
use crate::app::state::Action;
use crate::scenario::{FieldId, FieldRef, Issue, Kind, Scenario, Value};

/// What every form section edits ([`model_form`](super::model_form::model_form) …).
#[derive(Clone, Debug, PartialEq)]
pub struct FormProps {
    /// The scenario being edited.
    pub scenario: Rc<Scenario>,
    /// The engine's problems with it, each naming a field.
    pub issues: Rc<Vec<Issue>>,
    /// Dispatches a change.
    pub on_action: Callback<Action>,
}

/// The messages of `issues` about `field` (a [`FieldId`], or a path outside the table such as
/// `model.moe`).
pub fn errors_for(issues: &[Issue], field: impl Into<FieldRef>) -> Vec<String> {
    let field = field.into();
    issues
        .iter()
        .filter(|i| i.field == field)
        .map(|i| i.message.clone())
        .collect()
}

/// A [`NumField`] for the numeric field `id`, wired to `SetNum`.
pub fn num_field(id: FieldId, props: &FormProps, placeholder: &str) -> Html {
    let def = id.def();
    let on_action = props.on_action.clone();
    let on_draft = {
        let on_action = props.on_action.clone();
        Callback::from(move |why| on_action.emit(Action::Draft(id, why)))
    };
    html! {
        <NumField
            key={def.path}
            field={id}
            value={def.number(&props.scenario)}
            placeholder={AttrValue::from(placeholder.to_string())}
            errors={errors_for(&props.issues, id)}
            on_change={Callback::from(move |v| on_action.emit(Action::SetNum(id, v)))}
            {on_draft}
        />
    }
}

/// A `<select>` for field `id` (label and help from the field table): each option's value is
/// the field's link text of a value ("" = empty), dispatched as `Set`.
pub fn select_field(id: FieldId, props: &FormProps, options: Vec<Opt>, selected: &str) -> Html {
    let def = id.def();
    let on_action = props.on_action.clone();
    let on_change = Callback::from(move |v: String| {
        if let Ok(x) = def.parse(&v) {
            on_action.emit(Action::Set(id, x.into_owned()));
        }
    });
    let errors = errors_for(&props.issues, id);
    select(
        def.path, def.label, def.help, options, selected, &errors, on_change,
    )
}

/// A checkbox for the on/off field `id` (label and help from the field table).
pub fn switch_field(id: FieldId, props: &FormProps, checked: bool) -> Html {
    let def = id.def();
    let on_action = props.on_action.clone();
    let on_change = Callback::from(move |b: bool| on_action.emit(Action::Set(id, Value::Bool(b))));
    let errors = errors_for(&props.issues, id);
    checkbox(def.path, def.label, def.help, checked, &errors, on_change)
}

/// The select options of an optional choice field: the default (named), then every id of its
/// kind.
pub fn choice_options(id: FieldId, default: &str) -> Vec<Opt> {
    let mut out = vec![Opt::new("", format!("default ({default})"))];
    if let Kind::Choice(all) = id.def().kind {
        out.extend(all.iter().map(|x| Opt::new(*x, *x)));
    }
    out
}

/// The select options of an optional switch: the default (named), on, off.
pub fn opt_bool_options(default: &str) -> Vec<Opt> {
    vec![
        Opt::new("", format!("default ({default})")),
        Opt::new("on", "on"),
        Opt::new("off", "off"),
    ]
}

/// The select value of an optional switch: "" = default, "on", "off".
pub fn opt_bool_value(v: Option<bool>) -> &'static str {
    match v {
        None => "",
        Some(true) => "on",
        Some(false) => "off",
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
