//! JSON text in: the one function that turns text into a [`serde_json::Value`] for the scenario
//! reader, the evidence file and the Hugging Face import.
//!
//! Natively it is serde_json's parser. In the browser it is the JavaScript engine's own
//! `JSON.parse` (ECMA-262 §25.5.1), whose result is converted to the same value: the bundle then
//! carries no JSON parser of its own (serde_json's cost it 10.6 KB raw, 6 KB gzip). Numbers come back as
//! `f64` there; a whole number is given back as an integer (as serde_json does for `8`, though
//! also for `8.0`; the scenario reader accepts both spellings on either side, see
//! [`super::read`]).

use serde_json::Value;

/// Why a text is not JSON: the parser's message and where it stopped (1-based line, and the
/// column on that line; 0 where the parser does not say).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// What is wrong, in the parser's words.
    pub message: String,
    /// Line of the error, from 1 (0: unknown).
    pub line: usize,
    /// Column on that line (0: unknown).
    pub column: usize,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Parses JSON text.
///
/// # Errors
/// The text is not JSON.
#[cfg(not(target_arch = "wasm32"))]
pub fn parse(text: &str) -> Result<Value, SyntaxError> {
    serde_json::from_str(text).map_err(|e| SyntaxError {
        message: e.to_string(),
        line: e.line(),
        column: e.column(),
    })
}

/// Parses JSON text with the browser's `JSON.parse`.
///
/// # Errors
/// The text is not JSON.
#[cfg(target_arch = "wasm32")]
pub fn parse(text: &str) -> Result<Value, SyntaxError> {
    match js_sys::JSON::parse(text) {
        Ok(v) => Ok(from_js(&v)),
        Err(e) => {
            let message: String = js_sys::Error::from(e).message().into();
            // V8 says "… in JSON at position 12 …", or "Unexpected end of JSON input".
            let position = match message.find("position ") {
                Some(i) => message[i + 9..]
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .and_then(|n| n.parse::<usize>().ok()),
                None => message
                    .contains("end of JSON")
                    .then(|| text.chars().count()),
            };
            let (line, column) = position.map_or((0, 0), |p| line_column(text, p));
            Err(SyntaxError {
                message,
                line,
                column,
            })
        }
    }
}

/// The 1-based line and the byte column on it of the `position`-th character of `text`.
#[cfg(target_arch = "wasm32")]
fn line_column(text: &str, position: usize) -> (usize, usize) {
    let upto = text
        .char_indices()
        .nth(position)
        .map_or(text.len(), |(i, _)| i);
    let before = &text[..upto];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (before.matches('\n').count() + 1, upto - line_start)
}

/// A JavaScript value from `JSON.parse` as a serde_json value.
#[cfg(target_arch = "wasm32")]
fn from_js(v: &wasm_bindgen::JsValue) -> Value {
    use js_sys::{Array, Object};
    use wasm_bindgen::JsCast;
    if let Some(b) = v.as_bool() {
        Value::Bool(b)
    } else if let Some(x) = v.as_f64() {
        number(x)
    } else if let Some(s) = v.as_string() {
        Value::String(s)
    } else if let Some(a) = v.dyn_ref::<Array>() {
        Value::Array(a.iter().map(|x| from_js(&x)).collect())
    } else if let Some(o) = v.dyn_ref::<Object>() {
        let mut map = serde_json::Map::new();
        for entry in Object::entries(o).iter() {
            let pair: Array = entry.unchecked_into();
            if let Some(k) = pair.get(0).as_string() {
                map.insert(k, from_js(&pair.get(1)));
            }
        }
        Value::Object(map)
    } else {
        Value::Null
    }
}

/// A JavaScript number: whole numbers as integers (as serde_json reads `8`), the rest as
/// floats.
#[cfg(target_arch = "wasm32")]
fn number(x: f64) -> Value {
    if x.fract() != 0.0 {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&x) {
        Value::from(x as u64)
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&x) {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}
