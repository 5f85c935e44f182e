//! Writing a scenario as a JSON tree: every field the scenario has, in table order, each under
//! its path. A field that does not apply (its `get` is `None`: top-k of a dense model) or is
//! unset (an optional field at its default) is left out, as are the objects of [`NESTED`] the
//! scenario does not have (`model.moe` is written as `null`, as `DESIGN.md`'s example shows).
//! A nested object sits where its first field or the field of its own path (`cluster.gpu`) is.

use super::nested;
use super::text::Node;
use crate::scenario::fields::{Kind, Value, FIELDS};
use crate::scenario::name_set::set_names;
use crate::scenario::Scenario;
use std::borrow::Cow;

/// The scenario as a tree of JSON objects, text borrowed from `s`.
pub(crate) fn scenario(s: &Scenario) -> Node<'_> {
    let mut root = Node::Object(Vec::new());
    'fields: for f in FIELDS {
        let Some(v) = (f.get)(s) else { continue };
        // Walk (and make) the objects above the field; stop at one the scenario lacks.
        let mut at = &mut root;
        let mut start = 0;
        for (end, _) in f.path.match_indices('.').chain([(f.path.len(), "")]) {
            let (path, key) = (&f.path[..end], &f.path[start..end]);
            start = end + 1;
            let last = end == f.path.len();
            match nested(path) {
                Some(n) if (n.present)(s) => at = member(at, key, || Node::Object(Vec::new())),
                // The field of an absent object's own path: `cluster.gpu` as a preset id.
                None | Some(_) if last => {
                    if let Some(leaf) = leaf(f.kind, v) {
                        member(at, key, || leaf);
                    }
                    continue 'fields;
                }
                Some(n) => {
                    if n.null_when_absent {
                        member(at, key, || Node::Null);
                    }
                    continue 'fields;
                }
                None => at = member(at, key, || Node::Object(Vec::new())),
            }
        }
    }
    root
}

/// The member `key` of the object `at`, added (as `make` gives it) when it is not there yet.
fn member<'n, 'a>(
    at: &'n mut Node<'a>,
    key: &'static str,
    make: impl FnOnce() -> Node<'a>,
) -> &'n mut Node<'a> {
    let Node::Object(members) = at else {
        // Only objects are walked into (a leaf's path is never a prefix of another's).
        return at;
    };
    let i = match members.iter().position(|(k, _)| k == key) {
        Some(i) => i,
        None => {
            members.push((Cow::Borrowed(key), make()));
            members.len() - 1
        }
    };
    &mut members[i].1
}

/// The JSON of a field's value (`None`: unset, left out).
fn leaf(kind: Kind, v: Value<'_>) -> Option<Node<'_>> {
    Some(match v {
        Value::Unset => return None,
        Value::Count(x) => Node::Int(x),
        Value::Real(x) => Node::Float(x),
        Value::Bool(b) => Node::Bool(b),
        Value::Text(t) => Node::Str(t),
        Value::List(l) => Node::List(l.iter().map(|&x| Node::Int(x)).collect()),
        Value::Set(b) => match kind {
            Kind::Set(all) => Node::List(
                set_names(b, all)
                    .map(|x| Node::Str(Cow::Borrowed(x)))
                    .collect(),
            ),
            _ => return None,
        },
    })
}
