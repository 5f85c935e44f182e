//! A labelled whole-number input that reports only valid values.

use yew::prelude::*;

/// Props of [`NumberField`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct NumberFieldProps {
    /// Element id of the `<input>` (also used by tests and the label).
    pub id: AttrValue,
    /// Visible label.
    pub label: AttrValue,
    /// One-line explanation under the input.
    pub hint: AttrValue,
    /// The current value.
    pub value: u64,
    /// Smallest accepted value.
    pub min: u64,
    /// Largest accepted value.
    pub max: u64,
    /// Called with each new valid value.
    pub on_change: Callback<u64>,
}

/// A whole-number field. The text typed is kept as is; while it is not a whole number in
/// `min..=max` the field is marked invalid, says why, and `on_change` is not called.
#[component]
pub fn NumberField(props: &NumberFieldProps) -> Html {
    let text = use_state(|| props.value.to_string());
    {
        // Follow value changes that come from elsewhere (e.g. a reset), not from typing.
        let text = text.clone();
        use_effect_with(props.value, move |value| {
            if text.trim().parse::<u64>().ok() != Some(*value) {
                text.set(value.to_string());
            }
        });
    }

    let error = check(&text, props.min, props.max);
    let oninput = {
        let text = text.clone();
        let (min, max, on_change) = (props.min, props.max, props.on_change.clone());
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let value = input.value();
            if check(&value, min, max).is_none() {
                if let Ok(v) = value.trim().parse::<u64>() {
                    on_change.emit(v);
                }
            }
            text.set(value);
        })
    };

    let hint_id = format!("{}-hint", props.id);
    html! {
        <div class={classes!("field", error.is_some().then_some("invalid"))}>
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <input
                id={props.id.clone()}
                type="number"
                inputmode="numeric"
                step="1"
                min={props.min.to_string()}
                max={props.max.to_string()}
                value={(*text).clone()}
                aria-invalid={error.is_some().to_string()}
                aria-describedby={hint_id.clone()}
                {oninput}
            />
            <p id={hint_id} class="hint">
                { error.unwrap_or_else(|| props.hint.to_string()) }
            </p>
        </div>
    }
}

/// Why `text` is not acceptable, or `None` when it is a whole number in `min..=max`.
fn check(text: &str, min: u64, max: u64) -> Option<String> {
    match text.trim().parse::<u64>() {
        Ok(v) if (min..=max).contains(&v) => None,
        Ok(_) => Some(format!("Enter a whole number from {min} to {max}.")),
        Err(_) if text.trim().is_empty() => Some("Enter a value.".into()),
        Err(_) => Some(format!("\"{}\" is not a whole number.", text.trim())),
    }
}
