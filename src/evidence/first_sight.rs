//! First sight (issue 31): what the engine predicted for a run the first time it saw the run's
//! source, before any model change was made with that source in view. The honest estimate of
//! the error on a user's run, which the model has never seen either.
//!
//! The record is `tests/data/first_sight.json`, written by `tools/first_sight.py` and kept
//! append-only by `tests/first_sight.rs`. Each record names its run by `id` and by the digest
//! of the run as it was then ([`case_digest`]), so a corrected run is a new run: it gets a new
//! record, or an entry in `changes` (from the recorded digest to the new one, with the reason)
//! when no engine of the source's first sight can read the corrected run.
//!
//! Pure: no I/O.
//!
//! The first-sight error of every group is data, `first_sight/groups.tsv`, generated from
//! `tests/data/first_sight.json` (`PARACALC_WRITE_FIRST_SIGHT=1 cargo test --test first_sight`)
//! and compiled in ([`group`]).

use crate::text::num::ExpFixed;
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write as _;

/// The first-sight step-time error of a group (source table) of the validation data:
/// `(timed runs, MAPE %, signed mean %)` over the runs of the group, each compared as
/// `validate` compares it ([`Book::sight`]); `None` for a group without first sight.
pub fn group(name: &str) -> Option<(u32, f64, f64)> {
    GROUPS.lines().find_map(|line| {
        let mut f = line.split('\t');
        if f.next()? != name {
            return None;
        }
        Some((
            f.next()?.parse().ok()?,
            crate::text::parse_f64(f.next()?)?,
            crate::text::parse_f64(f.next()?)?,
        ))
    })
}

/// The first-sight table: one line per group, `group, timed runs, MAPE %, signed mean %`
/// tab-separated, after `#` comment lines.
const GROUPS: &str = include_str!("first_sight/groups.tsv");

/// One source (group) of published runs: the engine's step-time error on its runs now and the
/// first time it saw the source.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceError {
    /// The group.
    pub group: String,
    /// Its runs the engine evaluates now.
    pub runs: usize,
    /// Now (in sample): MAPE % and signed mean %.
    pub now: (f64, f64),
    /// At first sight ([`group`]): timed runs, MAPE % and signed mean %.
    pub first: Option<(u32, f64, f64)>,
}

/// The sources of `runs` (indices into `cases`, e.g. a band's runs), in order of first
/// appearance, each with its error now over every run of the source in `cases` and its
/// first-sight error. One estimate per run of those sources.
pub fn by_source(cases: &[super::Case], runs: &[usize]) -> Vec<SourceError> {
    let mut out: Vec<SourceError> = Vec::new();
    for c in runs.iter().filter_map(|&i| cases.get(i)) {
        if c.group.is_empty() || out.iter().any(|s| s.group == c.group) {
            continue;
        }
        let errors: Vec<f64> = cases
            .iter()
            .filter(|x| x.group == c.group && x.step_s > 0.0)
            .filter_map(|x| {
                crate::engine::estimate(&x.scenario)
                    .ok()
                    .map(|e| 100.0 * (e.time.step_s - x.step_s) / x.step_s)
            })
            .collect();
        if errors.is_empty() {
            continue;
        }
        let n = errors.len() as f64;
        out.push(SourceError {
            group: c.group.clone(),
            runs: errors.len(),
            now: (
                errors.iter().map(|e| e.abs()).sum::<f64>() / n,
                errors.iter().sum::<f64>() / n,
            ),
            first: group(&c.group),
        });
    }
    out
}

/// 64-bit FNV-1a (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325, prime 0x100000001b3).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Canonical JSON of `v`: object keys sorted, no spaces, strings as serde_json writes them,
/// integers as integers, floats with 12 significant digits (`{:.11e}`: serde_json's default
/// float parsing can land one unit in the last place away from Python's, which the shortest
/// round-trip form would show). `tools/first_sight.py` writes the same text.
pub fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&o[k], out);
            }
            out.push('}');
        }
        Value::Number(n) if n.is_f64() => {
            let _ = write!(out, "{}", ExpFixed(n.as_f64().unwrap_or(f64::NAN), 11));
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The digest of a case (`{"id", "group", "scenario", "measured"}`): FNV-1a 64 of the
/// canonical JSON of `{"measured", "scenario"}`, as 16 lower-case hex digits. What the run is,
/// not what it is called: renaming or regrouping a case keeps its digest.
pub fn case_digest(case: &Value) -> String {
    let mut body = serde_json::Map::new();
    for key in ["measured", "scenario"] {
        body.insert(
            key.to_string(),
            case.get(key).cloned().unwrap_or(Value::Null),
        );
    }
    let mut text = String::new();
    canonical(&Value::Object(body), &mut text);
    format!("{:016x}", fnv1a64(text.as_bytes()))
}

/// The head of the hash chain over `entries` (the records, then the changes): each link is
/// FNV-1a 64 of the previous head (hex; empty at the start), a newline and the entry's
/// canonical JSON. Editing, removing or reordering any entry changes every later head.
pub fn chain_head<'a>(entries: impl IntoIterator<Item = &'a Value>) -> String {
    let mut head = String::new();
    for e in entries {
        let mut text = std::mem::take(&mut head);
        text.push('\n');
        canonical(e, &mut text);
        head = format!("{:016x}", fnv1a64(text.as_bytes()));
    }
    head
}

/// One first-sight record: the run, the engine that predicted it and what it predicted (read
/// from the file by serde: the keys are the field names, the `Option` ones may be absent or
/// null).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Record {
    /// Case id.
    pub id: String,
    /// Case group when recorded.
    pub group: String,
    /// [`case_digest`] of the case as it was evaluated.
    pub case_digest: String,
    /// The engine's commit.
    pub commit: String,
    /// How the record was taken (live or reconstructed, which data version, which engine, why).
    pub how: String,
    /// Step-time error, % (`None`: no measured or no predicted step time).
    pub step_error_pct: Option<f64>,
    /// Memory error, % (`None`: no measured or no predicted memory).
    pub memory_error_pct: Option<f64>,
    /// Whether the predicted peak fit the device (`None`: not recorded).
    pub predicted_fits: Option<bool>,
}

/// A run that changed after its first sight without a record of the new version.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Change {
    /// Case id.
    pub id: String,
    /// The digest it had (recorded, or the `to` of an earlier change).
    pub from: String,
    /// The digest it has now.
    pub to: String,
    /// Why it changed and why it has no new record.
    pub why: String,
}

/// The first-sight file: records and changes, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Book {
    /// First-sight records.
    pub records: Vec<Record>,
    /// Changed runs without a record of their new version.
    pub changes: Vec<Change>,
}

/// How a case's current version relates to its first sight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sight<'a> {
    /// A record of exactly this version of the run.
    Exact(&'a Record),
    /// The run changed since its newest record; the chain of changes leads to this version.
    Earlier(&'a Record),
    /// No first sight of this run.
    None,
}

/// The entries of the list `v[key]` (none when absent), each read by serde; an error names
/// the entry (`records[3]: missing field `id``).
fn entries<'de, T: Deserialize<'de>>(v: &'de Value, key: &str) -> Result<Vec<T>, String> {
    let list = v
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    list.iter()
        .enumerate()
        .map(|(i, e)| T::deserialize(e).map_err(|err| format!("{key}[{i}]: {err}")))
        .collect()
}

impl Book {
    /// Parses the file's JSON (`{"records": [...], "changes": [...]}`); the error names the entry.
    pub fn parse(v: &Value) -> Result<Book, String> {
        Ok(Book {
            records: entries(v, "records")?,
            changes: entries(v, "changes")?,
        })
    }

    /// The first sight of the run `id` whose current digest is `digest`: the newest record of
    /// exactly this version; else, when a chain of changes leads from a recorded version to
    /// this one, the newest record of the run; else none.
    pub fn sight(&self, id: &str, digest: &str) -> Sight<'_> {
        if let Some(r) = self.newest(id, digest) {
            return Sight::Exact(r);
        }
        // Walk the changes back from `digest` until a recorded version (bounded: each change
        // is used at most once).
        let mut at = digest;
        for _ in 0..self.changes.len() {
            let Some(ch) = self.changes.iter().rev().find(|c| c.id == id && c.to == at) else {
                break;
            };
            at = &ch.from;
            if let Some(r) = self.newest(id, at) {
                return Sight::Earlier(r);
            }
        }
        Sight::None
    }

    /// The newest record of run `id` at version `digest`.
    fn newest(&self, id: &str, digest: &str) -> Option<&Record> {
        self.records
            .iter()
            .rev()
            .find(|r| r.id == id && r.case_digest == digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fnv_reference_vectors() {
        // The FNV reference values (draft-eastlake-fnv, test vectors for FNV-1a 64).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn canonical_sorts_keys_and_rounds_floats_to_12_digits() {
        let v: Value =
            serde_json::from_str(r#"{"b": [1, 2.50, 1e-5, 1.5e16, -0.0, 0.40259999999999996], "a": {"y": null, "x": "é\n"}}"#)
                .unwrap();
        let mut s = String::new();
        canonical(&v, &mut s);
        assert_eq!(
            s,
            "{\"a\":{\"x\":\"é\\n\",\"y\":null},\"b\":[1,2.50000000000e0,1.00000000000e-5,\
             1.50000000000e16,-0.00000000000e0,4.02600000000e-1]}"
        );
    }

    #[test]
    fn digest_reads_only_the_run() {
        let a = json!({"id": "x", "group": "g", "scenario": {"k": 1}, "measured": {"t": 2.0}});
        let b = json!({"id": "y", "group": "h", "measured": {"t": 2.0}, "scenario": {"k": 1}});
        let c = json!({"id": "x", "group": "g", "scenario": {"k": 1}, "measured": {"t": 2.1}});
        assert_eq!(case_digest(&a), case_digest(&b));
        assert_ne!(case_digest(&a), case_digest(&c));
        assert_eq!(case_digest(&a).len(), 16);
    }

    #[test]
    fn chain_changes_with_any_entry() {
        let (a, b, c) = (json!({"v": 1}), json!({"v": 2}), json!({"v": 3}));
        let head = chain_head([&a, &b]);
        assert_eq!(head.len(), 16);
        assert_eq!(chain_head([&a, &b]), head);
        assert_ne!(chain_head([&b, &a]), head);
        assert_ne!(chain_head([&a, &c]), head);
        assert_ne!(chain_head([&a]), head);
        assert_eq!(chain_head(std::iter::empty()), "");
    }

    fn rec(id: &str, digest: &str, err: f64) -> Record {
        Record {
            id: id.into(),
            group: "g".into(),
            case_digest: digest.into(),
            commit: "c".into(),
            how: "h".into(),
            step_error_pct: Some(err),
            memory_error_pct: None,
            predicted_fits: None,
        }
    }

    #[test]
    fn parse_reads_records_and_names_a_bad_entry() {
        let rec = json!({"id": "a", "group": "g", "case_digest": "d", "commit": "c", "how": "h",
                         "step_error_pct": -3.5, "memory_error_pct": null});
        let book = Book::parse(&json!({"records": [rec.clone()]})).unwrap();
        assert_eq!(book.records[0].step_error_pct, Some(-3.5));
        assert_eq!(book.records[0].memory_error_pct, None);
        assert_eq!(book.records[0].predicted_fits, None);
        assert!(book.changes.is_empty());
        let bad = json!({"records": [rec, {"id": "b"}]});
        let err = Book::parse(&bad).unwrap_err();
        assert!(err.starts_with("records[1]: missing field"), "{err}");
        let bad = json!({"changes": [{"id": "a", "from": "x", "to": 3, "why": "w"}]});
        assert!(Book::parse(&bad).unwrap_err().starts_with("changes[0]: "));
    }

    #[test]
    fn sight_follows_changes_to_a_recorded_version() {
        let book = Book {
            records: vec![rec("r", "d1", 5.0), rec("s", "e1", 1.0)],
            changes: vec![
                Change {
                    id: "r".into(),
                    from: "d1".into(),
                    to: "d2".into(),
                    why: "corrected".into(),
                },
                Change {
                    id: "r".into(),
                    from: "d2".into(),
                    to: "d3".into(),
                    why: "corrected again".into(),
                },
            ],
        };
        assert_eq!(book.sight("r", "d1"), Sight::Exact(&book.records[0]));
        assert_eq!(book.sight("r", "d3"), Sight::Earlier(&book.records[0]));
        assert_eq!(book.sight("r", "d4"), Sight::None);
        assert_eq!(book.sight("s", "d3"), Sight::None);
        assert_eq!(book.sight("s", "e1"), Sight::Exact(&book.records[1]));
    }
}
