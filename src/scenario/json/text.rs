//! JSON text out: an ordered tree ([`Node`]) written compact or pretty, with the number and string
//! spelling of `serde_json` (so files written before keep their bytes), without serde_json's
//! serialiser in the WebAssembly bundle.
//!
//! serde_json's spelling, as its `ser.rs` (1.0.154) writes it:
//! - strings: `"` and `\` escaped with a backslash; `\b \t \n \f \r` by name; the other control
//!   characters below U+0020 as `\u00xx` (lower-case hex); everything else as it is;
//! - whole numbers as decimal digits; other numbers as the shortest decimal that reads back to
//!   the same `f64`, with a decimal point (`2.0`) when the exponent is small, else in exponent
//!   form (`1e+16`, `1.5e-7`); non-finite numbers as `null`;
//! - pretty: two spaces per level, `": "` after a key, one member or element per line, and empty
//!   objects and arrays as `{}` and `[]`.
//!
//! A test compares every rule with serde_json itself.

use crate::text::num;
use std::borrow::Cow;
use std::fmt::Write as _;

/// A JSON value with its object members in the order they are written.
#[derive(Clone, Debug, PartialEq)]
pub enum Node<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A whole number from 0.
    Int(u64),
    /// A negative whole number.
    NegInt(i64),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(Cow<'a, str>),
    /// An array.
    List(Vec<Node<'a>>),
    /// An object, members in order.
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

impl<'a> Node<'a> {
    /// A string node borrowing `s`.
    pub fn str(s: &'a str) -> Node<'a> {
        Node::Str(Cow::Borrowed(s))
    }

    /// The member `key` of an object (`None` for another node or a missing key).
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Node::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text on one line, no spaces (`serde_json::to_string`).
    pub fn to_compact(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, None);
        out
    }

    /// The text indented by two spaces per level (`serde_json::to_string_pretty`).
    pub fn to_pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Some(0));
        out
    }

    /// Writes the node; `indent` is the current depth when pretty, `None` when compact.
    fn write(&self, out: &mut String, indent: Option<usize>) {
        match self {
            Node::Null => out.push_str("null"),
            Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Node::Int(x) => {
                let _ = write!(out, "{x}");
            }
            Node::NegInt(x) => {
                let _ = write!(out, "{x}");
            }
            Node::Float(x) => push_f64(out, *x),
            Node::Str(s) => push_str(out, s),
            Node::List(items) => {
                write_seq(out, indent, ('[', ']'), items.len(), |out, i, inner| {
                    items[i].write(out, inner)
                });
            }
            Node::Object(members) => {
                write_seq(out, indent, ('{', '}'), members.len(), |out, i, inner| {
                    let (k, v) = &members[i];
                    push_str(out, k);
                    out.push_str(if inner.is_some() { ": " } else { ":" });
                    v.write(out, inner);
                });
            }
        }
    }
}

impl<'a> From<&'a serde_json::Value> for Node<'a> {
    /// The same value (members in the value's own order), to write it without serde_json's
    /// serialiser.
    fn from(v: &'a serde_json::Value) -> Node<'a> {
        use serde_json::Value as J;
        match v {
            J::Null => Node::Null,
            J::Bool(b) => Node::Bool(*b),
            J::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(x), _) => Node::Int(x),
                (_, Some(x)) => Node::NegInt(x),
                _ => Node::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            J::String(t) => Node::str(t),
            J::Array(items) => Node::List(items.iter().map(Node::from).collect()),
            J::Object(map) => Node::Object(
                map.iter()
                    .map(|(k, x)| (Cow::Borrowed(k.as_str()), Node::from(x)))
                    .collect(),
            ),
        }
    }
}

/// Writes `n` items between `open` and `close`, each by `item(out, index, its indent)`.
fn write_seq(
    out: &mut String,
    indent: Option<usize>,
    (open, close): (char, char),
    n: usize,
    mut item: impl FnMut(&mut String, usize, Option<usize>),
) {
    out.push(open);
    let inner = indent.map(|d| d + 1);
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        if let Some(d) = inner {
            out.push('\n');
            push_indent(out, d);
        }
        item(out, i, inner);
    }
    if let (Some(d), true) = (indent, n > 0) {
        out.push('\n');
        push_indent(out, d);
    }
    out.push(close);
}

fn push_indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// Writes `s` as a JSON string.
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes `x` as serde_json does: the shortest round-trip digits ([`num::shortest_digits`]),
/// laid out in plain decimal when the decimal exponent is from −5 to 15, else as `d.ddde±x`.
pub fn push_f64(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    let (digits, point) = num::shortest_digits(x.abs());
    let mut digits: String = digits.iter().map(|d| char::from(*d)).collect();
    if digits.is_empty() {
        digits.push('0');
    }
    let point = if x == 0.0 { 1 } else { point };
    even_on_tie(x, point, &mut digits);
    if x.is_sign_negative() {
        out.push('-');
    }
    // The number is 0.digits × 10^point.
    let n = digits.len() as i32;
    if (0..=16).contains(&point) && n <= point {
        // 1234e7 → 12340000000.0 (and 0 → 0.0).
        out.push_str(&digits);
        push_zeros(out, point - n);
        out.push_str(".0");
    } else if 0 < point && point <= 16 {
        // 1234e-2 → 12.34
        let (int, frac) = digits.split_at(point as usize);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -5 < point && point <= 0 {
        // 1234e-6 → 0.001234
        out.push_str("0.");
        push_zeros(out, -point);
        out.push_str(&digits);
    } else {
        // 1e+30, 1.234e+33, 1.5e-7
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(out, "e{:+}", point - 1);
    }
}

/// serde_json breaks an exact tie between two shortest spellings towards the even last digit
/// (`…562.25` → `…562.2`), Rust's formatter upwards (`…562.3`). A tie needs 16 or more digits
/// (below that the two spellings cannot both read back to `x`); then `x`'s exact expansion
/// ([`num::exact`]) says whether it lies exactly halfway.
fn even_on_tie(x: f64, point: i32, digits: &mut String) {
    let last = digits.as_bytes().last().copied().unwrap_or(b'0');
    if digits.len() < 16 || last % 2 == 0 {
        return;
    }
    let mut below = digits[..digits.len() - 1].to_string();
    below.push(char::from(last - 1));
    let (exact, exact_point) = num::exact(x.abs());
    let halfway =
        exact_point == point && exact.strip_prefix(below.as_bytes()) == Some(b"5".as_slice());
    if halfway {
        *digits = below;
    }
}

fn push_zeros(out: &mut String, n: i32) {
    for _ in 0..n {
        out.push('0');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> String {
        let mut s = String::new();
        push_f64(&mut s, x);
        s
    }

    /// Every number spelt as serde_json spells it: hand-picked edges, then 20 000 pseudo-random
    /// bit patterns and 20 000 short decimals (the numbers scenario files hold).
    #[test]
    fn numbers_are_spelt_as_serde_json_spells_them() {
        let mut xs = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.5,
            2.5,
            1e15,
            1e16,
            1e17,
            1.5e13,
            123456789012345680.0,
            1e-5,
            1e-4,
            1.234e-5,
            0.001234,
            1e-7,
            1.5e-7,
            1e30,
            1.234e33,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            312.0,
            989.5,
            0.78,
            2039.0,
            1e21,
            9007199254740993.0,
        ];
        // Exact ties between two shortest spellings (2^50 + k/4: …624.25).
        xs.extend((0..40).map(|k| 1_125_899_906_842_624.0 + f64::from(k) / 4.0));
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = || crate::xorshift::next_u64(&mut state);
        for _ in 0..20_000 {
            xs.push(f64::from_bits(next()));
            xs.push((next() % 100_000) as f64 / 10f64.powi((next() % 12) as i32));
        }
        for x in xs.into_iter().filter(|x| x.is_finite()) {
            assert_eq!(f(x), serde_json::to_string(&x).unwrap(), "{x:e}");
        }
        assert_eq!(f(f64::NAN), "null");
    }

    #[test]
    fn strings_and_layout_are_serde_jsons() {
        let weird = "a\"b\\c\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}é€😀/";
        let v = serde_json::json!({
            "k": weird, "list": [1, 2.5, null, true, []], "empty": {}, "n": {"x": false}
        });
        // serde_json's own map is ordered by key: write the members in that order.
        let node = Node::Object(vec![
            ("empty".into(), Node::Object(Vec::new())),
            ("k".into(), Node::str(weird)),
            (
                "list".into(),
                Node::List(vec![
                    Node::Int(1),
                    Node::Float(2.5),
                    Node::Null,
                    Node::Bool(true),
                    Node::List(Vec::new()),
                ]),
            ),
            (
                "n".into(),
                Node::Object(vec![("x".into(), Node::Bool(false))]),
            ),
        ]);
        assert_eq!(node.to_compact(), serde_json::to_string(&v).unwrap());
        assert_eq!(node.to_pretty(), serde_json::to_string_pretty(&v).unwrap());
        // And any serde_json value, through `From`.
        let v =
            serde_json::json!({"z": [-3, 18446744073709551615u64, -0.5, {"a": null}], "a": "x"});
        assert_eq!(
            Node::from(&v).to_compact(),
            serde_json::to_string(&v).unwrap()
        );
        assert_eq!(
            Node::from(&v).to_pretty(),
            serde_json::to_string_pretty(&v).unwrap()
        );
    }
}
