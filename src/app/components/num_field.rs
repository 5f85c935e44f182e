//! A labelled number input with its unit, one-line help, limits and the engine's errors for its
//! field, all read from the field table ([`crate::scenario::fields`]); and the select and
//! checkbox controls of the other fields.

use yew::prelude::*;

use crate::scenario::{FieldDef, FieldId};
use crate::text::num::{Exp, Fixed, Plain};

/// Props of [`NumField`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct NumFieldProps {
    /// The field (its label, unit, help and limits come from the field table).
    pub field: FieldId,
    /// The current value (`None`: empty, the default applies).
    pub value: Option<f64>,
    /// Placeholder for an empty optional field (the default in effect).
    #[prop_or_default]
    pub placeholder: AttrValue,
    /// The engine's messages about this field (plain text).
    #[prop_or_default]
    pub errors: Vec<String>,
    /// Called with each new acceptable value.
    pub on_change: Callback<Option<f64>>,
    /// Called with why typed text is not accepted, and with `None` when such text is replaced
    /// from elsewhere or the field goes away (the app then knows its results are stale).
    #[prop_or_default]
    pub on_draft: Callback<Option<String>>,
}

/// Formats a value for the input: whole numbers without a fraction, others as Rust prints them.
pub fn show(v: f64) -> String {
    if v.abs() >= 1e10 {
        // 3e11 reads better than 300000000000 (and parses back exactly).
        Exp(v).to_string()
    } else if v.fract() == 0.0 {
        Fixed(v, 0).to_string()
    } else {
        Plain(v).to_string()
    }
}

/// Parses typed text against the field's kind: `Ok(None)` for an empty optional field,
/// `Err(why)` for text that is not acceptable.
pub fn parse(text: &str, def: &FieldDef) -> Result<Option<f64>, String> {
    // Thousands separators and spaces are ignored: "15,000,000,000,000" reads as 1.5e13.
    let t = text.trim().replace(['_', ' ', ',', '\u{a0}'], "");
    if t.is_empty() {
        return if def.optional {
            Ok(None)
        } else {
            Err("Enter a value.".into())
        };
    }
    // A decimal prefix after the number: "15T" tokens, "2k" GPUs.
    let (digits, scale) = match t.as_bytes().last() {
        Some(b'k' | b'K') => (&t[..t.len() - 1], 1e3),
        Some(b'M') => (&t[..t.len() - 1], 1e6),
        Some(b'B' | b'G') => (&t[..t.len() - 1], 1e9),
        Some(b'T') => (&t[..t.len() - 1], 1e12),
        Some(b'P') => (&t[..t.len() - 1], 1e15),
        _ => (t.as_str(), 1.0),
    };
    let v: f64 = match crate::text::parse_f64(digits) {
        Some(v) if v.is_finite() && digits.bytes().any(|b| b.is_ascii_digit()) => v * scale,
        _ => return Err("Not a number.".into()),
    };
    if def.whole() && v.fract() != 0.0 {
        return Err("Enter a whole number.".into());
    }
    let Some((min, max, above)) = def.range() else {
        return Err("Not a number field.".into());
    };
    if v < min || v > max || (above && v <= min) {
        let from = if above { "above" } else { "from" };
        let to = if above { "up to" } else { "to" };
        return Err(format!(
            "Enter a number {from} {} {to} {}.",
            show(min),
            show(max)
        ));
    }
    Ok(Some(v))
}

/// A number field. The typed text is kept as is; while it is not acceptable the field is marked
/// invalid, says why, and `on_change` is not called. Engine errors for the field are shown under
/// it in red.
#[component]
pub fn NumField(props: &NumFieldProps) -> Html {
    let spec = props.field.def();
    let text = use_state(|| props.value.map(show).unwrap_or_default());
    {
        // Follow changes that come from elsewhere (presets, imports, dp recomputed).
        let text = text.clone();
        let on_draft = props.on_draft.clone();
        use_effect_with(props.value.map(f64::to_bits), move |bits| {
            let value = bits.map(f64::from_bits);
            let parsed = parse(&text, spec);
            if parsed.as_ref().ok() != Some(&value) {
                if parsed.is_err() {
                    on_draft.emit(None);
                }
                text.set(value.map(show).unwrap_or_default());
            }
        });
    }
    {
        // A field that goes away (MoE off) leaves no stale mark behind.
        let on_draft = props.on_draft.clone();
        let text = text.clone();
        use_effect_with((), move |_| {
            move || {
                if parse(&text, spec).is_err() {
                    on_draft.emit(None);
                }
            }
        });
    }
    let local = parse(&text, spec).err();
    let oninput = {
        let text = text.clone();
        let on_change = props.on_change.clone();
        let on_draft = props.on_draft.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let value = input.value();
            match parse(&value, spec) {
                Ok(v) => on_change.emit(v),
                Err(why) => on_draft.emit(Some(why)),
            }
            text.set(value);
        })
    };
    let (id, hint_id) = field_ids(spec.path);
    let invalid = local.is_some() || !props.errors.is_empty();
    html! {
        <div class={classes!("field", invalid.then_some("invalid"))}>
            <label for={id.clone()}>{ spec.label }</label>
            <div class="input-unit">
                <input
                    id={id.clone()}
                    type="text"
                    inputmode={if spec.whole() { "numeric" } else { "decimal" }}
                    autocomplete="off"
                    spellcheck="false"
                    value={(*text).clone()}
                    placeholder={props.placeholder.clone()}
                    aria-invalid={invalid.to_string()}
                    aria-describedby={hint_id.clone()}
                    {oninput}
                />
                <span class="unit" aria-hidden="true">{ spec.unit }</span>
            </div>
            <p id={hint_id} class="hint">
                if let Some(why) = &local {
                    <span class="error">{ why.clone() }</span>
                } else if !props.errors.is_empty() {
                    { for props.errors.iter().map(|m| html! { <span class="error">{ m.clone() }</span> }) }
                } else {
                    { spec.help }
                }
            </p>
        </div>
    }
}

/// The element id of the control for `path` ("parallel.tp" -> "parallel-tp") and of its hint.
fn field_ids(path: &str) -> (String, String) {
    let id = path.replace('.', "-");
    let hint_id = format!("{id}-hint");
    (id, hint_id)
}

/// The hint under a [`select`] or [`checkbox`]: the engine's errors, else the help text.
pub(crate) fn hint(hint_id: String, help: &str, errors: &[String]) -> Html {
    html! {
        <p id={hint_id} class="hint">
            if errors.is_empty() {
                { help.to_string() }
            } else {
                { for errors.iter().map(|m| html! { <span class="error">{ m.clone() }</span> }) }
            }
        </p>
    }
}

/// One option of a [`select`].
pub struct Opt {
    /// The value attribute.
    pub value: String,
    /// The text shown.
    pub label: String,
}

impl Opt {
    /// An option.
    pub fn new(value: impl Into<String>, label: impl Into<String>) -> Opt {
        Opt {
            value: value.into(),
            label: label.into(),
        }
    }
}

/// A labelled `<select>` with help text and the engine's errors for `path`.
pub fn select(
    path: &str,
    label: &str,
    help: &str,
    options: Vec<Opt>,
    selected: &str,
    errors: &[String],
    on_change: Callback<String>,
) -> Html {
    let (id, hint_id) = field_ids(path);
    let onchange = Callback::from(move |e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        on_change.emit(el.value());
    });
    html! {
        <div class={classes!("field", (!errors.is_empty()).then_some("invalid"))}>
            <label for={id.clone()}>{ label.to_string() }</label>
            <select id={id.clone()} aria-describedby={hint_id.clone()} {onchange}>
                { for options.into_iter().map(|o| {
                    let sel = o.value == selected;
                    html! { <option value={o.value} selected={sel}>{ o.label }</option> }
                }) }
            </select>
            { hint(hint_id, help, errors) }
        </div>
    }
}

/// A labelled checkbox with help text and the engine's errors for `path`.
pub fn checkbox(
    path: &str,
    label: &str,
    help: &str,
    checked: bool,
    errors: &[String],
    on_change: Callback<bool>,
) -> Html {
    let (id, hint_id) = field_ids(path);
    let onchange = Callback::from(move |e: Event| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        on_change.emit(el.checked());
    });
    html! {
        <div class={classes!("field", "check", (!errors.is_empty()).then_some("invalid"))}>
            <input type="checkbox" id={id.clone()} {checked} aria-describedby={hint_id.clone()} {onchange} />
            <label for={id.clone()}>{ label.to_string() }</label>
            { hint(hint_id, help, errors) }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::scenario::FieldId;

    #[test]
    fn token_counts_take_prefixes_and_thousands_separators() {
        let def = FieldId::TrainTokens.def();
        for text in [
            "15T",
            "15,000,000,000,000",
            "1.5e13",
            "15 000 000 000 000",
            "15000G",
        ] {
            assert_eq!(parse(text, def), Ok(Some(1.5e13)), "{text}");
        }
        assert_eq!(parse("2k", FieldId::NumGpus.def()), Ok(Some(2000.0)));
        assert!(parse("T", def).is_err());
        assert!(parse("15X", def).is_err());
        assert_eq!(parse("", def), Ok(None));
    }
}
