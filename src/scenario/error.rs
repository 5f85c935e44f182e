//! Field-level errors for scenarios.

use super::fields::FieldId;
use std::fmt;

/// The field an [`Issue`] is about: a field of the table ([`FieldId`]), or another path
/// (a key the JSON reader does not know, such as a misspelt `parallel.tpp`, or `scenario` itself).
/// Derefs to its dotted path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldRef {
    /// A field of the table.
    Field(FieldId),
    /// Any other path.
    Other(String),
}

impl FieldRef {
    /// The dotted path, e.g. `parallel.tp`.
    pub fn as_str(&self) -> &str {
        match self {
            FieldRef::Field(id) => id.path(),
            FieldRef::Other(p) => p,
        }
    }

    /// The table field, if it is one.
    pub fn id(&self) -> Option<FieldId> {
        match self {
            FieldRef::Field(id) => Some(*id),
            FieldRef::Other(_) => None,
        }
    }
}

impl std::ops::Deref for FieldRef {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<FieldId> for FieldRef {
    fn from(id: FieldId) -> FieldRef {
        FieldRef::Field(id)
    }
}

impl From<&str> for FieldRef {
    /// The table field with this path, else the path as given.
    fn from(path: &str) -> FieldRef {
        FieldId::from_path(path).map_or_else(|| FieldRef::Other(path.to_string()), FieldRef::Field)
    }
}

impl From<String> for FieldRef {
    fn from(path: String) -> FieldRef {
        FieldId::from_path(&path).map_or(FieldRef::Other(path), FieldRef::Field)
    }
}

impl PartialEq<str> for FieldRef {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for FieldRef {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<FieldId> for FieldRef {
    fn eq(&self, other: &FieldId) -> bool {
        self.id() == Some(*other)
    }
}

impl fmt::Display for FieldRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for FieldRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One problem with a scenario: the field it is about (serialized as its dotted path, e.g.
/// `parallel.tp`, matching the JSON keys) and a full sentence saying why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Issue {
    /// The field, e.g. [`FieldId::Tp`] (`parallel.tp`).
    pub field: FieldRef,
    /// What is wrong, as a sentence ("tensor parallel 6 does not divide 32 attention heads").
    pub message: String,
}

impl Issue {
    /// Makes an issue for `field` (a [`FieldId`] or a path) with `message`.
    pub fn new(field: impl Into<FieldRef>, message: impl Into<String>) -> Issue {
        Issue {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Every problem found in a scenario. A plan that does not fit in memory is *not* an error.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ScenarioError {
    /// All problems, in the order the fields appear in the scenario.
    pub issues: Vec<Issue>,
}

impl ScenarioError {
    /// An error with a single issue.
    pub fn single(field: impl Into<FieldRef>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            issues: vec![Issue::new(field, message)],
        }
    }

    /// An issue for the JSON syntax error `inner` at `path` (empty: the whole scenario), in the
    /// parser's words (serde_json's end with " at line L column C").
    pub(crate) fn from_json(path: &str, inner: super::json::parse::SyntaxError) -> ScenarioError {
        ScenarioError::shape(path, inner.message)
    }

    /// An issue about the shape of a scenario file at `path` (the key itself for an unknown
    /// key, the object for a missing one; empty: the whole scenario), ending with a full stop.
    pub(crate) fn shape(path: &str, mut msg: String) -> ScenarioError {
        let field = if path.is_empty() { "scenario" } else { path };
        if !msg.ends_with('.') && !msg.contains(" at line ") {
            msg.push('.');
        }
        // Messages echo keys and values from the input: keep them printable and bounded, so a
        // hostile file cannot send terminal escapes or megabytes through an error message.
        ScenarioError::single(printable(field, 120), printable(&msg, 600))
    }
}

/// `s` with control and bidi-override characters replaced by U+FFFD and at most `max` chars
/// (then an ellipsis).
pub(crate) fn printable(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max * 4));
    for (i, c) in s.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        let unsafe_char = c.is_control()
            || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
        out.push(if unsafe_char { '\u{FFFD}' } else { c });
    }
    out
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, issue) in self.issues.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{issue}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}
