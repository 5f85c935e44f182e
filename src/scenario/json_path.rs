//! Positions in a JSON text: the field path at a position, for naming the field of a parse error,
//! and the first key an object repeats ([`duplicate_key`]).
//!
//! `serde_json` reports where in the text an error was found (line and column: just after the
//! offending key or value, or after the closing brace of an object that lacks a field). Reading
//! the text up to that point and keeping the stack of open objects (with their current key) and
//! arrays (with their current index) gives the field's path, `parallel.tp` or
//! `parallel.layers_per_stage[2]`: the same names a scenario's fields have everywhere else.
//! [`crate::scenario::parse`] uses it for syntax errors; errors in a well-formed file come from
//! the field-table reader ([`crate::scenario::json`]), which knows the path itself.

/// One open container.
enum Frame {
    /// An object and the key of its current entry (none before the first key).
    Object(Option<String>),
    /// An array and the index of its current element.
    Array(usize),
}

/// The path of the innermost key or element open at `line`/`column` (serde_json's 1-based line,
/// and its column: the bytes read on that line) of `json`; empty at the top level and in a text
/// that is an array rather than an object.
///
/// # Example
/// ```
/// use paracalc::scenario::json_path::path_at;
/// let json = "{\"parallel\": {\"tp\": \"8\"}}";
/// assert_eq!(path_at(json, 1, 23), "parallel.tp");
/// ```
pub fn path_at(json: &str, line: usize, column: usize) -> String {
    let bytes = json.as_bytes();
    let mut start = 0;
    for _ in 1..line {
        match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    let end = (start + column).min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    scan(&bytes[..end], |token| {
        match token {
            Token::Open { object: true } => stack.push(Frame::Object(None)),
            Token::Open { object: false } => stack.push(Frame::Array(0)),
            Token::Close => {
                stack.pop();
            }
            Token::Key { text, .. } => {
                if let Some(Frame::Object(key)) = stack.last_mut() {
                    *key = Some(text);
                }
            }
            Token::NextElement => {
                if let Some(Frame::Array(n)) = stack.last_mut() {
                    *n += 1;
                }
            }
        }
        true
    });
    // A text that is not an object has no field names (the error is about the whole).
    if matches!(stack.first(), Some(Frame::Array(_))) {
        return String::new();
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object(None) => {}
            Frame::Array(n) => path.push_str(&format!("[{n}]")),
        }
    }
    path
}

/// A key written twice in one object of a JSON text: the key, and the 1-based line and column
/// just after it (the position [`path_at`] reads, so the error names `model.layers`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key, with `\"` and `\\` unescaped.
    pub key: String,
    /// Line of the second occurrence, from 1.
    pub line: usize,
    /// Bytes of that line up to the end of the second occurrence.
    pub column: usize,
}

/// The first key that occurs twice in the same object of `json`, a text that already parsed as
/// JSON. JSON parsers keep the last value of such a key without a word (serde_json's `Value`,
/// the browser's `JSON.parse`), so a scenario file that sets `tp` twice would silently lose one;
/// [`crate::scenario::parse`] reports it instead. Keys are compared as written (escapes other
/// than `\"` and `\\` are not decoded).
///
/// # Example
/// ```
/// use paracalc::scenario::json_path::duplicate_key;
/// let d = duplicate_key("{\"a\": {\"tp\": 1,\n \"tp\": 2}}").unwrap();
/// assert_eq!((d.key.as_str(), d.line, d.column), ("tp", 2, 5));
/// assert_eq!(duplicate_key("{\"a\": {\"tp\": 1}, \"b\": {\"tp\": 2}}"), None);
/// ```
pub fn duplicate_key(json: &str) -> Option<DuplicateKey> {
    // The keys of each open object (`None` for an open array).
    let mut stack: Vec<Option<Vec<String>>> = Vec::new();
    let mut found = None;
    scan(json.as_bytes(), |token| {
        match token {
            Token::Open { object } => stack.push(object.then(Vec::new)),
            Token::Close => {
                stack.pop();
            }
            Token::Key { text, after } => {
                if let Some(Some(keys)) = stack.last_mut() {
                    if keys.contains(&text) {
                        found = Some((text, after));
                        return false;
                    }
                    keys.push(text);
                }
            }
            Token::NextElement => {}
        }
        true
    });
    let (key, after) = found?;
    // `after` follows a closing quote (or is the end of the text): a char boundary.
    let before = &json[..after];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Some(DuplicateKey {
        key,
        line: before.matches('\n').count() + 1,
        column: after - line_start,
    })
}

/// What [`scan`] meets in a JSON text, in text order.
enum Token {
    /// `{` (an object) or `[`.
    Open {
        /// Whether it opens an object.
        object: bool,
    },
    /// `}` or `]`.
    Close,
    /// An object's key, with `\"` and `\\` unescaped, and the index just after it.
    Key {
        /// The key.
        text: String,
        /// The byte index after its closing quote.
        after: usize,
    },
    /// A `,` between the elements of an array.
    NextElement,
}

/// Reads the structure of `bytes` (the whole text or the part up to an error) and hands each
/// token to `on`, until `on` returns false. Strings that are values are skipped, braces inside
/// strings do not count, and a text cut short is read as far as it goes: the one scan behind
/// [`path_at`] and [`duplicate_key`].
fn scan(bytes: &[u8], mut on: impl FnMut(Token) -> bool) {
    // Whether each open container is an object.
    let mut objects: Vec<bool> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < bytes.len() {
        let token = match bytes[i] {
            b'"' => {
                let (text, after) = string_at(bytes, i + 1, bytes.len());
                i = after;
                if !std::mem::take(&mut expect_key) {
                    continue;
                }
                Token::Key { text, after }
            }
            b'{' | b'[' => {
                let object = bytes[i] == b'{';
                objects.push(object);
                expect_key |= object;
                i += 1;
                Token::Open { object }
            }
            b'}' | b']' => {
                objects.pop();
                expect_key = false;
                i += 1;
                Token::Close
            }
            b',' => {
                i += 1;
                match objects.last() {
                    Some(true) => {
                        expect_key = true;
                        continue;
                    }
                    Some(false) => Token::NextElement,
                    None => continue,
                }
            }
            _ => {
                i += 1;
                continue;
            }
        };
        if !on(token) {
            return;
        }
    }
}

/// The string whose body starts at `from` (after its opening quote), read no further than `end`,
/// with `\"` and `\\` unescaped (other escapes kept as written), and the index after it.
fn string_at(bytes: &[u8], from: usize, end: usize) -> (String, usize) {
    let mut out = Vec::new();
    let mut i = from;
    while i < end {
        match bytes[i] {
            b'"' => return (String::from_utf8_lossy(&out).into_owned(), i + 1),
            b'\\' if i + 1 < end && matches!(bytes[i + 1], b'"' | b'\\') => {
                out.push(bytes[i + 1]);
                i += 2;
                continue;
            }
            b => out.push(b),
        }
        i += 1;
    }
    (String::from_utf8_lossy(&out).into_owned(), end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path serde_json's own error position gives, for a scenario-like text.
    fn path_of_error<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> String {
        let e = serde_json::from_str::<T>(json).unwrap_err();
        path_at(json, e.line(), e.column())
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        tp: u64,
        #[serde(default)]
        list: Vec<u64>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        name: String,
        parallel: Inner,
    }

    #[test]
    fn names_the_field_of_each_kind_of_error() {
        // A wrong type, pretty-printed over several lines.
        let json = "{\n  \"name\": \"x\",\n  \"parallel\": {\n    \"tp\": \"8\"\n  }\n}";
        assert_eq!(path_of_error::<Outer>(json), "parallel.tp");
        // An unknown key: the key itself.
        assert_eq!(
            path_of_error::<Outer>(r#"{"name": "x", "parallel": {"tp": 8, "tpp": 2}}"#),
            "parallel.tpp"
        );
        // A missing field: the object that lacks it.
        assert_eq!(
            path_of_error::<Outer>(r#"{"name": "x", "parallel": {}}"#),
            "parallel"
        );
        // A bad list element.
        assert_eq!(
            path_of_error::<Outer>(r#"{"name": "x", "parallel": {"tp": 1, "list": [1, 2, -3]}}"#),
            "parallel.list[2]"
        );
        // Keys with escaped quotes, and a brace inside a string, do not confuse the scan.
        assert_eq!(
            path_of_error::<Outer>(r#"{"name": "a}\"{", "parallel": {"tp": 1, "a\"b": 1}}"#),
            "parallel.a\"b"
        );
        // Not an object at all.
        assert_eq!(path_of_error::<Outer>("[1]"), "");
    }

    #[test]
    fn finds_a_key_written_twice_in_one_object_only() {
        let json = "{\n  \"parallel\": {\"tp\": 2, \"pp\": 4,\n    \"tp\": 8}\n}";
        let d = duplicate_key(json).unwrap();
        assert_eq!((d.key.as_str(), d.line, d.column), ("tp", 3, 8));
        // The position names the field, as for any other shape error.
        assert_eq!(path_at(json, d.line, d.column), "parallel.tp");
        // The same key in sibling objects, in arrays of objects, or as a value is fine.
        for ok in [
            r#"{"a": {"x": 1}, "b": {"x": 1}}"#,
            r#"{"l": [{"x": 1}, {"x": 2}]}"#,
            r#"{"x": "x", "y": ["x", "x"]}"#,
            r#"{"a\"b": 1, "a": 2}"#,
        ] {
            assert_eq!(duplicate_key(ok), None, "{ok}");
        }
        // A key after a nested object is still compared with the keys before it.
        let d = duplicate_key(r#"{"x": {"y": 1}, "x": 2}"#).unwrap();
        assert_eq!((d.key.as_str(), d.line), ("x", 1));
    }

    #[test]
    fn positions_past_the_text_are_safe() {
        assert_eq!(path_at("{\"a\": [1,", 5, 99), "a[1]");
        assert_eq!(path_at("[{\"a\": 1", 1, 9), "");
        assert_eq!(path_at("", 1, 3), "");
        assert_eq!(path_at("\"unterminated", 1, 40), "");
    }
}
