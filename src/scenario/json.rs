//! The scenario's JSON (the `DESIGN.md` format), read and written through the field table.
//!
//! Every leaf of a scenario file is a field of [`FIELDS`](super::FIELDS): its JSON path is the
//! field's `path` (`parallel.tp`, `cluster.gpu.peak_tflops.bf16`), its JSON value is the field's
//! [`Value`](super::Value) of its [`Kind`](super::Kind), and the reader [`set`](super::FieldDef::set)s
//! it, the writer [`get`](super::FieldDef::get)s it, in table order. So a field added to the
//! table is read and written with no other change, and the app, share links, validation and JSON
//! agree on its name.
//!
//! The objects between the leaves are described once, in [`NESTED`]: the four required sections,
//! the two optional ones, and the optional sub-objects (`model.moe`, `model.mla`, a custom
//! `cluster.gpu` and its `peak_tflops`), with how each is opened and whether it is there.
//!
//! What is not a field:
//! - the fields a file must give ([`required`]: `DESIGN.md`'s list; every other field has a
//!   default and may be left out);
//! - `cluster.gpu` is a preset id (any text: validation names an unknown one) or a custom GPU
//!   object;
//! - a custom GPU copied from the validation data's `gpus.json` may carry its bookkeeping keys
//!   ([`GPU_BOOKKEEPING`]): accepted and ignored.
//!
//! Children: [`parse`] (JSON text in), [`read`] (a scenario from a parsed value), [`write`] (a
//! scenario as a JSON tree), [`text`] (JSON text out).

pub mod parse;
pub(crate) mod read;
pub mod text;
pub(crate) mod write;

use super::{CustomGpu, FieldId, GpuChoice, GpuSpec, Mla, Moe, Scenario};

/// One object of the scenario file that is not a field itself.
pub(crate) struct Nested {
    /// Its JSON path.
    pub path: &'static str,
    /// A file must have it (`false`: it may be left out, or be `null` when `nullable`).
    pub required: bool,
    /// `null` means absent (`"moe": null`).
    pub nullable: bool,
    /// The writer writes an absent one as `null` (else leaves it out).
    pub null_when_absent: bool,
    /// Whether `s` has it (the writer writes its fields only then).
    pub present: fn(&Scenario) -> bool,
    /// Makes it present with every field zero or default, before the reader sets its fields.
    pub open: fn(&mut Scenario),
    /// Makes it absent (`null`).
    pub close: fn(&mut Scenario),
}

fn always(_: &Scenario) -> bool {
    true
}
fn nothing(_: &mut Scenario) {}

fn custom(s: &Scenario) -> bool {
    matches!(s.cluster.gpu, GpuChoice::Custom(_))
}

/// A required object that every scenario has (a section): the start of every entry.
const fn section(path: &'static str) -> Nested {
    Nested {
        path,
        required: true,
        nullable: false,
        null_when_absent: false,
        present: always,
        open: nothing,
        close: nothing,
    }
}

/// Every object between the fields, parents before children.
pub(crate) static NESTED: &[Nested] = &[
    section("model"),
    Nested {
        required: false,
        nullable: true,
        null_when_absent: true,
        present: |s| s.model.moe.is_some(),
        open: |s| s.model.moe = Some(Moe::new(0, 0, 0)),
        close: |s| s.model.moe = None,
        ..section("model.moe")
    },
    Nested {
        required: false,
        nullable: true,
        present: |s| s.model.mla.is_some(),
        open: |s| {
            s.model.mla = Some(Mla {
                q_lora_rank: 0,
                kv_lora_rank: 0,
                qk_nope_head_dim: 0,
                qk_rope_head_dim: 0,
                v_head_dim: 0,
            })
        },
        close: |s| s.model.mla = None,
        ..section("model.mla")
    },
    section("training"),
    section("parallel"),
    section("cluster"),
    // As an object: a custom GPU. Its text form is the field `cluster.gpu`.
    Nested {
        present: custom,
        open: |s| {
            let spec = GpuSpec {
                hbm_gib: 0.0,
                hbm_gbps: 0.0,
                ..GpuSpec::fallback()
            };
            s.cluster.gpu =
                GpuChoice::Custom(CustomGpu::from_spec(String::new(), String::new(), spec));
        },
        ..section("cluster.gpu")
    },
    Nested {
        present: custom,
        ..section("cluster.gpu.peak_tflops")
    },
    Nested {
        required: false,
        present: |s| !s.overhead.is_default(),
        ..section("overhead")
    },
    Nested {
        required: false,
        present: |s| !s.calibration.is_default(),
        ..section("calibration")
    },
];

/// The object at `path`, if it is one of [`NESTED`].
pub(crate) fn nested(path: &str) -> Option<&'static Nested> {
    NESTED.iter().find(|n| n.path == path)
}

/// Whether a file must give `id` (when its object is there): the fields `DESIGN.md` lists as
/// required, the identity of an MoE or MLA block, and a custom GPU's memory. Every other field
/// has a documented default.
pub(crate) fn required(id: FieldId) -> bool {
    use FieldId::*;
    matches!(
        id,
        Layers
            | Hidden
            | Heads
            | Vocab
            | SeqLen
            | Experts
            | TopK
            | ExpertFfn
            | MlaKvRank
            | MlaQRank
            | MlaNopeDim
            | MlaRopeDim
            | MlaVDim
            | GlobalBatch
            | MicroBatch
            | Precision
            | Recompute
            | Tp
            | Pp
            | Dp
            | Gpu
            | NumGpus
            | GpuHbm
            | GpuMemBw
    )
}

/// Keys of a `gpus.json` entry that describe where its numbers come from; a custom GPU may carry
/// them and the reader ignores them.
pub(crate) const GPU_BOOKKEEPING: &[&str] = &[
    "peak_tflops_bounds",
    "peak_tflops_for_mfu",
    "source",
    "confidence",
    "unverified",
    "notes",
];

/// The key of `path` directly under `parent` (`""`: the top), if `path` is below it:
/// `child("model", "model.moe.top_k") == Some("moe")`.
pub(crate) fn child<'a>(parent: &str, path: &'a str) -> Option<&'a str> {
    let rest = if parent.is_empty() {
        path
    } else {
        path.strip_prefix(parent)?.strip_prefix('.')?
    };
    Some(rest.split('.').next().unwrap_or(rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::MODEL_PRESETS;
    use crate::scenario::{from_value, parse, FIELDS};
    use serde_json::json;

    /// A scenario with every optional field set and a custom GPU with every number.
    fn everything() -> Scenario {
        let link = "v=1&model=deepseek-v3&kv=8&ffn=1000&tokens=1e12&gradfp32=0&optoff=0.5\
            &actoff=0.25&fw=deepspeed&fp8=mxfp8&attk=fa3&eager=1&rcstop=1&rcmod=mla_up_proj,moe_act&loss=fused&lossch=4&optst=bf16&master=remainder&actfp8=1&drop=0&remat=qkv_proj,out_proj&mprob=0&fp8w=1&hdim=64&mtp=1&embnorm=1&shexp=2&shffn=512&dense=1\
            &moeevery=2&imbalance=1.5&egroups=8&glimit=4&route=round_robin&sched=gpipe&lps=31,30&bucket=40&tpov=1&dpov=0&etp=1\
            &shard=2&ppov=1&pprounds=2&fsdp=per_block&disp=deepep&dfp8=1&intra=100&inter=50&price=2.5&gpu=custom\
            &gpu.id=x&gpu.name=X&gpu.fp32=1&gpu.tf32=2&gpu.fp16=3&gpu.bf16=4&gpu.fp8=5&gpu.fp4=6\
            &gpu.usable=70&gpu.nvlink=400&gpu.nic=50&gpu.pcie=60&gpu.host=70&ctx=1&commbuf=0.5\
            &reserve=4&cal.compute=0.9&cal.attn=1.2&cal.network=0.8&cal.prec=bf16&cal.mem=-1";
        let d = crate::share::decode(link).unwrap();
        assert!(d.notices.is_empty(), "{:?}", d.notices);
        d.scenario
    }

    #[test]
    fn every_preset_and_every_field_read_back_as_written() {
        let mut all: Vec<Scenario> = MODEL_PRESETS.iter().map(|p| p.scenario()).collect();
        all.push(everything());
        for s in &all {
            assert_eq!(parse(&s.to_json_pretty()).as_ref(), Ok(s));
            assert_eq!(parse(&s.to_json_node().to_compact()).as_ref(), Ok(s));
        }
        // Every field of the table is written where it applies.
        let v: serde_json::Value = serde_json::from_str(&everything().to_json_pretty()).unwrap();
        for f in FIELDS {
            let pointer = format!("/{}", f.path.replace('.', "/"));
            assert!(v.pointer(&pointer).is_some(), "{} is not written", f.path);
        }
    }

    #[test]
    fn the_field_that_switches_a_block_off_in_a_link_comes_first() {
        // The reader opens the block again after such a field (read.rs): fields before it
        // would be lost.
        for (block, first) in [
            ("model.moe", FieldId::Experts),
            ("model.mla", FieldId::MlaKvRank),
        ] {
            let f = FIELDS.iter().find(|f| child(block, f.path).is_some());
            assert_eq!(f.map(|f| f.id), Some(first), "{block}");
        }
        let v = json!({
            "model": {"layers": 2, "hidden": 8, "heads": 2, "vocab": 10, "seq_len": 4,
                      "moe": {"experts": 0, "top_k": 1, "expert_ffn_hidden": 8},
                      "mla": {"q_lora_rank": 0, "kv_lora_rank": 0, "qk_nope_head_dim": 1,
                              "qk_rope_head_dim": 1, "v_head_dim": 1}},
            "training": {"global_batch": 1, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
            "parallel": {"tp": 1, "pp": 1, "dp": 1},
            "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 1}
        });
        let s = from_value(&v).unwrap();
        assert_eq!(s.model.moe.map(|m| (m.experts, m.top_k)), Some((0, 1)));
        assert_eq!(
            s.model.mla.map(|m| (m.kv_lora_rank, m.v_head_dim)),
            Some((0, 1))
        );
    }

    #[test]
    fn shape_errors_name_the_field_and_the_reason() {
        let base = || {
            json!({
                "model": {"layers": 2, "hidden": 8, "heads": 2, "vocab": 10, "seq_len": 4},
                "training": {"global_batch": 1, "micro_batch": 1, "precision": "bf16",
                             "recompute": "none"},
                "parallel": {"tp": 1, "pp": 1, "dp": 1},
                "cluster": {"gpu": {"peak_tflops": {"bf16": 1}, "hbm_gib": 1, "hbm_gbps": 1,
                                    "source": "gpus.json", "unverified": ["x"]}, "num_gpus": 1}
            })
        };
        assert!(
            from_value(&base()).is_ok(),
            "gpus.json bookkeeping keys are ignored"
        );
        let cases: [(&str, serde_json::Value, &str, &str); 8] = [
            (
                "/parallel/layers_per_stage",
                json!([1, -2]),
                "parallel.layers_per_stage[1]",
                "invalid type: integer `-2`, expected a whole number.",
            ),
            (
                "/parallel/tp",
                json!(2.5),
                "parallel.tp",
                "invalid type: floating point `2.5`, expected a whole number.",
            ),
            (
                "/model/layers",
                json!(null),
                "model.layers",
                "invalid type: null, expected a whole number.",
            ),
            (
                "/parallel/bucket_mb",
                json!("40"),
                "parallel.bucket_mb",
                "invalid type: string \"40\", expected a number.",
            ),
            (
                "/training/precision",
                json!("fp4"),
                "training.precision",
                "unknown variant `fp4`, expected one of `fp32`, `fp16`, `bf16`, `fp8`, `nvfp4`.",
            ),
            (
                "/model/moe",
                json!({"experts": 8, "top_k": 2}),
                "model.moe",
                "missing field `expert_ffn_hidden`.",
            ),
            (
                "/cluster/gpu/peak_tflops",
                json!([]),
                "cluster.gpu.peak_tflops",
                "invalid type: sequence, expected an object.",
            ),
            (
                "/overhead",
                json!({"ctx": 1}),
                "overhead.ctx",
                "unknown field `ctx`, expected one of `cuda_context_gib`, `comm_buffers_gib`, \
              `allocator_reserve_pct`.",
            ),
        ];
        for (pointer, value, field, message) in cases {
            let mut v = base();
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            v.pointer_mut(parent).unwrap()[key] = value;
            let e = from_value(&v).unwrap_err();
            assert_eq!(
                (e.issues[0].field.as_str(), e.issues[0].message.as_str()),
                (field, message)
            );
        }
    }
}
