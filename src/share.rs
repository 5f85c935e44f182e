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
//! | `name` | `model.name` | text, at most 200 bytes, no control characters |
//! | `layers` | `model.layers` | whole number |
//! | `hidden` | `model.hidden` | whole number |
//! | `heads` | `model.heads` | whole number |
//! | `kv` | `model.kv_heads` | whole number; empty = `heads` |
//! | `ffn` | `model.ffn_hidden` | whole number; empty = 4·`hidden` |
//! | `act` | `model.ffn_act` | `gelu` \| `swiglu` |
//! | `vocab` | `model.vocab` | whole number |
//! | `seq` | `model.seq_len` | whole number |
//! | `tied` | `model.tied_embeddings` | `1` \| `0` |
//! | `experts` | `model.moe.experts` | whole number; `0` = dense (no MoE) |
//! | `topk` | `model.moe.top_k` | whole number (default when MoE is switched on: min(2, experts)) |
//! | `effn` | `model.moe.expert_ffn_hidden` | whole number (default: `ffn`) |
//! | `gbs` | `training.global_batch` | whole number |
//! | `mbs` | `training.micro_batch` | whole number |
//! | `prec` | `training.precision` | `fp32` \| `fp16` \| `bf16` \| `fp8` |
//! | `opt` | `training.optimizer` | `adam` |
//! | `recompute` | `training.recompute` | `none` \| `selective` \| `full` |
//! | `flash` | `training.flash_attention` | `1` \| `0` |
//! | `tokens` | `training.train_tokens` | number; empty = not set |
//! | `gradfp32` | `training.grad_reduce_in_fp32` | `1` \| `0`; empty = default (`1`) |
//! | `optoff` | `training.optimizer_offload` | fraction 0..1; empty = none |
//! | `actoff` | `training.activation_offload` | fraction 0..1; empty = none |
//! | `tp` `pp` `dp` `cp` `ep` `vp` | `parallel.*` | whole numbers |
//! | `sp` | `parallel.sp` | `1` \| `0` |
//! | `zero` | `parallel.zero_stage` | `0`..`3` |
//! | `sched` | `parallel.schedule` | `1f1b` \| `interleaved` \| `gpipe` \| `zb-h1` \| `zb-v` \| `dualpipe` \| `dualpipev`; empty = default |
//! | `lps` | `parallel.layers_per_stage` | comma-separated whole numbers, e.g. `9,10,10,9`; empty = even split |
//! | `bucket` | `parallel.bucket_mb` | number (MB); empty = default |
//! | `tpov` | `parallel.tp_comm_overlap` | `1` \| `0`; empty = default |
//! | `dpov` | `parallel.dp_comm_overlap` | `1` \| `0`; empty = default |
//! | `gpu` | `cluster.gpu` | a GPU preset id, or `custom` |
//! | `gpus` | `cluster.num_gpus` | whole number |
//! | `gpn` | `cluster.gpus_per_node` | whole number |
//! | `intra` | `cluster.intra_node_gbps` | number (GB/s); empty = the GPU's |
//! | `inter` | `cluster.inter_node_gbps` | number (GB/s); empty = the GPU's |
//! | `price` | `cluster.price_per_gpu_hour` | number; empty = not set |
//! | `gpu.id` `gpu.name` | custom GPU id and name | text |
//! | `gpu.fp32` `gpu.tf32` `gpu.fp16` `gpu.bf16` `gpu.fp8` | custom GPU dense peaks | TFLOP/s; empty = none |
//! | `gpu.mem` / `gpu.usable` | custom GPU `hbm_gib` / `usable_gib` | GiB (`usable` may be empty) |
//! | `gpu.membw` | custom GPU `hbm_gbps` | GB/s |
//! | `gpu.nvlink` `gpu.nic` `gpu.pcie` | custom GPU links | GB/s; empty = none |
//! | `gpu.host` | custom GPU `host_link_gbps` (GPU↔CPU) | GB/s; empty = PCIe Gen4 x16 |
//! | `gpu.domain` | custom GPU `nvlink_domain_gpus` | whole number |
//! | `ctx` | `overhead.cuda_context_gib` | GiB; empty = default |
//! | `commbuf` | `overhead.comm_buffers_gib` | GiB; empty = default |
//! | `reserve` | `overhead.allocator_reserve_pct` | percent; empty = default |
//! | `a.model`, `a.<key>` | the pinned scenario A of a comparison | as above; A starts from `a.model` (default: the same preset as the link) |
//! | `chart` | the chart shown | `memory` \| `time` \| `scaling` \| `bucket` \| `schedule` \| `search` |
//! | `embed` | embed mode with that chart | same ids as `chart` |
//!
//! Any `gpu.*` key turns the GPU into a custom one that starts from the numbers of the GPU named
//! by `gpu` (or the preset's GPU), so `gpu=h100-sxm5-80gb&gpu.mem=96` is an H100 with 96 GiB. The
//! bookkeeping fields of a custom GPU (`source`, `notes`, …) are not carried. Keys are
//! case-insensitive; `+` and `%20` are spaces; `&amp;` (a link copied from HTML) is accepted.
//! Whole numbers are plain decimal digits; numbers also accept `1e12` and `0.5`, never `NaN` or
//! infinities. Values outside the validator's per-field limits fall back with a notice;
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
use crate::scenario::validate::{
    MAX_BATCH, MAX_GBPS, MAX_GPUS, MAX_HIDDEN, MAX_LAYERS, MAX_SEQ_LEN, MAX_VOCAB,
};
use crate::scenario::{
    gpu_preset, CustomGpu, FfnAct, GpuChoice, GpuSpec, Moe, Precision, Recompute, Scenario,
    Schedule, GPU_PRESETS,
};
use std::fmt;

/// The link format version this build writes.
pub const VERSION: u32 = 1;

/// Longest link [`decode`] reads, in bytes (the whole text given, URL included).
pub const MAX_LINK_BYTES: usize = 4096;

/// Most notices [`decode`] returns; the last one says how many more there were.
pub const MAX_NOTICES: usize = 20;

/// Longest model or GPU name carried by a link, in bytes (the validator's limit).
pub const MAX_NAME_BYTES: usize = crate::scenario::validate::MAX_LABEL_BYTES;

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

/// One key: how to print the field (`None`: not applicable, never written) and how to set it.
struct Field {
    key: &'static str,
    path: &'static str,
    get: fn(&Scenario) -> Option<String>,
    set: fn(&mut Scenario, &str) -> Result<(), String>,
}

/// The keys and the scenario fields they stand for, in link order (for docs and tests).
pub fn key_table() -> impl Iterator<Item = (&'static str, &'static str)> {
    FIELDS.iter().map(|f| (f.key, f.path))
}

fn some(v: impl ToString) -> Option<String> {
    Some(v.to_string())
}
fn opt_u(v: Option<u64>) -> Option<String> {
    Some(v.map_or_else(String::new, |x| x.to_string()))
}
fn opt_f(v: Option<f64>) -> Option<String> {
    Some(v.map_or_else(String::new, fmt_f64))
}
fn bit(b: bool) -> Option<String> {
    Some(if b { "1" } else { "0" }.to_string())
}
fn opt_bit(v: Option<bool>) -> Option<String> {
    Some(match v {
        None => String::new(),
        Some(true) => "1".into(),
        Some(false) => "0".into(),
    })
}

/// Shortest text that parses back to exactly `v` (Rust's float printing round-trips); plain
/// decimals for everyday magnitudes, exponent form for the rest.
fn fmt_f64(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-4..1e16).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A whole number in `lo..=hi`.
fn uint(v: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let expect = || {
        format!(
            "expected a whole number from {lo} to {hi}, got {}",
            shown(v)
        )
    };
    if v.is_empty() || v.len() > 20 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(expect());
    }
    match v.parse::<u64>() {
        Ok(x) if (lo..=hi).contains(&x) => Ok(x),
        _ => Err(expect()),
    }
}
fn opt_uint(v: &str, lo: u64, hi: u64) -> Result<Option<u64>, String> {
    if v.is_empty() {
        Ok(None)
    } else {
        uint(v, lo, hi).map(Some)
    }
}

/// A finite number in `(0, hi]` (or `[0, hi]` with `zero_ok`).
fn num(v: &str, zero_ok: bool, hi: f64) -> Result<f64, String> {
    let low = if zero_ok { "from 0" } else { "above 0" };
    let expect = || format!("expected a number {low} up to {hi}, got {}", shown(v));
    // Rust's parser also takes "inf"/"NaN"; require a digit and reject non-finite values.
    if v.is_empty() || v.len() > 40 || !v.bytes().any(|b| b.is_ascii_digit()) {
        return Err(expect());
    }
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() && x <= hi && (x > 0.0 || (zero_ok && x == 0.0)) => Ok(x),
        _ => Err(expect()),
    }
}
fn opt_num(v: &str, zero_ok: bool, hi: f64) -> Result<Option<f64>, String> {
    if v.is_empty() {
        Ok(None)
    } else {
        num(v, zero_ok, hi).map(Some)
    }
}

fn boolean(v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!("expected 1 or 0, got {}", shown(v))),
    }
}
fn opt_boolean(v: &str) -> Result<Option<bool>, String> {
    if v.is_empty() {
        Ok(None)
    } else {
        boolean(v).map(Some)
    }
}

/// One of `names` (ASCII case-insensitive).
fn choice<T: Copy>(v: &str, all: &[T], name: fn(T) -> &'static str) -> Result<T, String> {
    all.iter()
        .copied()
        .find(|&x| name(x).eq_ignore_ascii_case(v))
        .ok_or_else(|| {
            let known: Vec<&str> = all.iter().map(|&x| name(x)).collect();
            format!("expected one of {}, got {}", known.join(", "), shown(v))
        })
}

/// Free text for a name: at most [`MAX_NAME_BYTES`], no control or bidi-override characters.
fn text(v: &str) -> Result<String, String> {
    if v.len() > MAX_NAME_BYTES {
        return Err(format!(
            "the text is {} bytes long; at most {MAX_NAME_BYTES} are allowed",
            v.len()
        ));
    }
    if v.chars().any(is_unsafe_char) {
        return Err("the text contains control characters".into());
    }
    Ok(v.to_string())
}

/// Control characters and the bidi controls that can reorder displayed text.
fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A user value shown inside a notice: quoted, at most 24 characters, no control characters.
fn shown(v: &str) -> String {
    let mut out = String::from("\"");
    for (i, c) in v.chars().enumerate() {
        if i == 24 {
            out.push('…');
            break;
        }
        out.push(if is_unsafe_char(c) { '\u{FFFD}' } else { c });
    }
    out.push('"');
    out
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

const MAX_FFN: u64 = MAX_HIDDEN.saturating_mul(8);
const MAX_EXPERTS: u64 = 1_000_000;

fn moe_mut(s: &mut Scenario) -> Result<&mut Moe, String> {
    s.model
        .moe
        .as_mut()
        .ok_or_else(|| "the model has no experts; set experts=N first".to_string())
}

/// The raw numbers of a GPU choice (no link overrides), for a custom GPU to start from.
fn raw_spec(gpu: &GpuChoice) -> GpuSpec {
    match gpu {
        GpuChoice::Preset(id) => gpu_preset(id).map(|p| p.spec),
        GpuChoice::Custom(c) => Some(c.spec()),
    }
    .or_else(|| GPU_PRESETS.first().map(|p| p.spec))
    .unwrap_or_else(GpuSpec::fallback)
}

/// A custom GPU with the numbers of `spec`, no id, name or bookkeeping.
fn custom_from(spec: GpuSpec) -> CustomGpu {
    CustomGpu::from_spec(String::new(), String::new(), spec)
}

/// Makes the scenario's GPU a custom one (a preset becomes its numbers), then edits it.
fn with_custom(s: &mut Scenario, edit: impl FnOnce(&mut CustomGpu)) {
    let mut c = match std::mem::replace(&mut s.cluster.gpu, GpuChoice::Preset(String::new())) {
        GpuChoice::Custom(c) => c,
        preset => custom_from(raw_spec(&preset)),
    };
    edit(&mut c);
    s.cluster.gpu = GpuChoice::Custom(c);
}

fn custom_ref(s: &Scenario) -> Option<&CustomGpu> {
    match &s.cluster.gpu {
        GpuChoice::Custom(c) => Some(c),
        GpuChoice::Preset(_) => None,
    }
}

macro_rules! custom_opt_f {
    ($key:literal, $path:literal, $($f:ident).+, $hi:expr) => {
        Field {
            key: $key,
            path: $path,
            get: |s| custom_ref(s).and_then(|c| opt_f(c.$($f).+)),
            set: |s, v| {
                let x = opt_num(v, false, $hi)?;
                with_custom(s, |c| c.$($f).+ = x);
                Ok(())
            },
        }
    };
}

static FIELDS: &[Field] = &[
    // --- model ---
    Field {
        key: "name",
        path: "model.name",
        get: |s| some(&s.model.name),
        set: |s, v| {
            s.model.name = text(v)?;
            Ok(())
        },
    },
    Field {
        key: "layers",
        path: "model.layers",
        get: |s| some(s.model.layers),
        set: |s, v| {
            s.model.layers = uint(v, 1, MAX_LAYERS)?;
            Ok(())
        },
    },
    Field {
        key: "hidden",
        path: "model.hidden",
        get: |s| some(s.model.hidden),
        set: |s, v| {
            s.model.hidden = uint(v, 1, MAX_HIDDEN)?;
            Ok(())
        },
    },
    Field {
        key: "heads",
        path: "model.heads",
        get: |s| some(s.model.heads),
        set: |s, v| {
            s.model.heads = uint(v, 1, MAX_HIDDEN)?;
            Ok(())
        },
    },
    Field {
        key: "kv",
        path: "model.kv_heads",
        get: |s| opt_u(s.model.kv_heads),
        set: |s, v| {
            s.model.kv_heads = opt_uint(v, 1, MAX_HIDDEN)?;
            Ok(())
        },
    },
    Field {
        key: "ffn",
        path: "model.ffn_hidden",
        get: |s| opt_u(s.model.ffn_hidden),
        set: |s, v| {
            s.model.ffn_hidden = opt_uint(v, 1, MAX_FFN)?;
            Ok(())
        },
    },
    Field {
        key: "act",
        path: "model.ffn_act",
        get: |s| some(s.model.ffn_act.as_str()),
        set: |s, v| {
            s.model.ffn_act = choice(v, FfnAct::ALL, FfnAct::as_str)?;
            Ok(())
        },
    },
    Field {
        key: "vocab",
        path: "model.vocab",
        get: |s| some(s.model.vocab),
        set: |s, v| {
            s.model.vocab = uint(v, 1, MAX_VOCAB)?;
            Ok(())
        },
    },
    Field {
        key: "seq",
        path: "model.seq_len",
        get: |s| some(s.model.seq_len),
        set: |s, v| {
            s.model.seq_len = uint(v, 1, MAX_SEQ_LEN)?;
            Ok(())
        },
    },
    Field {
        key: "tied",
        path: "model.tied_embeddings",
        get: |s| bit(s.model.tied_embeddings),
        set: |s, v| {
            s.model.tied_embeddings = boolean(v)?;
            Ok(())
        },
    },
    Field {
        key: "experts",
        path: "model.moe.experts",
        get: |s| some(s.model.moe.map_or(0, |m| m.experts)),
        set: |s, v| {
            let n = uint(v, 0, MAX_EXPERTS)?;
            if n == 0 {
                s.model.moe = None;
            } else if let Some(m) = s.model.moe.as_mut() {
                m.experts = n;
            } else {
                s.model.moe = Some(Moe::new(
                    n,
                    n.min(2),
                    s.model.ffn_hidden().clamp(1, MAX_FFN),
                ));
            }
            Ok(())
        },
    },
    Field {
        key: "topk",
        path: "model.moe.top_k",
        get: |s| s.model.moe.map(|m| m.top_k.to_string()),
        set: |s, v| {
            let k = uint(v, 1, MAX_EXPERTS)?;
            moe_mut(s)?.top_k = k;
            Ok(())
        },
    },
    Field {
        key: "effn",
        path: "model.moe.expert_ffn_hidden",
        get: |s| s.model.moe.map(|m| m.expert_ffn_hidden.to_string()),
        set: |s, v| {
            let f = uint(v, 1, MAX_FFN)?;
            moe_mut(s)?.expert_ffn_hidden = f;
            Ok(())
        },
    },
    // --- training ---
    Field {
        key: "gbs",
        path: "training.global_batch",
        get: |s| some(s.training.global_batch),
        set: |s, v| {
            s.training.global_batch = uint(v, 1, MAX_BATCH)?;
            Ok(())
        },
    },
    Field {
        key: "mbs",
        path: "training.micro_batch",
        get: |s| some(s.training.micro_batch),
        set: |s, v| {
            s.training.micro_batch = uint(v, 1, MAX_BATCH)?;
            Ok(())
        },
    },
    Field {
        key: "prec",
        path: "training.precision",
        get: |s| some(s.training.precision.as_str()),
        set: |s, v| {
            s.training.precision = choice(v, Precision::ALL, Precision::as_str)?;
            Ok(())
        },
    },
    Field {
        key: "opt",
        path: "training.optimizer",
        // Adam is the only optimizer: never written, accepted when given.
        get: |_| None,
        set: |_, v| {
            if v.eq_ignore_ascii_case("adam") || v.eq_ignore_ascii_case("adamw") {
                Ok(())
            } else {
                Err(format!("expected adam, got {}", shown(v)))
            }
        },
    },
    Field {
        key: "recompute",
        path: "training.recompute",
        get: |s| some(s.training.recompute.as_str()),
        set: |s, v| {
            s.training.recompute = choice(v, Recompute::ALL, Recompute::as_str)?;
            Ok(())
        },
    },
    Field {
        key: "flash",
        path: "training.flash_attention",
        get: |s| bit(s.training.flash_attention),
        set: |s, v| {
            s.training.flash_attention = boolean(v)?;
            Ok(())
        },
    },
    Field {
        key: "tokens",
        path: "training.train_tokens",
        get: |s| opt_f(s.training.train_tokens),
        set: |s, v| {
            s.training.train_tokens = opt_num(v, false, 1e18)?;
            Ok(())
        },
    },
    Field {
        key: "gradfp32",
        path: "training.grad_reduce_in_fp32",
        get: |s| opt_bit(s.training.grad_reduce_in_fp32),
        set: |s, v| {
            s.training.grad_reduce_in_fp32 = opt_boolean(v)?;
            Ok(())
        },
    },
    Field {
        key: "optoff",
        path: "training.optimizer_offload",
        get: |s| opt_f(s.training.optimizer_offload),
        set: |s, v| {
            s.training.optimizer_offload = opt_num(v, true, 1.0)?;
            Ok(())
        },
    },
    Field {
        key: "actoff",
        path: "training.activation_offload",
        get: |s| opt_f(s.training.activation_offload),
        set: |s, v| {
            s.training.activation_offload = opt_num(v, true, 1.0)?;
            Ok(())
        },
    },
    // --- parallel ---
    Field {
        key: "tp",
        path: "parallel.tp",
        get: |s| some(s.parallel.tp),
        set: |s, v| {
            s.parallel.tp = uint(v, 1, MAX_GPUS)?;
            Ok(())
        },
    },
    Field {
        key: "pp",
        path: "parallel.pp",
        get: |s| some(s.parallel.pp),
        set: |s, v| {
            s.parallel.pp = uint(v, 1, MAX_GPUS)?;
            Ok(())
        },
    },
    Field {
        key: "dp",
        path: "parallel.dp",
        get: |s| some(s.parallel.dp),
        set: |s, v| {
            s.parallel.dp = uint(v, 1, MAX_GPUS)?;
            Ok(())
        },
    },
    Field {
        key: "cp",
        path: "parallel.cp",
        get: |s| some(s.parallel.cp),
        set: |s, v| {
            s.parallel.cp = uint(v, 1, MAX_GPUS)?;
            Ok(())
        },
    },
    Field {
        key: "ep",
        path: "parallel.ep",
        get: |s| some(s.parallel.ep),
        set: |s, v| {
            s.parallel.ep = uint(v, 1, MAX_GPUS)?;
            Ok(())
        },
    },
    Field {
        key: "vp",
        path: "parallel.vp",
        get: |s| some(s.parallel.vp),
        set: |s, v| {
            s.parallel.vp = uint(v, 1, MAX_LAYERS)?;
            Ok(())
        },
    },
    Field {
        key: "sp",
        path: "parallel.sp",
        get: |s| bit(s.parallel.sp),
        set: |s, v| {
            s.parallel.sp = boolean(v)?;
            Ok(())
        },
    },
    Field {
        key: "zero",
        path: "parallel.zero_stage",
        get: |s| some(s.parallel.zero_stage),
        set: |s, v| {
            // 0..=3, so the cast cannot truncate.
            s.parallel.zero_stage = uint(v, 0, 3)? as u8;
            Ok(())
        },
    },
    Field {
        key: "sched",
        path: "parallel.schedule",
        get: |s| Some(s.parallel.schedule.map_or("", Schedule::as_str).to_string()),
        set: |s, v| {
            s.parallel.schedule = if v.is_empty() {
                None
            } else {
                Some(choice(v, Schedule::ALL, Schedule::as_str)?)
            };
            Ok(())
        },
    },
    Field {
        key: "lps",
        path: "parallel.layers_per_stage",
        get: |s| {
            Some(
                s.parallel
                    .layers_per_stage
                    .as_ref()
                    .map_or_else(String::new, |l| {
                        l.iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    }),
            )
        },
        set: |s, v| {
            if v.is_empty() {
                s.parallel.layers_per_stage = None;
                return Ok(());
            }
            // Bounded by the link size: at most MAX_LINK_BYTES / 2 entries.
            let mut list = Vec::new();
            for part in v.split(',') {
                list.push(uint(part, 1, MAX_LAYERS).map_err(|e| format!("in the list: {e}"))?);
            }
            s.parallel.layers_per_stage = Some(list);
            Ok(())
        },
    },
    Field {
        key: "bucket",
        path: "parallel.bucket_mb",
        get: |s| opt_f(s.parallel.bucket_mb),
        set: |s, v| {
            s.parallel.bucket_mb = opt_num(v, false, 1e7)?;
            Ok(())
        },
    },
    Field {
        key: "tpov",
        path: "parallel.tp_comm_overlap",
        get: |s| opt_bit(s.parallel.tp_comm_overlap),
        set: |s, v| {
            s.parallel.tp_comm_overlap = opt_boolean(v)?;
            Ok(())
        },
    },
    Field {
        key: "dpov",
        path: "parallel.dp_comm_overlap",
        get: |s| opt_bit(s.parallel.dp_comm_overlap),
        set: |s, v| {
            s.parallel.dp_comm_overlap = opt_boolean(v)?;
            Ok(())
        },
    },
    // --- cluster ---
    Field {
        key: "gpu",
        path: "cluster.gpu",
        get: |s| match &s.cluster.gpu {
            GpuChoice::Preset(id) => some(id),
            GpuChoice::Custom(_) => some("custom"),
        },
        set: |s, v| {
            if v.eq_ignore_ascii_case("custom") {
                with_custom(s, |_| {});
                return Ok(());
            }
            match gpu_preset(v) {
                // Keep the spelling given (lookups are case-insensitive), so links round-trip.
                Some(_) => {
                    s.cluster.gpu = GpuChoice::Preset(v.to_string());
                    Ok(())
                }
                None => {
                    let known: Vec<&str> = GPU_PRESETS.iter().map(|g| g.id).collect();
                    Err(format!(
                        "unknown GPU {}; known: {}, custom",
                        shown(v),
                        known.join(", ")
                    ))
                }
            }
        },
    },
    Field {
        key: "gpus",
        path: "cluster.num_gpus",
        get: |s| some(s.cluster.num_gpus),
        set: |s, v| {
            s.cluster.num_gpus = uint(v, 1, MAX_GPUS)?;
            Ok(())
        },
    },
    Field {
        key: "gpn",
        path: "cluster.gpus_per_node",
        get: |s| some(s.cluster.gpus_per_node),
        set: |s, v| {
            s.cluster.gpus_per_node = uint(v, 1, 1_000_000)?;
            Ok(())
        },
    },
    Field {
        key: "intra",
        path: "cluster.intra_node_gbps",
        get: |s| opt_f(s.cluster.intra_node_gbps),
        set: |s, v| {
            s.cluster.intra_node_gbps = opt_num(v, false, MAX_GBPS)?;
            Ok(())
        },
    },
    Field {
        key: "inter",
        path: "cluster.inter_node_gbps",
        get: |s| opt_f(s.cluster.inter_node_gbps),
        set: |s, v| {
            s.cluster.inter_node_gbps = opt_num(v, false, MAX_GBPS)?;
            Ok(())
        },
    },
    Field {
        key: "price",
        path: "cluster.price_per_gpu_hour",
        get: |s| opt_f(s.cluster.price_per_gpu_hour),
        set: |s, v| {
            s.cluster.price_per_gpu_hour = opt_num(v, true, 1e6)?;
            Ok(())
        },
    },
    Field {
        key: "gpu.id",
        path: "cluster.gpu.id",
        get: |s| custom_ref(s).map(|c| c.id.clone()),
        set: |s, v| {
            let t = text(v)?;
            with_custom(s, |c| c.id = t);
            Ok(())
        },
    },
    Field {
        key: "gpu.name",
        path: "cluster.gpu.name",
        get: |s| custom_ref(s).map(|c| c.name.clone()),
        set: |s, v| {
            let t = text(v)?;
            with_custom(s, |c| c.name = t);
            Ok(())
        },
    },
    custom_opt_f!(
        "gpu.fp32",
        "cluster.gpu.peak_tflops.fp32",
        peak_tflops.fp32,
        1e7
    ),
    custom_opt_f!(
        "gpu.tf32",
        "cluster.gpu.peak_tflops.tf32",
        peak_tflops.tf32,
        1e7
    ),
    custom_opt_f!(
        "gpu.fp16",
        "cluster.gpu.peak_tflops.fp16",
        peak_tflops.fp16,
        1e7
    ),
    custom_opt_f!(
        "gpu.bf16",
        "cluster.gpu.peak_tflops.bf16",
        peak_tflops.bf16,
        1e7
    ),
    custom_opt_f!(
        "gpu.fp8",
        "cluster.gpu.peak_tflops.fp8",
        peak_tflops.fp8,
        1e7
    ),
    Field {
        key: "gpu.mem",
        path: "cluster.gpu.hbm_gib",
        get: |s| custom_ref(s).map(|c| fmt_f64(c.hbm_gib)),
        set: |s, v| {
            let x = num(v, false, 1e6)?;
            with_custom(s, |c| c.hbm_gib = x);
            Ok(())
        },
    },
    custom_opt_f!("gpu.usable", "cluster.gpu.usable_gib", usable_gib, 1e6),
    Field {
        key: "gpu.membw",
        path: "cluster.gpu.hbm_gbps",
        get: |s| custom_ref(s).map(|c| fmt_f64(c.hbm_gbps)),
        set: |s, v| {
            let x = num(v, false, MAX_GBPS)?;
            with_custom(s, |c| c.hbm_gbps = x);
            Ok(())
        },
    },
    custom_opt_f!(
        "gpu.nvlink",
        "cluster.gpu.nvlink_gbps",
        nvlink_gbps,
        MAX_GBPS
    ),
    Field {
        key: "gpu.domain",
        path: "cluster.gpu.nvlink_domain_gpus",
        get: |s| custom_ref(s).map(|c| c.nvlink_domain_gpus.to_string()),
        set: |s, v| {
            let x = uint(v, 1, 1_000_000)?;
            with_custom(s, |c| c.nvlink_domain_gpus = x);
            Ok(())
        },
    },
    custom_opt_f!("gpu.nic", "cluster.gpu.nic_gbps", nic_gbps, MAX_GBPS),
    custom_opt_f!("gpu.pcie", "cluster.gpu.pcie_gbps", pcie_gbps, MAX_GBPS),
    custom_opt_f!(
        "gpu.host",
        "cluster.gpu.host_link_gbps",
        host_link_gbps,
        MAX_GBPS
    ),
    // --- overhead ---
    Field {
        key: "ctx",
        path: "overhead.cuda_context_gib",
        get: |s| opt_f(s.overhead.cuda_context_gib),
        set: |s, v| {
            s.overhead.cuda_context_gib = opt_num(v, true, 1e4)?;
            Ok(())
        },
    },
    Field {
        key: "commbuf",
        path: "overhead.comm_buffers_gib",
        get: |s| opt_f(s.overhead.comm_buffers_gib),
        set: |s, v| {
            s.overhead.comm_buffers_gib = opt_num(v, true, 1e4)?;
            Ok(())
        },
    },
    Field {
        key: "reserve",
        path: "overhead.allocator_reserve_pct",
        get: |s| opt_f(s.overhead.allocator_reserve_pct),
        set: |s, v| {
            s.overhead.allocator_reserve_pct = opt_num(v, true, 100.0)?;
            Ok(())
        },
    },
];

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
        b.cluster.gpu = GpuChoice::Custom(custom_from(raw_spec(&base.cluster.gpu)));
        custom_base = b;
        &custom_base
    } else {
        base
    };
    for f in FIELDS {
        let Some(value) = (f.get)(s) else { continue };
        let b = if f.key == "gpu" { base } else { sub_base };
        if (f.get)(b).as_deref() != Some(value.as_str()) {
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

/// The preset whose scenario is closest to `s` (fewest link keys; the first in table order on
/// ties).
pub fn nearest_preset(s: &Scenario) -> &'static ModelPreset {
    let mut best = presets::default_model_preset();
    let mut best_n = usize::MAX;
    for p in presets::MODEL_PRESETS {
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
/// # Errors
/// [`ShareError::TooLong`] for text longer than [`MAX_LINK_BYTES`].
pub fn decode(text: &str) -> Result<Decoded, ShareError> {
    if text.len() > MAX_LINK_BYTES {
        return Err(ShareError::TooLong { bytes: text.len() });
    }
    let mut notices = Vec::new();

    // Split into (key, value) pairs, the last of a repeated key winning.
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
        let value = match String::from_utf8(unescape(v)) {
            Ok(v) => v,
            Err(_) => {
                notices.push(Notice {
                    key: shown_key(&key),
                    message: "the value is not valid UTF-8 text; ignored.".into(),
                });
                continue;
            }
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

    // Version.
    let version = VERSION;
    if let Some((_, v)) = pairs.iter().find(|(k, _)| k == "v") {
        match v.parse::<u32>() {
            Ok(1) => {}
            Ok(n) if n > VERSION => notices.push(Notice {
                key: "v".into(),
                message: format!(
                    "link version {n} is newer than this paracalc understands ({VERSION}); read as version {VERSION}."
                ),
            }),
            _ => notices.push(Notice {
                key: "v".into(),
                message: format!(
                    "expected version {VERSION}, got {}; read as version {VERSION}.",
                    shown(v)
                ),
            }),
        }
    }

    let lookup = |k: &str| {
        pairs
            .iter()
            .find(|(k2, _)| k2 == k)
            .map(|(_, v)| v.as_str())
    };
    let preset_of =
        |key: &str, fallback: &'static ModelPreset, notices: &mut Vec<Notice>| match lookup(key) {
            None => fallback,
            Some(id) => presets::model_preset(id).unwrap_or_else(|| {
                notices.push(Notice {
                    key: key.into(),
                    message: format!(
                        "unknown model preset {}; started from {} instead.",
                        shown(id),
                        fallback.id
                    ),
                });
                fallback
            }),
        };

    let base = preset_of("model", presets::default_model_preset(), &mut notices);
    let scenario = apply(base, "", &pairs, &mut notices);

    let pinned = if pairs.iter().any(|(k, _)| k.starts_with("a.")) {
        let pa = preset_of("a.model", base, &mut notices);
        Some(Pinned {
            scenario: apply(pa, "a.", &pairs, &mut notices),
            preset: pa.id,
        })
    } else {
        None
    };

    let chart_of = |key: &str, notices: &mut Vec<Notice>| {
        let v = lookup(key)?;
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
    };
    let view = View {
        chart: chart_of("chart", &mut notices),
        embed: chart_of("embed", &mut notices),
        pinned,
    };

    // Keys nobody used.
    for (k, _) in &pairs {
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

    if notices.len() > MAX_NOTICES {
        let more = notices.len() - (MAX_NOTICES - 1);
        notices.truncate(MAX_NOTICES - 1);
        notices.push(Notice {
            key: "link".into(),
            message: format!("{more} more problems are not listed."),
        });
    }

    Ok(Decoded {
        scenario,
        preset: base.id,
        view,
        notices,
        version,
    })
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
        let before = (f.get)(&s);
        if let Err(why) = (f.set)(&mut s, value) {
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
