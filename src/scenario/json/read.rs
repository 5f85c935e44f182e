//! Reading a scenario from a parsed JSON value: each object's keys are the next segments of the
//! table's paths; each leaf is converted to its field's [`Kind`] and [`set`](FieldDef::set).
//!
//! Errors name the field's path and say why in serde's words, which users of the files know:
//! `parallel.tp: invalid type: string "8", expected a whole number.`,
//! `model.layerz: unknown field \`layerz\`, expected one of …`, `model: missing field \`vocab\`.`
//! The first problem in table order is reported (shape first; [`Scenario::validate`] then
//! gathers every problem with the values).

use super::{child, nested, required, Nested, GPU_BOOKKEEPING};
use crate::scenario::fields::{set_bit, FieldDef, FieldId, Kind, Value, FIELDS};
use crate::scenario::{
    Calibration, Cluster, GpuChoice, Model, Overhead, Parallel, Scenario, ScenarioError, Training,
};
use serde_json::Value as Json;
use std::borrow::Cow;

/// The scenario of `json` (the whole file's object).
pub(crate) fn scenario(json: &Json) -> Result<Scenario, ScenarioError> {
    let mut s = empty();
    object(&mut s, "", json)?;
    Ok(s)
}

/// The model section of `json` alone (its errors name `model.…` paths).
pub(crate) fn model(json: &Json) -> Result<Model, ScenarioError> {
    let mut s = empty();
    object(&mut s, "model", json)?;
    Ok(s.model)
}

/// Every section at its defaults, for the reader to fill.
fn empty() -> Scenario {
    Scenario {
        model: Model::default(),
        training: Training::default(),
        parallel: Parallel::default(),
        cluster: Cluster::default(),
        overhead: Overhead::default(),
        calibration: Calibration::default(),
    }
}

/// An error about `path` (`""`: the whole scenario).
fn error(path: &str, message: String) -> ScenarioError {
    ScenarioError::shape(path, message)
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// The keys an object at `parent` may have, in table order.
fn keys(parent: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for f in FIELDS {
        if let Some(k) = child(parent, f.path) {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    out
}

/// Reads the object at `path` into `s`.
fn object(s: &mut Scenario, path: &str, json: &Json) -> Result<(), ScenarioError> {
    let Json::Object(map) = json else {
        return Err(invalid_type(path, json, "an object"));
    };
    let keys = keys(path);
    let ignored = |k: &str| path == "cluster.gpu" && GPU_BOOKKEEPING.contains(&k);
    if let Some(k) = map
        .keys()
        .find(|k| !keys.contains(&k.as_str()) && !ignored(k))
    {
        let expected: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
        return Err(error(
            &join(path, k),
            format!(
                "unknown field `{k}`, expected one of {}",
                expected.join(", ")
            ),
        ));
    }
    let inside = nested(path);
    for key in keys {
        let p = join(path, key);
        let value = map.get(key);
        match (FieldId::from_path(&p), nested(&p)) {
            // `cluster.gpu`: a preset id, or a custom GPU object.
            (Some(_), Some(n)) => match value {
                Some(Json::String(id)) => s.cluster.gpu = GpuChoice::Preset(id.clone()),
                Some(v @ Json::Object(_)) => {
                    (n.open)(s);
                    object(s, &p, v)?;
                }
                Some(v) => {
                    return Err(invalid_type(
                        &p,
                        v,
                        "a GPU preset id or a custom GPU object",
                    ))
                }
                None => return Err(missing(path, key)),
            },
            (Some(id), None) => match value {
                Some(v) => field(s, id.def(), &p, v, inside)?,
                None if required(id) => return Err(missing(path, key)),
                None => {}
            },
            (None, Some(n)) => match value {
                Some(Json::Null) if n.nullable => (n.close)(s),
                Some(v) => {
                    (n.open)(s);
                    object(s, &p, v)?;
                }
                None if n.required => return Err(missing(path, key)),
                None => {}
            },
            (None, None) => {}
        }
    }
    Ok(())
}

/// Sets the field `def` (at `path`, inside the object `inside`) from `json`.
fn field(
    s: &mut Scenario,
    def: &FieldDef,
    path: &str,
    json: &Json,
    inside: Option<&Nested>,
) -> Result<(), ScenarioError> {
    let v = value(def, path, json)?;
    (def.set)(s, v).map_err(|why| error(path, why))?;
    // In a link, 0 experts (or a latent rank of 0) switches the block off; in a file the object
    // being there says it is on, and validation reports the 0. Each such field comes first in
    // its object, so opening it again keeps every other field.
    if let Some(n) = inside.filter(|n| !(n.present)(s)) {
        (n.open)(s);
    }
    Ok(())
}

/// `json` as a value of `def`'s kind (`null`: unset, where the field may be).
fn value<'a>(def: &FieldDef, path: &str, json: &'a Json) -> Result<Value<'a>, ScenarioError> {
    let expected = match def.kind {
        Kind::Count { .. } => "a whole number",
        Kind::Real { .. } | Kind::Between { .. } => "a number",
        Kind::Bool => "a boolean",
        Kind::Choice(_) | Kind::Text | Kind::Gpu => "a string",
        Kind::List { .. } => "a list of whole numbers",
        Kind::Set(_) => "a list of strings",
    };
    let v = match (def.kind, json) {
        (Kind::Text, Json::Null) => None,
        (_, Json::Null) if def.optional => Some(Value::Unset),
        (Kind::Count { .. }, Json::Number(n)) => whole(n).map(Value::Count),
        (Kind::Real { .. } | Kind::Between { .. }, Json::Number(n)) => n.as_f64().map(Value::Real),
        (Kind::Bool, Json::Bool(b)) => Some(Value::Bool(*b)),
        (Kind::Choice(all), Json::String(t)) => match all.iter().find(|x| **x == t) {
            Some(x) => Some(Value::Text(Cow::Borrowed(*x))),
            None => {
                let ids: Vec<String> = all.iter().map(|x| format!("`{x}`")).collect();
                return Err(error(
                    path,
                    format!("unknown variant `{t}`, expected one of {}", ids.join(", ")),
                ));
            }
        },
        (Kind::Text | Kind::Gpu, Json::String(t)) => Some(Value::Text(Cow::Borrowed(t))),
        (Kind::List { .. }, Json::Array(items)) => {
            let mut list = Vec::with_capacity(items.len());
            for (i, x) in items.iter().enumerate() {
                match x.as_number().and_then(whole) {
                    Some(x) => list.push(x),
                    None => return Err(invalid_type(&format!("{path}[{i}]"), x, "a whole number")),
                }
            }
            Some(Value::List(Cow::Owned(list)))
        }
        (Kind::Set(all), Json::Array(items)) => {
            let mut bits = 0u8;
            for (i, x) in items.iter().enumerate() {
                let at = format!("{path}[{i}]");
                match x {
                    Json::String(t) => bits |= set_bit(t, all).map_err(|why| error(&at, why))?,
                    _ => return Err(invalid_type(&at, x, "a string")),
                }
            }
            Some(Value::Set(bits))
        }
        _ => None,
    };
    v.ok_or_else(|| invalid_type(path, json, expected))
}

/// A whole number from 0, spelt `8` or `8.0` (the browser's `JSON.parse` cannot tell them
/// apart: [`super::parse`]); `None` for any other number.
fn whole(n: &serde_json::Number) -> Option<u64> {
    n.as_u64().or_else(|| {
        let x = n.as_f64()?;
        (x.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&x)).then_some(x as u64)
    })
}

fn missing(parent: &str, key: &str) -> ScenarioError {
    error(parent, format!("missing field `{key}`"))
}

/// `invalid type: <what json is>, expected <expected>`, in serde's words.
fn invalid_type(path: &str, json: &Json, expected: &str) -> ScenarioError {
    let got = match json {
        Json::Null => "null".to_string(),
        Json::Bool(b) => format!("boolean `{b}`"),
        Json::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(x), _) => format!("integer `{x}`"),
            (_, Some(x)) => format!("integer `{x}`"),
            _ => {
                let mut t = String::new();
                super::text::push_f64(&mut t, n.as_f64().unwrap_or(f64::NAN));
                format!("floating point `{t}`")
            }
        },
        Json::String(t) => format!("string {t:?}"),
        Json::Array(_) => "sequence".to_string(),
        Json::Object(_) => "map".to_string(),
    };
    error(path, format!("invalid type: {got}, expected {expected}"))
}
