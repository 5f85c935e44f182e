//! Share links: a short, readable, versioned URL query for a [`Scenario`] and the view.
//!
//! A link names a model preset and then lists only what differs from that preset's scenario:
//!
//! ```text
//! ?v=1&model=llama3-70b&tp=8&pp=4&dp=4&gpus=256
//! ```
//!
//! [`encode`] writes the keys in a fixed order (`v`, `model`, the scenario keys in the order of
//! the table below, `a.model` and the pinned A's keys, `chart`, `embed`), so equal scenarios give
//! equal links. [`decode`] accepts the query with or without `?`, or a whole URL (everything before
//! `?` and after `#` is ignored), in any key order, and never fails on content: a key it cannot use
//! (unknown, a wrong type, out of range, given twice) becomes a [`Notice`] naming the key, and the
//! value falls back to the preset's. Only a link longer than [`MAX_LINK_BYTES`] is rejected
//! ([`ShareError::TooLong`]).
//!
//! # Keys (version 1)
//!
//! | key | scenario field | value |
//! |---|---|---|
//! | `v` | link version | `1` (a link without `v` is read as version 1) |
//! | `model` | the base preset | a [`crate::presets`] id, e.g. `gpt3-175b`; default `llama3-8b` |
//! | `name`, `layers`, … `reserve` | the scenario fields | one key per field of the field table, in its order: see [`crate::scenario::fields::doc`] for every key, its field, its values and its default |
//! | `a.model`, `a.<key>` | the pinned scenario A of a comparison | as above; A starts from `a.model` (default: the same preset as the link) |
//! | `chart` | the chart shown | `memory` \| `time` \| `scaling` \| `bucket` \| `schedule` \| `search` |
//! | `embed` | embed mode with that chart | same ids as `chart` |
//!
//! Any `gpu.*` key turns the GPU into a custom one that starts from the numbers of the GPU named
//! by `gpu` (or the preset's GPU), so `gpu=h100-sxm5-80gb&gpu.mem=96` is an H100 with 96 GiB. The
//! bookkeeping fields of a custom GPU (`source`, `notes`, …) are not carried. Keys are
//! case-insensitive; `+` and `%20` are spaces; `&amp;` (a link copied from HTML) is accepted.
//! Whole numbers are plain decimal digits; numbers also accept `1e12` and `0.5`, never `NaN` or
//! infinities. Values outside the field table's limits (the validator's) fall back with a notice;
//! rules across fields (tp dividing heads, num_gpus = tp·pp·dp·cp) are left to
//! [`Scenario::validate`], so a link can carry a scenario that is still being edited.
//!
//! # Compatibility
//! Version 1 is frozen: every key above keeps its meaning, and so does every preset's scenario
//! (see [`crate::presets`]). `tests/share.rs` holds golden links that must decode to the same
//! scenarios forever. A later format gets `v=2` and this decoder keeps a branch for `v=1`.
//!
//! # Example
//! ```
//! use paracalc::{presets, share};
//! let mut s = presets::model_preset("llama3-70b").unwrap().scenario();
//! s.parallel.pp = 8;
//! s.parallel.dp = 1;
//! let q = share::encode(&s, "llama3-70b");
//! assert_eq!(q, "v=1&model=llama3-70b&pp=8&dp=1");
//! let back = share::decode(&format!("https://example.org/paracalc/?{q}"))?;
//! assert_eq!(back.scenario, s);
//! assert!(back.notices.is_empty());
//! Ok::<(), share::ShareError>(())
//! ```

use crate::presets::{self, ModelPreset};
use crate::scenario::fields::{
    is_unsafe_char, raw_spec, shown, FieldDef, FieldId, FIELDS, MAX_LABEL_BYTES,
};
use crate::scenario::{CustomGpu, GpuChoice, Scenario};
use std::fmt;

/// The link format version this build writes.
pub const VERSION: u32 = 1;

/// Longest link [`decode`] reads, in bytes (the whole text given, URL included).
pub const MAX_LINK_BYTES: usize = 4096;

/// Most notices [`decode`] returns; the last one says how many more there were.
pub const MAX_NOTICES: usize = 20;

/// Longest model or GPU name carried by a link, in bytes (the validator's limit).
pub const MAX_NAME_BYTES: usize = MAX_LABEL_BYTES;

/// A chart of the app, as named in `chart=` and `embed=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chart {
    /// Memory per pipeline stage.
    Memory,
    /// Step-time breakdown.
    Time,
    /// Throughput and scaling efficiency vs GPU count.
    Scaling,
    /// Gradient bucket-size curve.
    Bucket,
    /// Pipeline schedule timeline.
    Schedule,
    /// Layout search results.
    Search,
}

impl Chart {
    /// All charts.
    pub const ALL: &'static [Chart] = &[
        Chart::Memory,
        Chart::Time,
        Chart::Scaling,
        Chart::Bucket,
        Chart::Schedule,
        Chart::Search,
    ];

    /// The id used in links.
    pub fn as_str(self) -> &'static str {
        match self {
            Chart::Memory => "memory",
            Chart::Time => "time",
            Chart::Scaling => "scaling",
            Chart::Bucket => "bucket",
            Chart::Schedule => "schedule",
            Chart::Search => "search",
        }
    }

    /// Parses an id (ASCII case-insensitive).
    pub fn parse(id: &str) -> Option<Chart> {
        Chart::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(id))
    }
}

/// The pinned scenario A of an A/B comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Pinned {
    /// The scenario.
    pub scenario: Scenario,
    /// The preset it is encoded against (`a.model`).
    pub preset: &'static str,
}

/// What the link says about the page besides the scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct View {
    /// `embed=<chart>`: embed mode showing that chart.
    pub embed: Option<Chart>,
    /// `chart=<chart>`: the chart selected in the full app.
    pub chart: Option<Chart>,
    /// The pinned A of a comparison (`a.` keys).
    pub pinned: Option<Pinned>,
}

/// Something in a link that was ignored, and why. `key` is the key as written (sanitised:
/// at most 40 characters, control characters replaced), so it can be shown as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The key, e.g. `tp` or `a.gbs`.
    pub key: String,
    /// A sentence: what was wrong and what was used instead.
    pub message: String,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// A decoded link.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// The scenario (B, the current one).
    pub scenario: Scenario,
    /// The preset it started from.
    pub preset: &'static str,
    /// View options and the pinned A.
    pub view: View,
    /// Everything that was ignored; empty for a clean link.
    pub notices: Vec<Notice>,
    /// The version the link was read as.
    pub version: u32,
}

/// A link that cannot be read at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareError {
    /// Longer than [`MAX_LINK_BYTES`].
    TooLong {
        /// Its length in bytes.
        bytes: usize,
    },
}

impl fmt::Display for ShareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShareError::TooLong { bytes } => write!(
                f,
                "the link is {bytes} bytes long; paracalc reads links of at most {MAX_LINK_BYTES} bytes."
            ),
        }
    }
}

impl std::error::Error for ShareError {}

// ---------------------------------------------------------------------------------------------
// The key table
// ---------------------------------------------------------------------------------------------

/// The keys and the scenario fields they stand for, in link order (the field table's).
pub fn key_table() -> impl Iterator<Item = (&'static str, &'static str)> {
    FIELDS.iter().map(|f| (f.key, f.path))
}

/// The link text of `f` in `s` (`None`: not applicable, never written).
fn link_text(f: &FieldDef, s: &Scenario) -> Option<String> {
    (f.get)(s).map(|v| f.format(&v))
}

/// A key as written, safe to show: at most 40 characters, control characters replaced.
fn shown_key(k: &str) -> String {
    let mut out: String = k
        .chars()
        .take(40)
        .map(|c| if is_unsafe_char(c) { '\u{FFFD}' } else { c })
        .collect();
    if k.chars().nth(40).is_some() {
        out.push('…');
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

/// Percent-encodes `v` for a query value: unreserved characters and `,` stay, a space becomes
/// `+`, every other byte is `%XX`.
fn escape(v: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in v.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~,".contains(&b) {
            out.push(b as char);
        } else if b == b' ' {
            out.push('+');
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
}

/// Writes `prefix key=value` for every field of `s` that differs from `base`.
fn push_diffs(s: &Scenario, base: &Scenario, prefix: &str, out: &mut String) {
    // gpu.* keys compare against the base GPU's numbers as a custom GPU.
    let custom_base;
    let sub_base = if matches!(s.cluster.gpu, GpuChoice::Custom(_)) {
        let mut b = base.clone();
        b.cluster.gpu = GpuChoice::Custom(CustomGpu::from_spec(
            String::new(),
            String::new(),
            raw_spec(&base.cluster.gpu),
        ));
        custom_base = b;
        &custom_base
    } else {
        base
    };
    for f in FIELDS {
        let Some(value) = link_text(f, s) else {
            continue;
        };
        let b = if f.id == FieldId::Gpu { base } else { sub_base };
        if link_text(f, b).as_deref() != Some(value.as_str()) {
            out.push('&');
            out.push_str(prefix);
            out.push_str(f.key);
            out.push('=');
            escape(&value, out);
        }
    }
}

/// How many keys a link for `s` needs on top of `base`.
fn diff_count(s: &Scenario, base: &Scenario) -> usize {
    let mut out = String::new();
    push_diffs(s, base, "", &mut out);
    out.bytes().filter(|&b| b == b'&').count()
}

/// The listed preset whose scenario is closest to `s` (fewest link keys; the first in table
/// order on ties). Retired presets ([`crate::presets`], "Stability") decode old links but are
/// never chosen as the base of a new one.
pub fn nearest_preset(s: &Scenario) -> &'static ModelPreset {
    let mut best = presets::default_model_preset();
    let mut best_n = usize::MAX;
    for p in presets::MODEL_PRESETS.iter().filter(|p| p.listed()) {
        let n = diff_count(s, &p.scenario());
        if n < best_n {
            best = p;
            best_n = n;
        }
    }
    best
}

fn resolve(preset: &str, s: &Scenario) -> &'static ModelPreset {
    presets::model_preset(preset).unwrap_or_else(|| nearest_preset(s))
}

/// The link query for `s` (without `?`), relative to the model preset `preset` (an id; an unknown
/// id picks the [`nearest_preset`]).
pub fn encode(s: &Scenario, preset: &str) -> String {
    encode_with_view(s, preset, &View::default())
}

/// Like [`encode`], with the view keys and the pinned A.
pub fn encode_with_view(s: &Scenario, preset: &str, view: &View) -> String {
    let p = resolve(preset, s);
    let mut out = format!("v={VERSION}&model={}", p.id);
    push_diffs(s, &p.scenario(), "", &mut out);
    if let Some(a) = &view.pinned {
        let pa = resolve(a.preset, &a.scenario);
        out.push_str("&a.model=");
        out.push_str(pa.id);
        push_diffs(&a.scenario, &pa.scenario(), "a.", &mut out);
    }
    if let Some(c) = view.chart {
        out.push_str("&chart=");
        out.push_str(c.as_str());
    }
    if let Some(c) = view.embed {
        out.push_str("&embed=");
        out.push_str(c.as_str());
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

/// Percent-decodes one query component: `+` is a space, `%XX` a byte; a `%` not followed by two
/// hex digits stays as it is. The bytes may not be UTF-8; the caller checks.
fn unescape(s: &str) -> Vec<u8> {
    fn hex(b: u8) -> Option<u8> {
        match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            b'A'..=b'F' => Some(b - b'A' + 10),
            _ => None,
        }
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' => match (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            ) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// The query part of `text`: after the first `?` (if any, and if what comes before it looks like
/// a URL rather than keys: `name=why?` is a query), before the first `#`.
fn query_part(text: &str) -> &str {
    let t = text.trim();
    let q = match t.split_once('?') {
        Some((before, q)) if !before.contains(['=', '&']) => q,
        Some(_) => t,
        // A URL without a query carries no keys.
        None if t.contains("://") => "",
        None => t,
    };
    q.split_once('#').map_or(q, |(q, _)| q)
}

/// Decodes a link (the query with or without `?`, or a whole URL). Never panics; everything it
/// cannot use becomes a [`Notice`] and falls back to the preset's value.
///
/// Steps: split the query into key/value `pairs`, check the `version`, start from the
/// preset(s) and `apply` the scenario keys (B, then the pinned A's `a.` keys), read the
/// `chart_key`s, report `unknown_keys`, and `cap` the notices.
///
/// # Errors
/// [`ShareError::TooLong`] for text longer than [`MAX_LINK_BYTES`].
pub fn decode(text: &str) -> Result<Decoded, ShareError> {
    if text.len() > MAX_LINK_BYTES {
        return Err(ShareError::TooLong { bytes: text.len() });
    }
    let mut notices = Vec::new();
    let pairs = pairs(text, &mut notices);
    version(&pairs, &mut notices);

    let base = preset_key(
        &pairs,
        "model",
        presets::default_model_preset(),
        &mut notices,
    );
    let scenario = apply(base, "", &pairs, &mut notices);
    let pinned = if pairs.iter().any(|(k, _)| k.starts_with("a.")) {
        let pa = preset_key(&pairs, "a.model", base, &mut notices);
        Some(Pinned {
            scenario: apply(pa, "a.", &pairs, &mut notices),
            preset: pa.id,
        })
    } else {
        None
    };
    let view = View {
        chart: chart_key(&pairs, "chart", &mut notices),
        embed: chart_key(&pairs, "embed", &mut notices),
        pinned,
    };
    unknown_keys(&pairs, &mut notices);
    cap(&mut notices);

    Ok(Decoded {
        scenario,
        preset: base.id,
        view,
        notices,
        version: VERSION,
    })
}

/// The (lower-cased key, value) pairs of the query, the last of a repeated key winning (with a
/// notice); a value that is not UTF-8 is dropped with a notice.
fn pairs(text: &str, notices: &mut Vec<Notice>) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for piece in query_part(text).split('&') {
        if piece.is_empty() {
            continue;
        }
        let (k, v) = piece.split_once('=').unwrap_or((piece, ""));
        let key = String::from_utf8_lossy(&unescape(k)).to_ascii_lowercase();
        // `&amp;` from a link copied out of HTML source.
        let key = key.strip_prefix("amp;").unwrap_or(&key).trim().to_string();
        if key.is_empty() {
            continue;
        }
        let Ok(value) = String::from_utf8(unescape(v)) else {
            notices.push(Notice {
                key: shown_key(&key),
                message: "the value is not valid UTF-8 text; ignored.".into(),
            });
            continue;
        };
        if let Some(slot) = pairs.iter_mut().find(|(k2, _)| *k2 == key) {
            notices.push(Notice {
                key: shown_key(&key),
                message: "given more than once; the last value is used.".into(),
            });
            slot.1 = value;
        } else {
            pairs.push((key, value));
        }
    }
    pairs
}

/// The value of `key`, if given.
fn lookup<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Checks `v`: version 1 is read as is; anything else is read as version 1 with a notice.
fn version(pairs: &[(String, String)], notices: &mut Vec<Notice>) {
    let Some(v) = lookup(pairs, "v") else { return };
    let message = match v.parse::<u32>() {
        Ok(1) => return,
        Ok(n) if n > VERSION => format!(
            "link version {n} is newer than this paracalc understands ({VERSION}); read as version {VERSION}."
        ),
        _ => format!(
            "expected version {VERSION}, got {}; read as version {VERSION}.",
            shown(v)
        ),
    };
    notices.push(Notice {
        key: "v".into(),
        message,
    });
}

/// The model preset named by `key`, else `fallback` (with a notice for an unknown id).
fn preset_key(
    pairs: &[(String, String)],
    key: &str,
    fallback: &'static ModelPreset,
    notices: &mut Vec<Notice>,
) -> &'static ModelPreset {
    let Some(id) = lookup(pairs, key) else {
        return fallback;
    };
    presets::model_preset(id).unwrap_or_else(|| {
        notices.push(Notice {
            key: key.into(),
            message: format!(
                "unknown model preset {}; started from {} instead.",
                shown(id),
                fallback.id
            ),
        });
        fallback
    })
}

/// The chart named by `key` (`chart` or `embed`), if given and known.
fn chart_key(pairs: &[(String, String)], key: &str, notices: &mut Vec<Notice>) -> Option<Chart> {
    let v = lookup(pairs, key)?;
    let c = Chart::parse(v);
    if c.is_none() {
        let known: Vec<&str> = Chart::ALL.iter().map(|c| c.as_str()).collect();
        notices.push(Notice {
            key: key.into(),
            message: format!(
                "unknown chart {}; known: {}. Ignored.",
                shown(v),
                known.join(", ")
            ),
        });
    }
    c
}

/// A notice for every key that is neither a view key nor a field's (with or without `a.`).
fn unknown_keys(pairs: &[(String, String)], notices: &mut Vec<Notice>) {
    for (k, _) in pairs {
        let bare = k.strip_prefix("a.").unwrap_or(k);
        let known = matches!(k.as_str(), "v" | "model" | "a.model" | "chart" | "embed")
            || FIELDS.iter().any(|f| f.key == bare);
        if !known {
            notices.push(Notice {
                key: shown_key(k),
                message: "unknown key; ignored.".into(),
            });
        }
    }
}

/// At most [`MAX_NOTICES`] notices; the last one says how many more there were.
fn cap(notices: &mut Vec<Notice>) {
    if notices.len() > MAX_NOTICES {
        let more = notices.len() - (MAX_NOTICES - 1);
        notices.truncate(MAX_NOTICES - 1);
        notices.push(Notice {
            key: "link".into(),
            message: format!("{more} more problems are not listed."),
        });
    }
}

/// The preset's scenario with every `prefix`-ed key of `pairs` applied in table order.
fn apply(
    preset: &ModelPreset,
    prefix: &str,
    pairs: &[(String, String)],
    notices: &mut Vec<Notice>,
) -> Scenario {
    let mut s = preset.scenario();
    for f in FIELDS {
        let Some((key, value)) = pairs
            .iter()
            .find(|(k, _)| k.strip_prefix(prefix) == Some(f.key))
        else {
            continue;
        };
        let before = link_text(f, &s);
        if let Err(why) = f.parse(value).and_then(|v| (f.set)(&mut s, v)) {
            let kept = match before.as_deref() {
                None => "left it unset".to_string(),
                Some("") => "used the default".to_string(),
                Some(b) => format!("kept {}", shown(b)),
            };
            notices.push(Notice {
                key: shown_key(key),
                message: format!("{why}; {kept}."),
            });
        }
    }
    s
}
