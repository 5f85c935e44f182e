//! The field table: one entry per scenario field, the single place that says what a field is
//! called, where it lives, how it is written in a share link, what values it takes and how to
//! read and write it (the pattern of ripgrep's flag definitions: every consumer iterates one list
//! of definitions instead of keeping its own copy).
//!
//! Readers of the table:
//! - [`crate::share`] encodes and decodes link keys with [`FieldDef::key`], [`FieldDef::parse`],
//!   [`FieldDef::format`] and the accessors, in table order;
//! - the app's form builds every input (label, unit, help, limits) from the entry of its
//!   [`FieldId`], and shows the engine's issues at the input whose id they carry;
//! - [`Scenario::validate`](super::Scenario::validate) checks every field's value against its
//!   [`Kind`] ([`FieldDef::check`]) before the rules across fields;
//! - the scenario's JSON reader and writer ([`super::json`]) read and write each field under
//!   its `path` with the accessors, converting by its [`Kind`];
//! - the documentation table of the share-link keys ([`markdown_table`]).
//!
//! A field error ([`Issue`](super::Issue)) is keyed by the typed [`FieldId`], not by a string.
//!
//! # Adding a field
//! 1. Add it to its section struct (`model.rs`, `training.rs`, `parallel.rs`, `cluster.rs`,
//!    `overhead.rs`) with its doc comment (the default and its source), and to the section's
//!    `Default` in the same file (`Model` and `Overhead` derive it): a file that leaves the
//!    field out gets that value. Code that builds sections (presets, the Hugging Face import)
//!    uses `..Section::default()`, so it needs no change.
//! 2. Use it in the engine.
//! 3. Add one entry to the `fields!` list below, in link order: where it lives, `key` (a new,
//!    short link key: existing keys never change meaning), `label`, `unit`, `help` (one
//!    sentence, saying what the field does and what empty means), `kind` (with its range) and
//!    `optional`. Where it lives is one of: `at: section.field` (the JSON path is the place, and
//!    reading and writing follow the field's type: a number, switch, text or choice); `path:
//!    "…"` with `part: Part.field` (a field of the MoE block, latent attention or a custom GPU,
//!    which a scenario may not have); or `path: "…"` with `get` and `set` written out. A doc
//!    line is needed only where the path says too little. The enum variant, the link key, its
//!    JSON, the validation of its range and the documentation row all come from this entry.
//! 4. Show it in its form section (`app/components/*_form.rs`): `num_field(FieldId::X, …)`,
//!    `select_field(FieldId::X, …)` or `switch_field(FieldId::X, …)`.
//!
//! Nothing else: rules across fields go in `validate.rs` only when the field has one.

use super::name_set::set_names;
use super::{
    gpu_preset, AttentionKernel, Calibration, CustomGpu, FfnAct, Fp8Recipe, Framework, FsdpStyle,
    GpuChoice, GpuSpec, LossKernel, MasterWeights, Mla, Moe, MoeDispatcher, MoeRouting,
    OptimizerStates, Precision, Recompute, RecomputeModules, RematSaved, Scenario, Schedule,
    GPU_PRESETS,
};
use crate::text::num::{Exp, Plain};
use std::borrow::Cow;
use std::fmt::Write as _;

/// Largest values accepted; beyond them the numbers describe no real run and would only risk
/// overflow. Each limit is at least 10× the largest published run.
pub const MAX_LAYERS: u64 = 100_000;
/// Largest hidden size (and head count).
pub const MAX_HIDDEN: u64 = 10_000_000;
/// Largest FFN size: 8× the largest hidden size.
pub const MAX_FFN: u64 = MAX_HIDDEN * 8;
/// Largest vocabulary.
pub const MAX_VOCAB: u64 = 100_000_000;
/// Largest sequence length.
pub const MAX_SEQ_LEN: u64 = 1_000_000_000;
/// Largest batch, sequences.
pub const MAX_BATCH: u64 = 10_000_000_000;
/// Largest GPU count and parallel degree.
pub const MAX_GPUS: u64 = 100_000_000;
/// Largest expert count (and top-k).
pub const MAX_EXPERTS: u64 = 1_000_000;
/// Most multi-token prediction modules (DeepSeek-V3 uses 1).
pub const MAX_MTP_LAYERS: u64 = 64;
/// Largest expert-load imbalance: the busiest rank cannot hold more than all the tokens, which
/// is at most the number of ranks times the mean; 1000 is far beyond any reported imbalance.
pub const MAX_IMBALANCE: f64 = 1000.0;
/// Largest bandwidth, GB/s.
pub const MAX_GBPS: f64 = 1.0e6;
/// Longest model or GPU name/id, in bytes.
pub const MAX_LABEL_BYTES: usize = 200;

/// What values a field takes. Every range is inclusive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A whole number in `min..=max`.
    Count {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// A finite number above 0 (or from 0 with `zero_ok`) up to `max`.
    Real {
        /// 0 itself is allowed.
        zero_ok: bool,
        /// Largest value.
        max: f64,
    },
    /// A finite number in `min..=max`.
    Between {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// On or off.
    Bool,
    /// One of these ids (ASCII case-insensitive when parsed).
    Choice(&'static [&'static str]),
    /// Free text: at most [`MAX_LABEL_BYTES`], no control or bidi-override characters.
    Text,
    /// A non-empty list of whole numbers, each in `1..=max`.
    List {
        /// Largest entry.
        max: u64,
    },
    /// A GPU preset id, or `custom`.
    Gpu,
    /// Some of these ids (bit `i` of [`Value::Set`] is the `i`-th): comma-separated in a link,
    /// a list of strings in JSON.
    Set(&'static [&'static str]),
}

/// A field's value, as the table reads and writes it. Text and lists borrow from the scenario
/// (or the link) they were read from, so checking a scenario allocates nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// An optional field left empty: its default applies.
    Unset,
    /// A whole number.
    Count(u64),
    /// A number.
    Real(f64),
    /// A switch.
    Bool(bool),
    /// Text, a choice's id or a GPU id.
    Text(Cow<'a, str>),
    /// A list of whole numbers.
    List(Cow<'a, [u64]>),
    /// Some of a [`Kind::Set`]'s ids, as bits.
    Set(u8),
}

impl Value<'_> {
    /// The same value, owning its text or list.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Unset => Value::Unset,
            Value::Count(x) => Value::Count(x),
            Value::Real(x) => Value::Real(x),
            Value::Bool(b) => Value::Bool(b),
            Value::Text(t) => Value::Text(Cow::Owned(t.into_owned())),
            Value::List(l) => Value::List(Cow::Owned(l.into_owned())),
            Value::Set(b) => Value::Set(b),
        }
    }

    /// A text value.
    pub fn text_of(t: &str) -> Value<'static> {
        Value::Text(Cow::Owned(t.to_string()))
    }

    /// The number of a numeric value (`None` for every other value).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Count(x) => Some(x as f64),
            Value::Real(x) => Some(x),
            _ => None,
        }
    }

    fn count(self) -> Result<u64, String> {
        match self {
            Value::Count(x) => Ok(x),
            // A form's number for a whole-number field (already checked to be whole).
            Value::Real(x) if x.fract() == 0.0 && x >= 0.0 => Ok(x as u64),
            Value::Unset => Err("a value is required".into()),
            _ => Err("expected a whole number".into()),
        }
    }
    fn opt_count(self) -> Result<Option<u64>, String> {
        match self {
            Value::Unset => Ok(None),
            v => v.count().map(Some),
        }
    }
    fn real(self) -> Result<f64, String> {
        match self {
            Value::Real(x) => Ok(x),
            Value::Count(x) => Ok(x as f64),
            Value::Unset => Err("a value is required".into()),
            _ => Err("expected a number".into()),
        }
    }
    fn opt_real(self) -> Result<Option<f64>, String> {
        match self {
            Value::Unset => Ok(None),
            v => v.real().map(Some),
        }
    }
    fn bit(self) -> Result<bool, String> {
        match self {
            Value::Bool(b) => Ok(b),
            Value::Unset => Err("a value is required".into()),
            _ => Err("expected on or off".into()),
        }
    }
    fn opt_bit(self) -> Result<Option<bool>, String> {
        match self {
            Value::Unset => Ok(None),
            v => v.bit().map(Some),
        }
    }
    fn text(self) -> Result<String, String> {
        match self {
            Value::Text(t) => Ok(t.into_owned()),
            Value::Unset => Ok(String::new()),
            _ => Err("expected text".into()),
        }
    }
    fn opt_set(self) -> Result<Option<u8>, String> {
        match self {
            Value::Set(b) => Ok(Some(b)),
            Value::Unset => Ok(None),
            _ => Err("expected some of the choices".into()),
        }
    }
    fn opt_list(self) -> Result<Option<Vec<u64>>, String> {
        match self {
            Value::List(l) => Ok(Some(l.into_owned())),
            Value::Unset => Ok(None),
            _ => Err("expected a list of whole numbers".into()),
        }
    }
    /// One of `all` by its id.
    fn choice<T: Copy>(self, all: &[T], id: fn(T) -> &'static str) -> Result<T, String> {
        let Value::Text(t) = self else {
            return Err("expected one of the choices".into());
        };
        all.iter()
            .copied()
            .find(|&x| id(x).eq_ignore_ascii_case(&t))
            .ok_or_else(|| format!("unknown value {}", shown(&t)))
    }
    /// [`Value::choice`], or `None` when unset.
    fn opt_choice<T: Copy>(
        self,
        all: &[T],
        id: fn(T) -> &'static str,
    ) -> Result<Option<T>, String> {
        match self {
            Value::Unset => Ok(None),
            v => v.choice(all, id).map(Some),
        }
    }
}

#[inline(always)]
fn count(v: u64) -> Option<Value<'static>> {
    Some(Value::Count(v))
}
#[inline(always)]
fn opt_count(v: Option<u64>) -> Option<Value<'static>> {
    Some(v.map_or(Value::Unset, Value::Count))
}
#[inline(always)]
fn real(v: f64) -> Option<Value<'static>> {
    Some(Value::Real(v))
}
#[inline(always)]
fn opt_real(v: Option<f64>) -> Option<Value<'static>> {
    Some(v.map_or(Value::Unset, Value::Real))
}
#[inline(always)]
fn bit(v: bool) -> Option<Value<'static>> {
    Some(Value::Bool(v))
}
#[inline(always)]
fn opt_bit(v: Option<bool>) -> Option<Value<'static>> {
    Some(v.map_or(Value::Unset, Value::Bool))
}
#[inline(always)]
fn opt_choice<T: Copy>(v: Option<T>, id: fn(T) -> &'static str) -> Option<Value<'static>> {
    Some(v.map_or(Value::Unset, |x| Value::Text(Cow::Borrowed(id(x)))))
}
#[inline(always)]
fn text(v: &str) -> Option<Value<'_>> {
    Some(Value::Text(Cow::Borrowed(v)))
}

#[inline(always)]
fn opt_set(v: Option<u8>) -> Option<Value<'static>> {
    Some(v.map_or(Value::Unset, Value::Set))
}

/// The bit of `id` in `all` (ASCII case-insensitive), or a phrase naming the unknown id.
pub fn set_bit(id: &str, all: &[&str]) -> Result<u8, String> {
    all.iter()
        .take(8)
        .position(|x| x.eq_ignore_ascii_case(id.trim()))
        .map(|i| 1 << i)
        .ok_or_else(|| format!("expected some of {}, got {}", all.join(", "), shown(id)))
}

/// A comma-separated list of ids of `all` as bits (blank entries ignored).
fn parse_set(v: &str, all: &[&str]) -> Result<u8, String> {
    v.split(',')
        .filter(|x| !x.trim().is_empty())
        .try_fold(0u8, |bits, x| set_bit(x, all).map(|b| bits | b))
}

/// The custom GPU of `s`, if it has one.
#[inline(always)]
fn custom_ref(s: &Scenario) -> Option<&CustomGpu> {
    match &s.cluster.gpu {
        GpuChoice::Custom(c) => Some(c),
        GpuChoice::Preset(_) => None,
    }
}

/// The raw numbers of a GPU choice (no link overrides), for a custom GPU to start from.
pub fn raw_spec(gpu: &GpuChoice) -> GpuSpec {
    match gpu {
        GpuChoice::Preset(id) => gpu_preset(id).map(|p| p.spec),
        GpuChoice::Custom(c) => Some(c.spec()),
    }
    .or_else(|| GPU_PRESETS.first().map(|p| p.spec))
    .unwrap_or_else(GpuSpec::fallback)
}

/// Turns a preset GPU choice into the custom GPU of its numbers; a custom one stays as it is.
#[inline(never)]
fn make_custom(gpu: &mut GpuChoice) {
    if let GpuChoice::Preset(_) = gpu {
        *gpu = GpuChoice::Custom(CustomGpu::from_spec(
            String::new(),
            String::new(),
            raw_spec(gpu),
        ));
    }
}

fn mla_mut(s: &mut Scenario) -> Result<&mut Mla, String> {
    s.model
        .mla
        .as_mut()
        .ok_or_else(|| "the model has no latent attention; set mla.kv=N first".to_string())
}

/// DeepSeek-V3's latent attention (HF `config.json` of `deepseek-ai/DeepSeek-V3`): what a link
/// or the form starts from when it switches MLA on.
const DEEPSEEK_V3_MLA: Mla = Mla {
    q_lora_rank: 1536,
    kv_lora_rank: 512,
    qk_nope_head_dim: 128,
    qk_rope_head_dim: 64,
    v_head_dim: 128,
};

fn moe_mut(s: &mut Scenario) -> Result<&mut Moe, String> {
    s.model
        .moe
        .as_mut()
        .ok_or_else(|| "the model has no experts; set experts=N first".to_string())
}

/// How the table reads and writes a field kept in the scenario as a `Self` (the entries written
/// `at:` or `part:`): numbers, switches and text as their [`Value`], a choice by its id.
trait Stored: Sized {
    /// The field's value, borrowing text from the scenario.
    fn value(&self) -> Option<Value<'_>>;
    /// A value of the field's kind as a `Self`; `Err` says why it is not one.
    fn from_value(v: Value<'_>) -> Result<Self, String>;
}

macro_rules! stored {
    ($($t:ty => $get:ident, $from:ident;)*) => { $(
        impl Stored for $t {
            #[inline(always)]
            fn value(&self) -> Option<Value<'_>> {
                $get(*self)
            }
            #[inline(always)]
            fn from_value(v: Value<'_>) -> Result<Self, String> {
                v.$from()
            }
        }
    )* };
}

stored! {
    u64 => count, count;
    Option<u64> => opt_count, opt_count;
    f64 => real, real;
    Option<f64> => opt_real, opt_real;
    bool => bit, bit;
    Option<bool> => opt_bit, opt_bit;
}

impl Stored for String {
    #[inline(always)]
    fn value(&self) -> Option<Value<'_>> {
        text(self)
    }
    #[inline(always)]
    fn from_value(v: Value<'_>) -> Result<Self, String> {
        v.text()
    }
}

/// A choice (an enum with `ALL` and `as_str`), required or optional, stored by its id.
macro_rules! stored_choices {
    ($($t:ident),* $(,)?) => { $(
        impl Stored for $t {
            #[inline(always)]
            fn value(&self) -> Option<Value<'_>> {
                text(self.as_str())
            }
            #[inline(always)]
            fn from_value(v: Value<'_>) -> Result<Self, String> {
                v.choice($t::ALL, $t::as_str)
            }
        }
        impl Stored for Option<$t> {
            #[inline(always)]
            fn value(&self) -> Option<Value<'_>> {
                opt_choice(*self, $t::as_str)
            }
            #[inline(always)]
            fn from_value(v: Value<'_>) -> Result<Self, String> {
                v.opt_choice($t::ALL, $t::as_str)
            }
        }
    )* };
}

stored_choices!(
    AttentionKernel,
    FfnAct,
    Fp8Recipe,
    Framework,
    FsdpStyle,
    LossKernel,
    MasterWeights,
    MoeDispatcher,
    MoeRouting,
    OptimizerStates,
    Precision,
    Recompute,
    Schedule,
);

/// A part of the scenario that it may not have (the MoE block, latent attention, a custom GPU):
/// an entry written `part: T.field` reads nothing without one (and so is never written to a
/// link), and writing it needs one.
trait Part {
    /// The part, if `s` has it.
    fn of(s: &Scenario) -> Option<&Self>;
    /// The part to write into; `Err` says why `s` has none.
    fn of_mut(s: &mut Scenario) -> Result<&mut Self, String>;
}

impl Part for Moe {
    #[inline(always)]
    fn of(s: &Scenario) -> Option<&Moe> {
        s.model.moe.as_ref()
    }
    fn of_mut(s: &mut Scenario) -> Result<&mut Moe, String> {
        moe_mut(s)
    }
}

impl Part for Mla {
    #[inline(always)]
    fn of(s: &Scenario) -> Option<&Mla> {
        s.model.mla.as_ref()
    }
    fn of_mut(s: &mut Scenario) -> Result<&mut Mla, String> {
        mla_mut(s)
    }
}

impl Part for CustomGpu {
    #[inline(always)]
    fn of(s: &Scenario) -> Option<&CustomGpu> {
        custom_ref(s)
    }
    /// Makes the scenario's GPU a custom one first (a preset becomes its numbers, with no id or
    /// name). Not generic, so it is compiled once rather than once per custom-GPU field (16
    /// copies of the conversion cost the bundle 12 KB).
    fn of_mut(s: &mut Scenario) -> Result<&mut CustomGpu, String> {
        make_custom(&mut s.cluster.gpu);
        match &mut s.cluster.gpu {
            GpuChoice::Custom(c) => Ok(c),
            GpuChoice::Preset(_) => Err("the GPU is not a custom one".into()),
        }
    }
}

/// One scenario field. See the module docs.
#[derive(Clone, Copy)]
pub struct FieldDef {
    /// The typed id.
    pub id: FieldId,
    /// JSON path, e.g. `parallel.tp`; also the form input's id with `.` → `-`.
    pub path: &'static str,
    /// Share-link key, e.g. `tp`.
    pub key: &'static str,
    /// Form label, also the subject of validation messages.
    pub label: &'static str,
    /// Unit shown next to the input ("" for none).
    pub unit: &'static str,
    /// One-line help: what the field does, and what empty means.
    pub help: &'static str,
    /// The values it takes.
    pub kind: Kind,
    /// May be empty ([`Value::Unset`]: the default applies).
    pub optional: bool,
    /// What the form's input shows while an optional field is empty: the default in effect
    /// ("" where there is none to name, or where the form works it out from the scenario).
    pub empty: &'static str,
    /// Its value in a scenario; `None` where it does not apply (a custom GPU's numbers for a
    /// preset GPU, top-k of a dense model) and is never written to a link. Text and lists are
    /// borrowed from the scenario, never allocated.
    pub get: for<'a> fn(&'a Scenario) -> Option<Value<'a>>,
    /// Sets it from a value of its kind; `Err` says why it cannot (then `s` is unchanged).
    pub set: fn(&mut Scenario, Value<'_>) -> Result<(), String>,
}

impl std::fmt::Debug for FieldDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FieldDef")
            .field("path", &self.path)
            .finish()
    }
}

macro_rules! fields {
    (@empty) => { "" };
    (@empty $empty:expr) => { $empty };
    // The JSON path: the one given, or the place an `at:` entry names, `a.b.c` → "a.b.c".
    (@path [$path:literal] []) => { $path };
    (@path [] [$($at:ident).+]) => { fields!(@join $($at).+) };
    (@join $a:ident) => { stringify!($a) };
    (@join $a:ident . $($rest:ident).+) => { concat!(stringify!($a), ".", fields!(@join $($rest).+)) };
    // The accessors: of a plain place (`at:`), of a field of a part the scenario may not have
    // (`part:`, [`Part`]), or written out (`get:` and `set:`). `set` converts first, so a value
    // of the wrong kind leaves the scenario as it was.
    (@get [$($at:ident).+] [] []) => { |s| Stored::value(&s.$($at).+) };
    (@get [] [$part:ident . $($f:ident).+] []) => {
        |s| <$part as Part>::of(s).and_then(|p| Stored::value(&p.$($f).+))
    };
    (@get [] [] [$get:expr]) => { $get };
    (@set [$($at:ident).+] [] []) => { |s, v| { s.$($at).+ = Stored::from_value(v)?; Ok(()) } };
    (@set [] [$part:ident . $($f:ident).+] []) => {
        |s, v| { let x = Stored::from_value(v)?; <$part as Part>::of_mut(s)?.$($f).+ = x; Ok(()) }
    };
    (@set [] [] [$set:expr]) => { $set };
    ($( $(#[$doc:meta])* $id:ident {
        $(path: $path:literal,)? $(at: $($at:ident).+,)?
        key: $key:expr, label: $label:expr, unit: $unit:expr,
        help: $help:expr, kind: $kind:expr, optional: $opt:expr, $(empty: $empty:expr,)?
        $(part: $part:ident . $($pf:ident).+,)?
        $(get: $get:expr, set: $set:expr $(,)?)?
    } )*) => {
        /// A scenario field, the typed key of field errors, form inputs and link keys. Its
        /// definition is [`FieldId::def`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum FieldId {
            $(
                #[doc = concat!("`", fields!(@path [$($path)?] [$($($at).+)?]), "`.")]
                $(#[$doc])*
                $id,
            )*
        }

        /// Every field, in link order (the order of the entries below).
        pub static FIELDS: &[FieldDef] = &[ $( FieldDef {
            id: FieldId::$id,
            path: fields!(@path [$($path)?] [$($($at).+)?]),
            key: $key,
            label: $label,
            unit: $unit,
            help: $help,
            kind: $kind,
            optional: $opt,
            empty: fields!(@empty $($empty)?),
            get: fields!(@get [$($($at).+)?] [$($part . $($pf).+)?] [$($get)?]),
            set: fields!(@set [$($($at).+)?] [$($part . $($pf).+)?] [$($set)?]),
        }, )* ];

        /// Whether every field of `s` is in range: every entry's get and kind check, in one function
        /// the compiler inlines (no indirect calls), for the validation every estimate runs.
        pub fn all_in_range(s: &Scenario) -> bool {
            true $( && ({
                let get: for<'a> fn(&'a Scenario) -> Option<Value<'a>> =
                    fields!(@get [$($($at).+)?] [$($part . $($pf).+)?] [$($get)?]);
                // `get` only borrows from `s` (a test checks it), so there is nothing to drop:
                // skipping the drop glue lets the whole check inline.
                match std::mem::ManuallyDrop::new(get(s)) {
                    ref v if v.is_none() => true,
                    v => v.as_ref().is_none_or(|v| verdict($kind, $opt, v) == Verdict::Ok),
                }
            }) )*
        }
    };
}

impl FieldId {
    /// The field's definition.
    pub fn def(self) -> &'static FieldDef {
        &FIELDS[self as usize]
    }

    /// The field with JSON path `path`.
    pub fn from_path(path: &str) -> Option<FieldId> {
        FIELDS.iter().find(|f| f.path == path).map(|f| f.id)
    }

    /// The field with link key `key` (exact spelling).
    pub fn from_key(key: &str) -> Option<FieldId> {
        FIELDS.iter().find(|f| f.key == key).map(|f| f.id)
    }

    /// The JSON path.
    pub fn path(self) -> &'static str {
        self.def().path
    }
}

const fn count_in(min: u64, max: u64) -> Kind {
    Kind::Count { min, max }
}
const POSITIVE_GBPS: Kind = Kind::Real {
    zero_ok: false,
    max: MAX_GBPS,
};
const PEAK: Kind = Kind::Real {
    zero_ok: false,
    max: 1.0e7,
};

fields! {
    // --- model ---
    ModelName {
        at: model.name, key: "name", label: "Name", unit: "",
        help: "A label for this plan (shown as text only).",
        kind: Kind::Text, optional: true,
    }
    Layers {
        at: model.layers, key: "layers", label: "Layers", unit: "layers",
        help: "Transformer blocks in the model.",
        kind: count_in(1, MAX_LAYERS), optional: false,
    }
    Hidden {
        at: model.hidden, key: "hidden", label: "Hidden size", unit: "dims",
        help: "Width of the residual stream (d_model).",
        kind: count_in(1, MAX_HIDDEN), optional: false,
    }
    Heads {
        at: model.heads, key: "heads", label: "Attention heads", unit: "heads",
        help: "Query heads per layer; must divide the hidden size.",
        kind: count_in(1, MAX_HIDDEN), optional: false,
    }
    KvHeads {
        at: model.kv_heads, key: "kv", label: "KV heads", unit: "heads",
        help: "Key/value heads (GQA); empty = one per attention head (MHA), 1 = MQA.",
        kind: count_in(1, MAX_HIDDEN), optional: true,
    }
    FfnHidden {
        at: model.ffn_hidden, key: "ffn", label: "FFN size", unit: "dims",
        help: "Inner size of the MLP; empty = 4 × hidden.",
        kind: count_in(1, MAX_FFN), optional: true,
    }
    FfnAct {
        at: model.ffn_act, key: "act", label: "FFN activation", unit: "",
        help: "SwiGLU has 3 weight matrices, GELU 2.",
        kind: Kind::Choice(&["gelu", "swiglu"]), optional: false,
    }
    Vocab {
        at: model.vocab, key: "vocab", label: "Vocabulary", unit: "tokens",
        help: "Vocabulary size as trained (incl. padding).",
        kind: count_in(1, MAX_VOCAB), optional: false,
    }
    SeqLen {
        at: model.seq_len, key: "seq", label: "Sequence length", unit: "tokens",
        help: "Tokens per training sequence.",
        kind: count_in(1, MAX_SEQ_LEN), optional: false,
    }
    TiedEmbeddings {
        at: model.tied_embeddings, key: "tied", label: "Tied embeddings", unit: "",
        help: "Output layer shares the input embedding's weights.",
        kind: Kind::Bool, optional: false,
    }
    /// 0 in a link is a dense model.
    Experts {
        path: "model.moe.experts", key: "experts", label: "Experts", unit: "experts",
        help: "Experts per MoE layer; 0 = dense (no MoE).",
        kind: count_in(0, MAX_EXPERTS), optional: false,
        get: |s| count(s.model.moe.map_or(0, |m| m.experts)),
        set: |s, v| {
            let n = v.count()?;
            if n == 0 {
                s.model.moe = None;
            } else if let Some(m) = s.model.moe.as_mut() {
                m.experts = n;
            } else {
                s.model.moe = Some(Moe::new(n, n.min(2), s.model.ffn_hidden().clamp(1, MAX_FFN)));
            }
            Ok(())
        },
    }
    TopK {
        path: "model.moe.top_k", key: "topk", label: "Top-k", unit: "experts/token",
        help: "Experts each token is routed to (default when MoE is switched on: min(2, experts)).",
        kind: count_in(1, MAX_EXPERTS), optional: false,
        part: Moe.top_k,
    }
    ExpertFfn {
        path: "model.moe.expert_ffn_hidden", key: "effn", label: "Expert FFN size", unit: "dims",
        help: "Inner MLP size of one expert (default when MoE is switched on: the FFN size).",
        kind: count_in(1, MAX_FFN), optional: false,
        part: Moe.expert_ffn_hidden,
    }
    HeadDim {
        at: model.head_dim, key: "hdim", label: "Head dimension", unit: "dims",
        help: "Attention head dimension; empty = hidden / heads (Qwen3 and gpt-oss set their own); with MLA the MLA head widths apply instead.",
        kind: count_in(1, MAX_HIDDEN), optional: true,
    }
    MtpLayers {
        at: model.mtp_layers, key: "mtp", label: "MTP modules", unit: "modules",
        help: "Multi-token prediction modules after the last layer (DeepSeek-V3: 1); empty = 0.",
        kind: count_in(0, MAX_MTP_LAYERS), optional: true, empty: "0",
    }
    EmbeddingNorm {
        at: model.embedding_norm, key: "embnorm", label: "Embedding LayerNorm", unit: "",
        help: "A LayerNorm right after the word embedding (BLOOM; Megatron-DeepSpeed --embed-layernorm): it keeps its input for backward on the first stage, outside activation checkpointing; empty = none.",
        kind: Kind::Bool, optional: true,
    }
    /// 0 in a link is standard attention (no MLA).
    MlaKvRank {
        path: "model.mla.kv_lora_rank", key: "mla.kv", label: "MLA KV latent rank", unit: "dims",
        help: "Multi-head latent attention's key/value latent rank (DeepSeek-V3: 512); 0 = standard attention.",
        kind: count_in(0, MAX_HIDDEN), optional: false,
        get: |s| count(s.model.mla.map_or(0, |m| m.kv_lora_rank)),
        set: |s, v| {
            let n = v.count()?;
            if n == 0 {
                s.model.mla = None;
            } else if let Some(m) = s.model.mla.as_mut() {
                m.kv_lora_rank = n;
            } else {
                s.model.mla = Some(Mla { kv_lora_rank: n, ..DEEPSEEK_V3_MLA });
            }
            Ok(())
        },
    }
    MlaQRank {
        path: "model.mla.q_lora_rank", key: "mla.q", label: "MLA query latent rank", unit: "dims",
        help: "Query latent rank (DeepSeek-V3: 1536); 0 = queries projected directly.",
        kind: count_in(0, MAX_HIDDEN), optional: false,
        part: Mla.q_lora_rank,
    }
    MlaNopeDim {
        path: "model.mla.qk_nope_head_dim", key: "mla.nope", label: "MLA non-rotary head dim", unit: "dims",
        help: "Per-head query/key dimension without rotary embedding (DeepSeek-V3: 128).",
        kind: count_in(0, MAX_HIDDEN), optional: false,
        part: Mla.qk_nope_head_dim,
    }
    MlaRopeDim {
        path: "model.mla.qk_rope_head_dim", key: "mla.rope", label: "MLA rotary head dim", unit: "dims",
        help: "Per-head rotary query/key dimension (DeepSeek-V3: 64).",
        kind: count_in(1, MAX_HIDDEN), optional: false,
        part: Mla.qk_rope_head_dim,
    }
    MlaVDim {
        path: "model.mla.v_head_dim", key: "mla.v", label: "MLA value head dim", unit: "dims",
        help: "Per-head value dimension (DeepSeek-V3: 128).",
        kind: count_in(1, MAX_HIDDEN), optional: false,
        part: Mla.v_head_dim,
    }
    SharedExperts {
        path: "model.moe.shared_experts", key: "shexp", label: "Shared experts", unit: "experts",
        help: "Experts every token passes through (DeepSeekMoE); empty = 0.",
        kind: count_in(0, MAX_EXPERTS), optional: true, empty: "0",
        part: Moe.shared_experts,
    }
    SharedExpertFfn {
        path: "model.moe.shared_expert_ffn_hidden", key: "shffn", label: "Shared expert FFN size", unit: "dims",
        help: "Inner MLP size of one shared expert; empty = the expert FFN size.",
        kind: count_in(1, MAX_FFN), optional: true, empty: "= expert FFN",
        part: Moe.shared_expert_ffn_hidden,
    }
    DenseLayers {
        path: "model.moe.dense_layers", key: "dense", label: "Dense first layers", unit: "layers",
        help: "Leading layers with a dense MLP (DeepSeek-V3: 3); empty = 0.",
        kind: count_in(0, MAX_LAYERS), optional: true, empty: "0",
        part: Moe.dense_layers,
    }
    MoeEvery {
        path: "model.moe.moe_every", key: "moeevery", label: "MoE every", unit: "layers",
        help: "Every n-th layer after the dense ones is an MoE layer; empty = 1 (every layer).",
        kind: count_in(1, MAX_LAYERS), optional: true, empty: "1",
        part: Moe.moe_every,
    }
    Imbalance {
        path: "model.moe.imbalance", key: "imbalance", label: "Expert-load imbalance", unit: "× mean",
        help: "Tokens on the busiest expert-parallel rank over the mean; empty = 1 (balanced).",
        kind: Kind::Between { min: 1.0, max: MAX_IMBALANCE }, optional: true, empty: "1",
        part: Moe.imbalance,
    }
    ExpertGroups {
        path: "model.moe.expert_groups", key: "egroups", label: "Expert groups", unit: "groups",
        help: "Group-limited routing: the experts form this many equal groups (DeepSeek-V3: 8); empty = 1 (no groups).",
        kind: count_in(1, MAX_EXPERTS), optional: true, empty: "1",
        part: Moe.expert_groups,
    }
    GroupLimit {
        path: "model.moe.group_limit", key: "glimit", label: "Groups per token", unit: "groups",
        help: "A token's experts come from at most this many groups (DeepSeek-V3: 4); empty = every group.",
        kind: count_in(1, MAX_EXPERTS), optional: true, empty: "all",
        part: Moe.group_limit,
    }
    MoeRouting {
        path: "model.moe.routing", key: "route", label: "Expert routing", unit: "",
        help: "How tokens pick their experts: a learned router (spread over the experts on average) or a benchmark's round-robin gate (token t takes the k consecutive experts from t·k, Automodel's fake_balanced_gate); empty = learned.",
        kind: Kind::Choice(&["learned", "round_robin"]), optional: true,
        part: Moe.routing,
    }
    // --- training ---
    GlobalBatch {
        at: training.global_batch, key: "gbs", label: "Global batch", unit: "sequences",
        help: "Sequences per optimizer step, over all data-parallel ranks.",
        kind: count_in(1, MAX_BATCH), optional: false,
    }
    MicroBatch {
        at: training.micro_batch, key: "mbs", label: "Micro-batch", unit: "sequences",
        help: "Sequences per forward/backward pass on one pipeline.",
        kind: count_in(1, MAX_BATCH), optional: false,
    }
    Precision {
        at: training.precision, key: "prec", label: "Precision", unit: "",
        help: "Number format of GEMMs (mixed precision keeps fp32 master weights; nvfp4 needs Blackwell).",
        kind: Kind::Choice(&["fp32", "fp16", "bf16", "fp8", "nvfp4"]), optional: false,
    }
    /// Adam is the only one: the same in every scenario, so never written to a link; accepted
    /// when given.
    Optimizer {
        path: "training.optimizer", key: "opt", label: "Optimizer", unit: "",
        help: "Adam(W): two fp32 moments per parameter.",
        kind: Kind::Choice(&["adam", "adamw"]), optional: false,
        get: |_| text("adam"),
        set: |_, _| Ok(()),
    }
    Recompute {
        at: training.recompute, key: "recompute", label: "Recompute", unit: "",
        help: "Recompute activations in backward: selective = attention core only, full = whole layers.",
        kind: Kind::Choice(&["none", "selective", "full"]), optional: false,
    }
    FlashAttention {
        at: training.flash_attention, key: "flash", label: "FlashAttention", unit: "",
        help: "Fused attention that never stores the s × s scores.",
        kind: Kind::Bool, optional: false,
    }
    TrainTokens {
        at: training.train_tokens, key: "tokens", label: "Train tokens", unit: "tokens",
        help: "Tokens to train on, for time and cost to train (e.g. 1.5e13); optional.",
        kind: Kind::Real { zero_ok: false, max: 1.0e18 }, optional: true, empty: "not set",
    }
    GradReduceFp32 {
        at: training.grad_reduce_in_fp32, key: "gradfp32", label: "Gradient buffer", unit: "",
        help: "Megatron keeps fp32 main gradients (4 B/param); NeMo's performance recipes keep them in bf16 (2 B); empty = fp32.",
        kind: Kind::Bool, optional: true,
    }
    OptimizerOffload {
        at: training.optimizer_offload, key: "optoff", label: "Optimizer offload", unit: "fraction",
        help: "Share of the fp32 master weights and Adam moments kept in CPU memory (Megatron --optimizer-offload-fraction, ZeRO-Offload), paid in host-link time each step; empty = none.",
        kind: Kind::Between { min: 0.0, max: 1.0 }, optional: true, empty: "none",
    }
    ActivationOffload {
        at: training.activation_offload, key: "actoff", label: "Activation offload", unit: "fraction",
        help: "Share of stored activations parked in CPU memory between forward and backward (Megatron --cpu-offloading); empty = none.",
        kind: Kind::Between { min: 0.0, max: 1.0 }, optional: true, empty: "none",
    }
    Framework {
        at: training.framework, key: "fw", label: "Framework", unit: "",
        help: "The software stack, which decides which kernels and collectives run; empty = Megatron-LM.",
        kind: Kind::Choice(&Framework::NAMES), optional: true,
    }
    Fp8Recipe {
        at: training.fp8_recipe, key: "fp8", label: "FP8 recipe", unit: "",
        help: "How FP8 GEMM inputs are scaled (precision fp8 only); empty = delayed scaling.",
        kind: Kind::Choice(&["delayed", "tensorwise", "rowwise", "blockwise", "mxfp8"]), optional: true,
    }
    AttentionKernel {
        at: training.attention_kernel, key: "attk", label: "Attention kernel", unit: "",
        help: "Fused attention kernel (with flash attention); empty = the framework's (cuDNN for Megatron/JAX on Hopper+, else FlashAttention-2). triton: MPT's Triton kernel (llm-foundry 2023).",
        kind: Kind::Choice(&["fa2", "fa3", "cudnn", "triton"]), optional: true,
    }
    Eager {
        at: training.eager, key: "eager", label: "Eager host", unit: "",
        help: "The CPU issues every operator from Python (eager PyTorch), and the GPU waits when the host is slower; empty = on for the pytorch framework only.",
        kind: Kind::Bool, optional: true,
    }
    RecomputeEarlyStop {
        at: training.recompute_early_stop, key: "rcstop", label: "Recompute stops early", unit: "",
        help: "Full recomputation stops once the backward's saved tensors are rebuilt, skipping the layer's last GEMM (PyTorch's non-reentrant checkpoint, pre-norm layer without dropout); empty = on for PyTorch FSDP (framework pytorch, ZeRO-3), off for the other stacks.",
        kind: Kind::Bool, optional: true,
    }
    LossKernel {
        at: training.loss_kernel, key: "loss", label: "Loss kernel", unit: "",
        help: "Cross-entropy at the loss: unfused = PyTorch on fp32 logits (HF, torchtitan), unfused_16bit = PyTorch on the 16-bit logits with no upcast (NeMo Automodel fp32_upcast: false), vocab_parallel = Megatron-LM's (gradient in place), fused = on the 16-bit logits (flash-attn xentropy, llm-foundry); empty = the framework's.",
        kind: Kind::Choice(&["unfused", "unfused_16bit", "vocab_parallel", "fused"]), optional: true,
    }
    LossChunks {
        at: training.loss_chunks, key: "lossch", label: "Loss chunks", unit: "",
        help: "Sequence chunks the output layer and loss run in, each chunk's forward and backward before the next, so one chunk's logits exist at a time (torchtitan ChunkedLossWrapper: 8); empty = 1 (torchtune's chunked cross-entropy keeps every chunk: 1).",
        kind: count_in(1, MAX_GPUS), optional: true, empty: "1",
    }
    OptimizerStates {
        at: training.optimizer_states, key: "optst", label: "Adam moments", unit: "",
        help: "Number format of Adam's two moments; master weights and gradients keep theirs (DeepSeek-V3: bf16). bf16 = Megatron --use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16 (which then also keeps a bf16 model's fp32 master as 16 remainder bits), torchtitan fused_opt_states_bf16; empty = fp32.",
        kind: Kind::Choice(&["fp32", "bf16"]), optional: true,
    }
    MasterWeights {
        at: training.master_weights, key: "master", label: "Master weights", unit: "",
        help: "The optimizer's master copy of 16-bit parameters: fp32 = whole (4 B), remainder = its low 16 bits next to the bf16 weight (2 B; Megatron --use-precision-aware-optimizer, TE FusedAdam store_param_remainders, as NeMo's performance scripts run bf16), none = no copy, the 16-bit weights are updated in place (0 B; NeMo 1 optim dtype equal to the model's, torchtitan training.dtype bfloat16); empty = remainder with bf16 moments under Megatron-LM, else fp32.",
        kind: Kind::Choice(&["fp32", "remainder", "none"]), optional: true,
    }
    SwigluFp8Input {
        at: training.swiglu_fp8_input, key: "actfp8", label: "SwiGLU input in FP8", unit: "",
        help: "The SwiGLU saves its input (gate and up projections) for backward as FP8, 1 B instead of 2 (Megatron-Core TransformerConfig activation_func_fp8_input_store, no Megatron-LM flag; DeepSeek-V3); empty = off.",
        kind: Kind::Bool, optional: true,
    }
    Dropout {
        at: training.dropout, key: "drop", label: "Dropout", unit: "",
        help: "Hidden, attention and embedding dropout with p > 0, each keeping a 1-byte mask per element for backward (p = 0 keeps none: PyTorch returns the input); empty = off for gated-MLP (SwiGLU) models, whose recipes train without dropout, and for torchtitan and JAX; on for the other models under Megatron-LM, DeepSpeed and PyTorch (their 0.1 defaults).",
        kind: Kind::Bool, optional: true,
    }
    RematSaved {
        path: "training.remat_saved", key: "remat", label: "Remat: saved tensors", unit: "",
        help: "JAX's named remat policy under selective recompute (MaxText remat_policy custom): the tensors each layer keeps besides its input, the rest recomputed in backward: qkv_proj, out_proj, context (attention output), mlpwi, mlpwo; framework jax only; empty = the stack's selective recompute.",
        kind: Kind::Set(RematSaved::IDS), optional: true,
        get: |s| opt_set(s.training.remat_saved.map(|m| m.bits())),
        set: |s, v| { s.training.remat_saved = v.opt_set()?.map(RematSaved::from_bits); Ok(()) },
    }
    MoeProbsInExperts {
        at: training.moe_probs_in_experts, key: "mprob", label: "Routing probabilities in experts", unit: "",
        help: "The routed experts multiply their rows by the routing probabilities inside the activation, so the combine keeps no expert output for backward (Megatron-Core 0.12.1+, !2668); off = the combine keeps one hidden-size row per routed token copy (Megatron-Core 0.12.0 and older, torchtitan); empty = on for Megatron-LM, off for the other stacks.",
        kind: Kind::Bool, optional: true,
    }
    Fp8Params {
        at: training.fp8_params, key: "fp8w", label: "FP8 primary weights", unit: "",
        help: "The GEMM weights are kept as FP8 tensors (data and transpose, no 16-bit copy) and the distributed optimizer gathers them in FP8 (Megatron --fp8-param-gather, NeMo fp8_params; precision fp8, ZeRO 1); empty = off.",
        kind: Kind::Bool, optional: true,
    }
    RecomputeModules {
        path: "training.recompute_modules", key: "rcmod", label: "Recompute modules", unit: "",
        help: "Megatron-LM's --recompute-modules under selective recompute: core_attn, mla_up_proj, layernorm, moe_act, mlp, shared_experts, moe; empty = core_attn for Megatron-LM, per-op checkpointing (torchtitan's policy) for the other stacks with flash attention.",
        kind: Kind::Set(RecomputeModules::IDS), optional: true,
        get: |s| opt_set(s.training.recompute_modules.map(|m| m.bits())),
        set: |s, v| { s.training.recompute_modules = v.opt_set()?.map(RecomputeModules::from_bits); Ok(()) },
    }
    // --- parallel ---
    Tp {
        at: parallel.tp, key: "tp", label: "Tensor parallel (tp)", unit: "GPUs",
        help: "GPUs splitting each layer's matrices; keep inside an NVLink domain.",
        kind: count_in(1, MAX_GPUS), optional: false,
    }
    Pp {
        at: parallel.pp, key: "pp", label: "Pipeline parallel (pp)", unit: "stages",
        help: "Pipeline stages; each holds a slice of the layers.",
        kind: count_in(1, MAX_GPUS), optional: false,
    }
    Dp {
        at: parallel.dp, key: "dp", label: "Data parallel (dp)", unit: "replicas",
        help: "Model replicas; GPUs = tp × pp × dp × cp.",
        kind: count_in(1, MAX_GPUS), optional: false,
    }
    Cp {
        at: parallel.cp, key: "cp", label: "Context parallel (cp)", unit: "GPUs",
        help: "GPUs splitting each sequence (ring attention).",
        kind: count_in(1, MAX_GPUS), optional: false,
    }
    Ep {
        at: parallel.ep, key: "ep", label: "Expert parallel (ep)", unit: "GPUs",
        help: "GPUs the experts are spread over, inside dp (MoE only).",
        kind: count_in(1, MAX_GPUS), optional: false,
    }
    Vp {
        at: parallel.vp, key: "vp", label: "Virtual stages (vp)", unit: "chunks/GPU",
        help: "Model chunks per pipeline rank (interleaved 1F1B shrinks the bubble).",
        kind: count_in(1, MAX_LAYERS), optional: false,
    }
    Sp {
        at: parallel.sp, key: "sp", label: "Sequence parallel", unit: "",
        help: "Megatron SP: split LayerNorm/dropout activations over tp.",
        kind: Kind::Bool, optional: false,
    }
    ZeroStage {
        path: "parallel.zero_stage", key: "zero", label: "ZeRO stage", unit: "",
        help: "Shard over dp: optimizer states (1, Megatron distributed optimizer), + gradients (2), + weights (3, FSDP).",
        kind: count_in(0, 3), optional: false,
        get: |s| count(u64::from(s.parallel.zero_stage)),
        set: |s, v| {
            let z = v.count()?;
            s.parallel.zero_stage = u8::try_from(z).map_err(|_| format!("ZeRO stage {z} does not exist"))?;
            Ok(())
        },
    }
    Schedule {
        at: parallel.schedule, key: "sched", label: "Pipeline schedule", unit: "",
        help: "Default: interleaved when vp > 1, else 1F1B; zb-h1 and zb-v split the backward (Qi et al. 2024), dualpipe and dualpipev run both directions (DeepSeek-V3).",
        kind: Kind::Choice(&["1f1b", "interleaved", "gpipe", "zb-h1", "zb-v", "dualpipe", "dualpipev"]), optional: true,
    }
    LayersPerStage {
        path: "parallel.layers_per_stage", key: "lps", label: "Layers per stage", unit: "layers",
        help: "Optional uneven split, one number per stage: 9,10,10,9; empty = even split.",
        kind: Kind::List { max: MAX_LAYERS }, optional: true,
        get: |s| Some(s.parallel.layers_per_stage.as_deref().map_or(Value::Unset, |l| Value::List(Cow::Borrowed(l)))),
        set: |s, v| { s.parallel.layers_per_stage = v.opt_list()?; Ok(()) },
    }
    BucketMb {
        at: parallel.bucket_mb, key: "bucket", label: "Gradient bucket", unit: "MB",
        help: "Gradient bucket size for DP reduction; empty = framework default.",
        kind: Kind::Real { zero_ok: false, max: 1.0e7 }, optional: true, empty: "framework default",
    }
    TpCommOverlap {
        at: parallel.tp_comm_overlap, key: "tpov", label: "TP comm overlap", unit: "",
        help: "Overlap TP collectives with GEMMs (userbuffers); default off.",
        kind: Kind::Bool, optional: true,
    }
    DpCommOverlap {
        at: parallel.dp_comm_overlap, key: "dpov", label: "DP comm overlap", unit: "",
        help: "Overlap gradient reduction with backward; default on (DeepSpeed: only ZeRO-3).",
        kind: Kind::Bool, optional: true,
    }
    Etp {
        at: parallel.etp, key: "etp", label: "Expert tensor parallel (etp)", unit: "GPUs",
        help: "GPUs splitting each expert's matrices; ep × etp fold over tp × cp × dp; empty = tp.",
        kind: count_in(1, MAX_GPUS), optional: true, empty: "= tp",
    }
    ShardRanks {
        at: parallel.shard_ranks, key: "shard", label: "Shard group", unit: "ranks",
        help: "ZeRO/FSDP shards over this many data-parallel ranks (HSDP), a divisor of dp; empty = all of dp.",
        kind: count_in(1, MAX_GPUS), optional: true, empty: "= dp",
    }
    PpCommOverlap {
        at: parallel.pp_comm_overlap, key: "ppov", label: "PP comm overlap", unit: "",
        help: "Overlap pipeline sends/receives with compute; default: on for Megatron's interleaved schedule, else off.",
        kind: Kind::Bool, optional: true,
    }
    PpRounds {
        at: parallel.pp_rounds, key: "pprounds", label: "Pipeline rounds", unit: "per step",
        help: "Times per step the pipeline schedule runs, each over an equal share of the micro-batches and draining the pipeline (NeMo Automodel: one per gradient-accumulation step); divides the micro-batches; empty = 1.",
        kind: count_in(1, MAX_GPUS), optional: true, empty: "1",
    }
    FsdpStyle {
        at: parallel.fsdp_style, key: "fsdp", label: "ZeRO-3 gathers", unit: "",
        help: "How ZeRO-3/FSDP gathers weights: per parameter tensor (DeepSpeed), per block (FSDP1), per block with copy-out (FSDP2), per parameter with a sync before each (DeepSpeed 2021, v0.3.13-v0.5.4); empty = the framework's.",
        kind: Kind::Choice(&["per_parameter", "per_block", "per_block_copy", "per_parameter_sync"]), optional: true,
    }
    MoeDispatcher {
        at: parallel.moe_dispatcher, key: "disp", label: "MoE dispatcher", unit: "",
        help: "How MoE tokens reach experts on other nodes: an NCCL all-to-all (every routed copy crosses the network) or DeepEP (once per node, then NVLink, once per GPU holding its experts); empty = the framework's (all-to-all).",
        kind: Kind::Choice(&["alltoall", "deepep"]), optional: true,
    }
    MoeDispatchFp8 {
        at: parallel.moe_dispatch_fp8, key: "dfp8", label: "FP8 dispatch", unit: "",
        help: "Send MoE tokens to the experts in FP8 with block scales (1.03 bytes per value) and combine them back in BF16, as DeepSeek-V3 trained; FP8 training only; default off.",
        kind: Kind::Bool, optional: true,
    }
    // --- cluster ---
    /// A preset id or `custom`.
    Gpu {
        path: "cluster.gpu", key: "gpu", label: "GPU", unit: "",
        help: "A GPU preset, or custom numbers.",
        kind: Kind::Gpu, optional: false,
        get: |s| match &s.cluster.gpu {
            GpuChoice::Preset(id) => text(id),
            GpuChoice::Custom(_) => text("custom"),
        },
        set: |s, v| {
            let v = v.text()?;
            if v.eq_ignore_ascii_case("custom") {
                make_custom(&mut s.cluster.gpu);
                return Ok(());
            }
            if gpu_preset(&v).is_none() {
                let known: Vec<&str> = GPU_PRESETS.iter().map(|g| g.id).collect();
                return Err(format!("unknown GPU {}; known: {}, custom", shown(&v), known.join(", ")));
            }
            // Keep the spelling given (lookups are case-insensitive), so links round-trip.
            s.cluster.gpu = GpuChoice::Preset(v);
            Ok(())
        },
    }
    NumGpus {
        at: cluster.num_gpus, key: "gpus", label: "GPUs", unit: "GPUs",
        help: "Total GPUs; changing it recomputes dp.",
        kind: count_in(1, MAX_GPUS), optional: false,
    }
    GpusPerNode {
        at: cluster.gpus_per_node, key: "gpn", label: "GPUs per node", unit: "GPUs",
        help: "GPUs per server: the node count of launch scripts and the scaling chart's TP + DP variant. Which groups stay on NVLink follows the GPU's NVLink domain.",
        kind: count_in(1, 1_000_000), optional: false,
    }
    IntraGbps {
        at: cluster.intra_node_gbps, key: "intra", label: "NVLink per GPU", unit: "GB/s",
        help: "NVLink bandwidth per GPU per direction inside the GPU's NVLink domain; empty = the GPU's.",
        kind: POSITIVE_GBPS, optional: true,
    }
    InterGbps {
        at: cluster.inter_node_gbps, key: "inter", label: "Network per GPU", unit: "GB/s",
        help: "Network bandwidth per GPU per direction between NVLink domains (400 Gb/s = 50 GB/s); empty = the GPU's.",
        kind: POSITIVE_GBPS, optional: true,
    }
    Price {
        at: cluster.price_per_gpu_hour, key: "price", label: "Price", unit: "$/GPU·h",
        help: "Price of one GPU-hour, for the cost to train; optional.",
        kind: Kind::Real { zero_ok: true, max: 1.0e6 }, optional: true, empty: "not set",
    }
    /// A custom GPU's `id`.
    GpuId {
        path: "cluster.gpu.id", key: "gpu.id", label: "GPU id", unit: "",
        help: "Id of the custom GPU.",
        kind: Kind::Text, optional: true,
        part: CustomGpu.id,
    }
    /// A custom GPU's `name`.
    GpuName {
        path: "cluster.gpu.name", key: "gpu.name", label: "GPU name", unit: "",
        help: "Display name of the custom GPU.",
        kind: Kind::Text, optional: true,
        part: CustomGpu.name,
    }
    /// A custom GPU's fp32 peak.
    GpuFp32 {
        path: "cluster.gpu.peak_tflops.fp32", key: "gpu.fp32", label: "Peak fp32", unit: "TFLOP/s",
        help: "fp32 (non-tensor-core) peak; empty = none.",
        kind: PEAK, optional: true, empty: "none",
        part: CustomGpu.spec.peak_tflops.fp32,
    }
    /// A custom GPU's TF32 peak.
    GpuTf32 {
        path: "cluster.gpu.peak_tflops.tf32", key: "gpu.tf32", label: "Peak tf32", unit: "TFLOP/s",
        help: "Dense TF32 tensor-core peak; empty = none.",
        kind: PEAK, optional: true, empty: "none",
        part: CustomGpu.spec.peak_tflops.tf32,
    }
    /// A custom GPU's fp16 peak.
    GpuFp16 {
        path: "cluster.gpu.peak_tflops.fp16", key: "gpu.fp16", label: "Peak fp16", unit: "TFLOP/s",
        help: "Dense fp16 tensor-core peak; empty = none.",
        kind: PEAK, optional: true, empty: "none",
        part: CustomGpu.spec.peak_tflops.fp16,
    }
    /// A custom GPU's bf16 peak.
    GpuBf16 {
        path: "cluster.gpu.peak_tflops.bf16", key: "gpu.bf16", label: "Peak bf16", unit: "TFLOP/s",
        help: "Dense bf16 tensor-core peak; empty = none.",
        kind: PEAK, optional: true, empty: "none",
        part: CustomGpu.spec.peak_tflops.bf16,
    }
    /// A custom GPU's FP8 peak.
    GpuFp8 {
        path: "cluster.gpu.peak_tflops.fp8", key: "gpu.fp8", label: "Peak fp8", unit: "TFLOP/s",
        help: "Dense FP8 tensor-core peak; empty = none.",
        kind: PEAK, optional: true, empty: "none",
        part: CustomGpu.spec.peak_tflops.fp8,
    }
    /// A custom GPU's FP4 (NVFP4) peak.
    GpuFp4 {
        path: "cluster.gpu.peak_tflops.fp4", key: "gpu.fp4", label: "Peak fp4", unit: "TFLOP/s",
        help: "Dense FP4 (NVFP4) tensor-core peak, Blackwell; empty = none.",
        kind: PEAK, optional: true, empty: "none",
        part: CustomGpu.spec.peak_tflops.fp4,
    }
    /// A custom GPU's HBM capacity.
    GpuHbm {
        path: "cluster.gpu.hbm_gib", key: "gpu.mem", label: "HBM capacity", unit: "GiB",
        help: "Memory per GPU.",
        kind: Kind::Real { zero_ok: false, max: 1.0e6 }, optional: false,
        part: CustomGpu.spec.hbm_gib,
    }
    /// A custom GPU's usable memory.
    GpuUsable {
        path: "cluster.gpu.usable_gib", key: "gpu.usable", label: "Usable memory", unit: "GiB",
        help: "What the framework sees (nvidia-smi total); empty = HBM capacity.",
        kind: Kind::Real { zero_ok: false, max: 1.0e6 }, optional: true, empty: "= HBM",
        part: CustomGpu.spec.usable_gib,
    }
    /// A custom GPU's HBM bandwidth.
    GpuMemBw {
        path: "cluster.gpu.hbm_gbps", key: "gpu.membw", label: "HBM bandwidth", unit: "GB/s",
        help: "Memory bandwidth per GPU.",
        kind: POSITIVE_GBPS, optional: false,
        part: CustomGpu.spec.hbm_gbps,
    }
    /// A custom GPU's NVLink bandwidth.
    GpuNvlink {
        path: "cluster.gpu.nvlink_gbps", key: "gpu.nvlink", label: "NVLink", unit: "GB/s",
        help: "NVLink per GPU per direction; empty = none.",
        kind: POSITIVE_GBPS, optional: true, empty: "none",
        part: CustomGpu.spec.nvlink_gbps,
    }
    /// A custom GPU's NVLink domain.
    GpuDomain {
        path: "cluster.gpu.nvlink_domain_gpus", key: "gpu.domain", label: "NVLink domain", unit: "GPUs",
        help: "GPUs sharing one NVLink domain (8 in a DGX, 72 in NVL72); groups inside it use NVLink, larger ones the network.",
        kind: count_in(1, 1_000_000), optional: false,
        part: CustomGpu.spec.nvlink_domain_gpus,
    }
    /// A custom GPU's NIC bandwidth.
    GpuNic {
        path: "cluster.gpu.nic_gbps", key: "gpu.nic", label: "NIC", unit: "GB/s",
        help: "Network per GPU per direction; empty = none.",
        kind: POSITIVE_GBPS, optional: true, empty: "none",
        part: CustomGpu.spec.nic_gbps,
    }
    /// A custom GPU's PCIe bandwidth.
    GpuPcie {
        path: "cluster.gpu.pcie_gbps", key: "gpu.pcie", label: "PCIe", unit: "GB/s",
        help: "PCIe per GPU per direction, used between GPUs without NVLink; empty = none.",
        kind: POSITIVE_GBPS, optional: true,
        part: CustomGpu.spec.pcie_gbps,
    }
    /// A custom GPU's link to host memory.
    GpuHostLink {
        path: "cluster.gpu.host_link_gbps", key: "gpu.host", label: "Host link", unit: "GB/s",
        help: "GPU to CPU memory per direction (PCIe Gen5 x16 = 63, NVLink-C2C = 450), for offloading; empty = the PCIe figure.",
        kind: POSITIVE_GBPS, optional: true, empty: "PCIe figure",
        part: CustomGpu.spec.host_link_gbps,
    }
    // --- overhead ---
    CtxGib {
        at: overhead.cuda_context_gib, key: "ctx", label: "CUDA context", unit: "GiB",
        help: "Per GPU, outside PyTorch's allocator; empty = 1.3.",
        kind: Kind::Real { zero_ok: true, max: 1.0e4 }, optional: true, empty: "1.3",
    }
    CommBufGib {
        at: overhead.comm_buffers_gib, key: "commbuf", label: "NCCL buffers", unit: "GiB",
        help: "Per GPU, all communicators; empty = what NCCL allocates for the ring and tree channels of each parallel group and of the stack's own communicators (12 MiB per connection inside a node, 20 MiB across nodes).",
        kind: Kind::Real { zero_ok: true, max: 1.0e4 }, optional: true, empty: "NCCL's ring and tree buffers",
    }
    ReservePct {
        at: overhead.allocator_reserve_pct, key: "reserve", label: "Allocator reserve", unit: "%",
        help: "Caching-allocator overhead on allocated bytes; empty = 5 %.",
        kind: Kind::Real { zero_ok: true, max: 100.0 }, optional: true, empty: "5",
    }
    // --- calibration (meanings and the reasons for the bounds: scenario::calibration) ---
    CalCompute {
        at: calibration.compute, key: "cal.compute", label: "Compute efficiency factor", unit: "×",
        help: "Fitted from a measured run: multiplies the GPU kernel rates, fused attention too unless its own factor is set (at most 1.35: no kernel beats the data-sheet peak); empty = 1.",
        kind: Kind::Between { min: Calibration::COMPUTE_MIN, max: Calibration::COMPUTE_MAX }, optional: true, empty: "1",
    }
    CalAttention {
        at: calibration.attention, key: "cal.attn", label: "Attention efficiency factor", unit: "×",
        help: "Fitted from a measured run: multiplies the fused-attention kernel rates (0.25-2: backends differ up to 1.8× at one shape); empty = the compute factor.",
        kind: Kind::Between { min: Calibration::ATTENTION_MIN, max: Calibration::ATTENTION_MAX }, optional: true, empty: "compute factor",
    }
    CalNetwork {
        at: calibration.network, key: "cal.network", label: "Network efficiency factor", unit: "×",
        help: "Fitted from a measured run: multiplies every link bandwidth (at most 1.2: NCCL cannot beat the line rate); empty = 1.",
        kind: Kind::Between { min: Calibration::NETWORK_MIN, max: Calibration::NETWORK_MAX }, optional: true, empty: "1",
    }
    CalPrecision {
        at: calibration.precision, key: "cal.prec", label: "Factors measured in", unit: "",
        help: "Training precision of the measured run: the compute factor acts only on plans whose GEMMs run on the same units (tensor cores; fp32: the CUDA cores); empty = every plan.",
        kind: Kind::Choice(&["fp32", "fp16", "bf16", "fp8", "nvfp4"]), optional: true,
    }
    CalMemory {
        at: calibration.memory_gib, key: "cal.mem", label: "Memory offset", unit: "GiB",
        help: "Fitted from a measured peak: added to every stage's allocator reserve; empty = 0.",
        kind: Kind::Between { min: Calibration::MEMORY_MIN_GIB, max: Calibration::MEMORY_MAX_GIB }, optional: true, empty: "0",
    }
}

// ---------------------------------------------------------------------------------------------
// Checking, parsing and formatting values of a kind
// ---------------------------------------------------------------------------------------------

/// Control characters and the bidi controls that can reorder displayed text.
pub(crate) fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether `v` holds a character [`is_unsafe_char`] rejects. ASCII text (model names, GPU ids)
/// is checked byte by byte without decoding: its only unsafe characters are the ASCII controls,
/// as the bidi controls lie outside ASCII.
fn has_unsafe_char(v: &str) -> bool {
    // Printable ASCII, the usual case, in one pass.
    if printable_ascii(v.as_bytes()) {
        return false;
    }
    if v.is_ascii() {
        v.bytes().any(|b| b.is_ascii_control())
    } else {
        v.chars().any(is_unsafe_char)
    }
}

/// Whether every byte of `v` is printable ASCII (`b' '..=b'~'`): eight bytes at a time, the
/// last eight overlapping the word before them (a byte read twice is tested twice), shorter
/// text byte by byte.
fn printable_ascii(v: &[u8]) -> bool {
    let word = |i: usize| {
        v.get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .is_some_and(|w| printable_word(u64::from_le_bytes(w)))
    };
    if v.len() < 8 {
        return v.iter().all(|b| (b' '..=b'~').contains(b));
    }
    let last = v.len() - 8;
    (0..last).step_by(8).all(word) && word(last)
}

/// Whether all eight bytes of `w` lie in `0x20..=0x7E`: none below `0x20` and none above `0x7E`,
/// by the carry tests of "Bit Twiddling Hacks" (S. E. Anderson, "Determine if a word has a byte
/// less than n" and "… greater than n"; exact for any byte values, `n ≤ 128` and `n ≤ 127`).
#[inline(always)]
fn printable_word(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    // `n = 0x7E`: add `127 − n = 1` to every byte.
    let above = (w.wrapping_add(ONES) | w) & HIGH;
    below | above == 0
}

/// A user value shown inside a message: quoted, at most 24 characters, no control characters.
pub(crate) fn shown(v: &str) -> String {
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

/// Shortest text that parses back to exactly `v` (Rust's float printing round-trips); plain
/// decimals for everyday magnitudes, exponent form for the rest.
pub fn fmt_f64(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-4..1e16).contains(&a) {
        Plain(v).to_string()
    } else {
        Exp(v).to_string()
    }
}

/// A whole number in `lo..=hi`, as plain decimal digits.
fn parse_count(v: &str, lo: u64, hi: u64) -> Result<u64, String> {
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

/// A finite number in `(0, hi]` (or `[0, hi]` with `zero_ok`).
fn parse_real(v: &str, zero_ok: bool, hi: f64) -> Result<f64, String> {
    let low = if zero_ok { "from 0" } else { "above 0" };
    let expect = || {
        format!(
            "expected a number {low} up to {}, got {}",
            Plain(hi),
            shown(v)
        )
    };
    // Rust's parser also takes "inf"/"NaN"; require a digit and reject non-finite values.
    if v.is_empty() || v.len() > 40 || !v.bytes().any(|b| b.is_ascii_digit()) {
        return Err(expect());
    }
    match crate::text::parse_f64(v) {
        Some(x) if x.is_finite() && x <= hi && (x > 0.0 || (zero_ok && x == 0.0)) => Ok(x),
        _ => Err(expect()),
    }
}

/// Whether [`text_problem`] finds something wrong with `v` (the test alone, for [`verdict`]).
#[inline]
fn is_bad_text(v: &str) -> bool {
    v.len() > MAX_LABEL_BYTES || has_unsafe_char(v)
}

/// Why `v` is not acceptable text (too long, control characters).
fn text_problem(v: &str) -> Option<String> {
    if v.len() > MAX_LABEL_BYTES {
        Some(format!(
            "the text is {} bytes long; at most {MAX_LABEL_BYTES} are allowed",
            v.len()
        ))
    } else if has_unsafe_char(v) {
        Some("the text contains control characters".into())
    } else {
        None
    }
}

/// What [`verdict`] finds about a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Ok,
    /// Empty, on a field that must be given.
    Missing,
    /// Below the kind's minimum (or not above 0).
    BelowMin,
    /// Above the kind's maximum.
    AboveMax,
    /// Outside a [`Kind::Between`] range (or not finite).
    Outside,
    /// Too long, or control characters.
    BadText,
    /// This list entry is out of range.
    BadEntry(usize),
}

/// The one range rule of every kind: [`FieldDef::check`] words it, [`all_in_range`] only tests it.
#[inline(always)]
fn verdict(kind: Kind, optional: bool, v: &Value) -> Verdict {
    match (kind, v) {
        (_, Value::Unset) if optional => Verdict::Ok,
        (_, Value::Unset) => Verdict::Missing,
        (Kind::Count { min, .. }, Value::Count(x)) if *x < min => Verdict::BelowMin,
        (Kind::Count { max, .. }, Value::Count(x)) if *x > max => Verdict::AboveMax,
        (Kind::Real { zero_ok, max }, Value::Real(x)) => {
            if !x.is_finite() || *x < 0.0 || (*x == 0.0 && !zero_ok) {
                Verdict::BelowMin
            } else if *x > max {
                Verdict::AboveMax
            } else {
                Verdict::Ok
            }
        }
        (Kind::Between { min, max }, Value::Real(x)) if !(min..=max).contains(x) => {
            Verdict::Outside
        }
        (Kind::Text, Value::Text(t)) if is_bad_text(t) => Verdict::BadText,
        (Kind::List { max }, Value::List(l)) => l
            .iter()
            .position(|&x| x == 0 || x > max)
            .map_or(Verdict::Ok, Verdict::BadEntry),
        _ => Verdict::Ok,
    }
}

impl FieldDef {
    /// Reads the link text of a value (`""` is [`Value::Unset`] for an optional field). Errors
    /// are phrases naming what was expected ("expected a whole number from 1 to 100, got \"0\"").
    pub fn parse<'a>(&self, v: &'a str) -> Result<Value<'a>, String> {
        if v.is_empty() && self.optional && !matches!(self.kind, Kind::Text) {
            return Ok(Value::Unset);
        }
        match self.kind {
            Kind::Count { min, max } => parse_count(v, min, max).map(Value::Count),
            Kind::Real { zero_ok, max } => parse_real(v, zero_ok, max).map(Value::Real),
            // May be negative (the calibration's memory offset): parsed here, not by parse_real.
            Kind::Between { min, max } => match crate::text::parse_f64(v) {
                Some(x)
                    if v.len() <= 40
                        && v.bytes().any(|b| b.is_ascii_digit())
                        && x.is_finite()
                        && (min..=max).contains(&x) =>
                {
                    Ok(Value::Real(x))
                }
                _ => Err(format!(
                    "expected a number from {} to {}, got {}",
                    Plain(min),
                    Plain(max),
                    shown(v)
                )),
            },
            Kind::Bool => match v.to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => Ok(Value::Bool(true)),
                "0" | "false" | "no" | "off" => Ok(Value::Bool(false)),
                _ => Err(format!("expected 1 or 0, got {}", shown(v))),
            },
            Kind::Choice(all) => all
                .iter()
                .find(|x| x.eq_ignore_ascii_case(v))
                .map(|x| Value::Text(Cow::Borrowed(*x)))
                .ok_or_else(|| format!("expected one of {}, got {}", all.join(", "), shown(v))),
            Kind::Text => match text_problem(v) {
                Some(why) => Err(why),
                None => Ok(Value::Text(Cow::Borrowed(v))),
            },
            Kind::List { max } => v
                .split(',')
                .map(|x| parse_count(x, 1, max).map_err(|e| format!("in the list: {e}")))
                .collect::<Result<Vec<u64>, String>>()
                .map(|l| Value::List(Cow::Owned(l))),
            Kind::Gpu => Ok(Value::Text(Cow::Borrowed(v))),
            Kind::Set(all) => parse_set(v, all).map(Value::Set),
        }
    }

    /// The link text of a value (the inverse of [`FieldDef::parse`]).
    pub fn format(&self, v: &Value) -> String {
        match v {
            Value::Unset => String::new(),
            Value::Count(x) => x.to_string(),
            Value::Real(x) => fmt_f64(*x),
            Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
            Value::Text(t) => t.to_string(),
            Value::Set(b) => match self.kind {
                Kind::Set(all) => set_names(*b, all).collect::<Vec<_>>().join(","),
                _ => String::new(),
            },
            Value::List(l) => {
                let mut out = String::new();
                for (i, x) in l.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, "{x}");
                }
                out
            }
        }
    }

    /// Whether a value is acceptable for this field: `Err` is a sentence naming the field by its
    /// label ("Tensor parallel (tp) must be at least 1, got 0."). What validation reports for
    /// every field of a scenario.
    pub fn check(&self, v: &Value) -> Result<(), String> {
        let label = self.label;
        match verdict(self.kind, self.optional, v) {
            Verdict::Ok => Ok(()),
            Verdict::Missing => Err(format!("{label} must be given.")),
            Verdict::BelowMin => match (self.kind, v) {
                (Kind::Count { min, .. }, Value::Count(x)) => {
                    Err(format!("{label} must be at least {min}, got {x}."))
                }
                (Kind::Real { zero_ok: true, .. }, Value::Real(x)) => Err(format!(
                    "{label} must be zero or a positive number, got {}.",
                    Plain(*x)
                )),
                (_, v) => Err(format!(
                    "{label} must be a positive number, got {}.",
                    Plain(v.as_f64().unwrap_or(f64::NAN))
                )),
            },
            Verdict::AboveMax => Err(format!(
                "{label} {} is larger than the supported maximum of {}.",
                self.format(v),
                match self.kind {
                    Kind::Count { max, .. } => max.to_string(),
                    Kind::Real { max, .. } => Plain(max).to_string(),
                    _ => String::new(),
                }
            )),
            Verdict::Outside => match self.kind {
                Kind::Between { min, max } => Err(format!(
                    "{label} must be between {} and {}, got {}.",
                    Plain(min),
                    Plain(max),
                    self.format(v)
                )),
                _ => Err(format!("{label} is out of range.")),
            },
            Verdict::BadText => Err(format!(
                "{label}: {}; use plain text.",
                match v {
                    Value::Text(t) => text_problem(t).unwrap_or_default(),
                    _ => String::new(),
                }
            )),
            Verdict::BadEntry(i) => match (self.kind, v) {
                (Kind::List { max }, Value::List(l)) => Err(format!(
                    "{label}: entry {i} is {}; each must be from 1 to {max}.",
                    l[i]
                )),
                _ => Err(format!("{label}: entry {i} is out of range.")),
            },
        }
    }

    /// The value as a number, for numeric inputs (`None`: empty, or not applicable).
    pub fn number(&self, s: &Scenario) -> Option<f64> {
        (self.get)(s).and_then(|v| v.as_f64())
    }

    /// Sets a numeric field from a form's number (`None`: empty). A whole-number field takes the
    /// value rounded; a value its kind does not accept, or empty on a required field, is ignored.
    pub fn set_number(&self, s: &mut Scenario, v: Option<f64>) {
        let value = match (v, self.kind) {
            (None, _) => Value::Unset,
            (Some(x), _) if !x.is_finite() => return,
            (Some(x), Kind::Count { .. }) if x >= 0.0 => Value::Count(x.round() as u64),
            (Some(x), Kind::Real { .. } | Kind::Between { .. }) => Value::Real(x),
            _ => return,
        };
        if self.check(&value).is_ok() {
            let _ = (self.set)(s, value);
        }
    }

    /// Whole numbers only.
    pub fn whole(&self) -> bool {
        matches!(self.kind, Kind::Count { .. })
    }

    /// The numeric range `(min, max, min_excluded)` of a numeric field.
    pub fn range(&self) -> Option<(f64, f64, bool)> {
        match self.kind {
            Kind::Count { min, max } => Some((min as f64, max as f64, false)),
            Kind::Real { zero_ok, max } => Some((0.0, max, !zero_ok)),
            Kind::Between { min, max } => Some((min, max, false)),
            _ => None,
        }
    }

    /// The input's element id (`parallel-tp`).
    pub fn input_id(&self) -> String {
        self.path.replace('.', "-")
    }

    /// What the field takes, for the documentation table.
    pub fn kind_doc(&self) -> String {
        let empty = if self.optional {
            "; empty = default"
        } else {
            ""
        };
        let body = match self.kind {
            Kind::Count { min, max } => format!("whole number {min}..{max}"),
            Kind::Real { zero_ok, max } => {
                let low = if zero_ok { "≥ 0" } else { "> 0" };
                format!("number {low} up to {}", Plain(max))
            }
            Kind::Between { min, max } => format!("number {}..{}", Plain(min), Plain(max)),
            Kind::Bool => "`1` \\| `0`".to_string(),
            Kind::Choice(all) => all
                .iter()
                .map(|x| format!("`{x}`"))
                .collect::<Vec<_>>()
                .join(" \\| "),
            Kind::Text => format!("text, at most {MAX_LABEL_BYTES} bytes"),
            Kind::List { max } => format!("comma-separated whole numbers 1..{max}"),
            Kind::Gpu => "a GPU preset id, or `custom`".to_string(),
            Kind::Set(all) => format!(
                "comma-separated, some of {}",
                all.iter()
                    .map(|x| format!("`{x}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!("{body}{empty}")
    }
}

/// The documentation table of every field (key, path, label, unit, values, help) as Markdown,
/// generated from the table; [`doc`] renders it (kept current by a test).
pub fn markdown_table() -> String {
    let mut out =
        String::from("| key | field | label | unit | values | help |\n|---|---|---|---|---|---|\n");
    for f in FIELDS {
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} | {} | {} |",
            f.key,
            f.path,
            f.label,
            f.unit,
            f.kind_doc(),
            f.help
        );
    }
    out
}

/// Every scenario field: its share-link key, JSON path, form label, unit, values and help.
/// Generated from [`FIELDS`] by [`markdown_table`]; `UPDATE_FIELDS_DOC=1 cargo test --lib
/// fields_doc` rewrites `src/scenario/fields.md` after a change to the table.
///
#[doc = include_str!("fields.md")]
pub mod doc {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_text_check_is_the_character_check() {
        // Every character alone and inside ASCII text: the byte check of ASCII text finds
        // exactly what decoding each character would.
        for c in (0..0x3000).filter_map(char::from_u32) {
            for v in [c.to_string(), format!("a100-{c}-80gb")] {
                assert_eq!(has_unsafe_char(&v), v.chars().any(is_unsafe_char), "{c:?}");
            }
        }
        // Every byte value at every place of text of every length up to 20 (words, the
        // overlapping last word, the short text).
        for len in 1..=20 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut v = vec![b'a'; len];
                    v[at] = b;
                    let want = v.iter().all(|b| (b' '..=b'~').contains(b));
                    assert_eq!(printable_ascii(&v), want, "{len} {at} {b}");
                }
            }
        }
        assert!(!has_unsafe_char("GPT-3 175B"));
        assert!(has_unsafe_char("GPT\u{7f}"));
        assert!(has_unsafe_char("left\u{202E}right"));
    }

    #[test]
    fn fields_doc_is_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/scenario/fields.md");
        let want = markdown_table();
        if std::env::var_os("UPDATE_FIELDS_DOC").is_some() {
            std::fs::write(path, &want).expect("writes fields.md");
        }
        assert_eq!(
            include_str!("fields.md"),
            want,
            "the field table changed: run UPDATE_FIELDS_DOC=1 cargo test --lib fields_doc"
        );
    }

    #[test]
    fn getters_borrow_and_never_allocate() {
        let mut s = crate::presets::default_model_preset().scenario();
        s.parallel.layers_per_stage = Some(vec![16, 16]);
        s.parallel.schedule = Some(Schedule::Gpipe);
        s.training.framework = Some(Framework::Jax);
        let mut custom = s.clone();
        if let Ok(c) = CustomGpu::of_mut(&mut custom) {
            c.name = "x".into();
        }
        for s in [&s, &custom] {
            for f in FIELDS {
                let owned = matches!(
                    (f.get)(s),
                    Some(Value::Text(Cow::Owned(_)) | Value::List(Cow::Owned(_)))
                );
                assert!(!owned, "{} allocates", f.path);
            }
        }
    }

    #[test]
    fn choices_are_the_enums_ids() {
        let ids = |id: FieldId| match id.def().kind {
            Kind::Choice(all) => all.to_vec(),
            _ => Vec::new(),
        };
        let act: Vec<&str> = FfnAct::ALL.iter().map(|x| x.as_str()).collect();
        let prec: Vec<&str> = Precision::ALL.iter().map(|x| x.as_str()).collect();
        let rc: Vec<&str> = Recompute::ALL.iter().map(|x| x.as_str()).collect();
        let sched: Vec<&str> = Schedule::ALL.iter().map(|x| x.as_str()).collect();
        assert_eq!(ids(FieldId::FfnAct), act);
        assert_eq!(ids(FieldId::Precision), prec);
        assert_eq!(ids(FieldId::Recompute), rc);
        assert_eq!(ids(FieldId::Schedule), sched);
        let fw: Vec<&str> = Framework::ALL.iter().map(|x| x.as_str()).collect();
        let fp8: Vec<&str> = Fp8Recipe::ALL.iter().map(|x| x.as_str()).collect();
        assert_eq!(ids(FieldId::Framework), fw);
        assert_eq!(ids(FieldId::Fp8Recipe), fp8);
        let attk: Vec<&str> = AttentionKernel::ALL.iter().map(|x| x.as_str()).collect();
        assert_eq!(ids(FieldId::AttentionKernel), attk);
        let loss: Vec<&str> = LossKernel::ALL.iter().map(|x| x.as_str()).collect();
        assert_eq!(ids(FieldId::LossKernel), loss);
        let optst: Vec<&str> = OptimizerStates::ALL.iter().map(|x| x.as_str()).collect();
        assert_eq!(ids(FieldId::OptimizerStates), optst);
        let master: Vec<&str> = MasterWeights::ALL.iter().map(|x| x.as_str()).collect();
        assert_eq!(ids(FieldId::MasterWeights), master);
        let fsdp: Vec<&str> = FsdpStyle::ALL.iter().map(|x| x.as_str()).collect();
        assert_eq!(ids(FieldId::FsdpStyle), fsdp);
        let disp: Vec<&str> = MoeDispatcher::ALL.iter().map(|x| x.as_str()).collect();
        assert_eq!(ids(FieldId::MoeDispatcher), disp);
        let route: Vec<&str> = MoeRouting::ALL.iter().map(|x| x.as_str()).collect();
        assert_eq!(ids(FieldId::MoeRouting), route);
    }

    #[test]
    fn ids_index_the_table_and_keys_and_paths_are_unique() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert_eq!(f.id as usize, i, "{}", f.path);
            assert_eq!(f.id.def().path, f.path);
            assert_eq!(FieldId::from_path(f.path), Some(f.id));
            assert_eq!(FieldId::from_key(f.key), Some(f.id));
            assert!(!f.label.is_empty() && f.help.ends_with('.'), "{}", f.path);
        }
    }

    #[test]
    fn parse_format_and_check_agree_for_every_kind() {
        let tp = FieldId::Tp.def();
        assert_eq!(tp.parse("8"), Ok(Value::Count(8)));
        assert_eq!(
            tp.parse("0"),
            Err("expected a whole number from 1 to 100000000, got \"0\"".into())
        );
        assert_eq!(
            tp.check(&Value::Count(0)),
            Err("Tensor parallel (tp) must be at least 1, got 0.".into())
        );
        assert_eq!(
            tp.check(&Value::Count(MAX_GPUS + 1)),
            Err(
                "Tensor parallel (tp) 100000001 is larger than the supported maximum of 100000000."
                    .into()
            )
        );
        let bucket = FieldId::BucketMb.def();
        assert_eq!(bucket.parse(""), Ok(Value::Unset));
        assert_eq!(bucket.parse("2.5e1"), Ok(Value::Real(25.0)));
        assert!(bucket.parse("0").is_err() && bucket.parse("NaN").is_err());
        assert_eq!(bucket.format(&Value::Real(25.0)), "25");
        let price = FieldId::Price.def();
        assert_eq!(price.parse("0"), Ok(Value::Real(0.0)));
        assert!(price.check(&Value::Real(-1.0)).is_err());
        let lps = FieldId::LayersPerStage.def();
        assert_eq!(lps.parse("9,10"), Ok(Value::List(vec![9, 10].into())));
        assert_eq!(lps.format(&Value::List(vec![9, 10].into())), "9,10");
        assert!(lps.parse("9,,10").is_err());
        let sched = FieldId::Schedule.def();
        assert_eq!(sched.parse("GPipe"), Ok(Value::text_of("gpipe")));
        assert!(FieldId::Sp.def().parse("maybe").is_err());
        assert!(FieldId::ModelName.def().parse("a\u{202E}b").is_err());
    }

    #[test]
    fn set_number_rounds_whole_numbers_and_ignores_what_the_kind_refuses() {
        let mut s = crate::presets::default_model_preset().scenario();
        FieldId::Tp.def().set_number(&mut s, Some(2.4));
        assert_eq!(s.parallel.tp, 2);
        FieldId::Tp.def().set_number(&mut s, None);
        assert_eq!(s.parallel.tp, 2, "required: empty is ignored");
        FieldId::Tp.def().set_number(&mut s, Some(0.0));
        assert_eq!(s.parallel.tp, 2, "out of range is ignored");
        FieldId::BucketMb.def().set_number(&mut s, Some(40.0));
        assert_eq!(s.parallel.bucket_mb, Some(40.0));
        FieldId::BucketMb.def().set_number(&mut s, None);
        assert_eq!(s.parallel.bucket_mb, None);
    }
}
