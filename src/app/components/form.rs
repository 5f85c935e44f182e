//! What the four form sections share: their props and helpers that wire a field to the state.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::components::num_field::{checkbox, hint, select, NumField, Opt};
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

/// A [`NumField`] for the numeric field `id`, wired to `SetNum`; empty, it shows the field
/// table's default ([`crate::scenario::FieldDef::empty`]).
pub fn num_field(id: FieldId, props: &FormProps) -> Html {
    num_field_showing(id, props, id.def().empty)
}

/// The [`NumField`]s of `ids`, in order (the rows of a grid).
pub fn num_fields(ids: &[FieldId], props: &FormProps) -> Html {
    ids.iter().map(|&id| num_field(id, props)).collect()
}

/// [`num_field`] showing `placeholder` while empty: a default the form works out from the
/// scenario (the K/V heads follow the heads, the links follow the GPU).
pub fn num_field_showing(id: FieldId, props: &FormProps, placeholder: &str) -> Html {
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

/// One checkbox per id of the set field `id` ([`Kind::Set`]) in a fieldset whose id is the
/// field's input id; `bits` is the field's value (0: unset, the default applies). Ticking or
/// clearing a box dispatches the new set; clearing the last one unsets the field.
pub fn set_field(id: FieldId, props: &FormProps, bits: u8) -> Html {
    let def = id.def();
    let Kind::Set(all) = def.kind else {
        return Html::default();
    };
    let group = def.input_id();
    let hint_id = format!("{group}-hint");
    let errors = errors_for(&props.issues, id);
    let boxes: Vec<Html> = all.iter().enumerate().take(8).map(|(i, name)| {
        let bit = 1u8 << i;
        let box_id = format!("{group}-{name}");
        let on_action = props.on_action.clone();
        let onchange = Callback::from(move |e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            let next = if el.checked() { bits | bit } else { bits & !bit };
            let v = if next == 0 { Value::Unset } else { Value::Set(next) };
            on_action.emit(Action::Set(id, v));
        });
        html! {
            <span class="check">
                <input type="checkbox" id={box_id.clone()} checked={bits & bit != 0} {onchange} />
                <label for={box_id}>{ *name }</label>
            </span>
        }
    }).collect();
    html! {
        <fieldset id={group} class={classes!("field", "wide", "set", (!errors.is_empty()).then_some("invalid"))}
            aria-describedby={hint_id.clone()}>
            <legend>{ def.label }</legend>
            { for boxes }
            { hint(hint_id, def.help, &errors) }
        </fieldset>
    }
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

/// A `<select>` for the optional switch `id` whose three choices read `labels`: the default
/// (empty), on and off; `v` is the field's value.
pub fn opt_bool_field(id: FieldId, props: &FormProps, labels: [&str; 3], v: Option<bool>) -> Html {
    let [default, on, off] = labels;
    let options = vec![
        Opt::new("", default),
        Opt::new("on", on),
        Opt::new("off", off),
    ];
    select_field(id, props, options, opt_bool_value(v))
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

/// A folded group of rarely changed fields: a `<details>` whose summary names the fields that
/// are set (not left to their defaults) and the problems inside, so nothing that shapes the
/// estimate is hidden without a word. Its `open` is the user's alone: the page never folds a
/// group away under a field being typed into (the issue list's links unfold it).
pub fn folded(
    id: &'static str,
    title: &'static str,
    props: &FormProps,
    fields: &[FieldId],
    extra_set: &[&'static str],
    body: Html,
) -> Html {
    let mut set: Vec<&'static str> = fields
        .iter()
        .filter(|&&f| {
            let def = f.def();
            def.optional && !matches!((def.get)(&props.scenario), None | Some(Value::Unset))
        })
        .map(|f| f.def().label)
        .collect();
    set.extend_from_slice(extra_set);
    let problems: Vec<&'static str> = fields
        .iter()
        .filter(|&&f| !errors_for(&props.issues, f).is_empty())
        .map(|f| f.def().label)
        .collect();
    html! {
        <details class="subgroup" {id}>
            <summary>
                { title }
                if !set.is_empty() {
                    <span class="muted small">{ format!(" — set: {}", set.join(", ")) }</span>
                }
                if !problems.is_empty() {
                    <span class="error-inline">{ format!(" — to fix: {}", problems.join(", ")) }</span>
                }
            </summary>
            { body }
        </details>
    }
}
