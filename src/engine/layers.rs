//! Which layers are dense and which are mixture-of-experts, per pipeline stage, and where the
//! multi-token prediction modules sit.
//!
//! An MoE model (`model.moe`) keeps a dense MLP of `ffn_hidden` in its first `dense_layers`
//! layers and in the layers `moe_every` skips ([`crate::scenario::Moe::is_moe_layer`],
//! Megatron-Core `moe_layer_freq`); DeepSeek-V3 has 3 dense then 58 MoE layers, Llama 4
//! Maverick alternates. Layers are assigned to pipeline chunks in model order
//! ([`crate::engine::layout`]), so a stage's MoE layers are those of its `vp` chunks.
//!
//! Multi-token prediction modules (`model.mtp_layers`, DeepSeek-V3 §2.2) run after the last
//! layer and share its output head, so they live on the last pipeline stage (Megatron-Core
//! places `mtp` in the last stage's model chunk); each is one Transformer layer of the kind of
//! the model's last layer (Megatron-LM `theoretical_memory_usage.py`, `d98e8a6`:
//! `mtp_layer_is_moe = moe_layer_pattern[-1]`) plus a `2h→h` projection and norms.
//!
//! O(vp) per stage, no allocation.

use super::layout::{chunk_layers, chunk_start, DefaultSplit};
use crate::scenario::{Model, Moe, Scenario, Schedule};

/// Layers of each kind in one pipeline stage (or the whole model).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayerMix {
    /// Layers with a dense MLP (every layer of a dense model).
    pub dense: u64,
    /// Layers with a mixture-of-experts MLP.
    pub moe: u64,
    /// Multi-token prediction modules (last stage only).
    pub mtp: u64,
    /// Whether the MTP modules' Transformer layer is an MoE layer.
    pub mtp_moe: bool,
}

impl LayerMix {
    /// Transformer layers of the main model, `dense + moe` (MTP modules not included).
    pub fn layers(&self) -> u64 {
        self.dense + self.moe
    }

    /// Layers of the MoE kind including the MTP modules' layers.
    pub fn moe_with_mtp(&self) -> u64 {
        self.moe + if self.mtp_moe { self.mtp } else { 0 }
    }

    /// Layers of the dense kind including the MTP modules' layers.
    pub fn dense_with_mtp(&self) -> u64 {
        self.dense + if self.mtp_moe { 0 } else { self.mtp }
    }
}

/// MoE layers among the layers `lo..hi` (0-based, model order).
#[inline]
pub fn moe_layers_between(m: &Model, lo: u64, hi: u64) -> u64 {
    match m.moe {
        Some(moe) => moe.moe_layers(hi).saturating_sub(moe.moe_layers(lo)),
        None => 0,
    }
}

/// Whether the model's last layer (and so each MTP module's layer) is an MoE layer.
#[inline]
pub fn last_layer_is_moe(m: &Model) -> bool {
    m.moe
        .is_some_and(|moe| m.layers > 0 && moe.is_moe_layer(m.layers - 1))
}

/// The whole model's layers by kind, MTP modules included.
pub fn model_mix(m: &Model) -> LayerMix {
    let moe = moe_layers_between(m, 0, m.layers);
    LayerMix {
        dense: m.layers - moe.min(m.layers),
        moe,
        mtp: m.mtp_layers(),
        mtp_moe: last_layer_is_moe(m),
    }
}

/// The layers of pipeline rank `stage` by kind (all its chunks), with the MTP modules where the
/// output layer is ([`super::layout::holds_output`]: the last stage; rank 0 for the V-shaped
/// schedules; both end ranks for DualPipe). The rank's chunks follow the schedule
/// ([`super::layout`]): `stage + k·pp` for `k < vp`; in a V (`zb-v`, `dualpipev`) chunks `stage`
/// and `2·pp − 1 − stage`; for DualPipe stages `stage` and `pp − 1 − stage`.
#[inline]
pub fn stage_mix(s: &Scenario, stage: u64) -> LayerMix {
    StageMixer::new(s).mix(stage)
}

/// [`stage_mix`] for every rank of one scenario: what does not depend on the rank is worked
/// out once.
#[derive(Clone, Copy, Debug)]
pub struct StageMixer<'a> {
    m: &'a Model,
    pp: u64,
    vp: u64,
    custom: Option<&'a [u64]>,
    schedule: Schedule,
    /// Layers of every rank when all hold the same number of a dense model's layers (plain
    /// or V-shaped schedule, default split, `L` a multiple of the chunks): `L/pp`.
    even: Option<u64>,
    /// What every rank of an MoE model shares (`None` for a dense model).
    moe: Option<MoeChunks>,
}

/// The chunk numbering of an MoE model's ranks, worked out once for all of them.
#[derive(Clone, Copy, Debug)]
struct MoeChunks {
    /// Chunks per rank in the numbering [`chunk_layers`] and [`chunk_start`] use for the
    /// schedule: 1 for DualPipe's stages, 2 for a V without `layers_per_stage`, else `vp`.
    v: u64,
    /// The default split over those chunks.
    split: DefaultSplit,
    /// Whether the model's last layer, and so each MTP module's, is an MoE layer.
    mtp_moe: bool,
    /// The model's leading dense layers ([`crate::scenario::Moe::dense_layers`]).
    dense_first: u64,
    /// Its MoE layer frequency ([`crate::scenario::Moe::moe_every`]).
    every: u64,
}

impl MoeChunks {
    /// The numbering of `m`'s chunks on `pp` ranks of `vp` chunks under `schedule` (`custom`:
    /// with `layers_per_stage`), for `m`'s MoE block `moe`. Out of line: a dense model's mixer
    /// does without it.
    #[inline(never)]
    fn of(m: &Model, moe: &Moe, pp: u64, vp: u64, custom: bool, schedule: Schedule) -> MoeChunks {
        let v = match schedule {
            Schedule::DualPipe => 1,
            sc if sc.v_shape() && !custom => 2,
            _ => vp,
        };
        MoeChunks {
            v,
            split: DefaultSplit::new(m.layers, pp, v),
            mtp_moe: last_layer_is_moe(m),
            dense_first: moe.dense_layers(),
            every: moe.moe_every(),
        }
    }

    /// MoE layers among the `n` layers from layer `lo` (model order): [`moe_layers_between`]
    /// with the model's MoE fields read once.
    #[inline]
    fn moe_among(&self, lo: u64, n: u64) -> u64 {
        // MoE layers among the first `layers` ([`crate::scenario::Moe::moe_layers`]).
        // (No division for the usual every-layer MoE.)
        let before = |layers: u64| {
            let after = layers.saturating_sub(self.dense_first);
            if self.every == 1 {
                after
            } else {
                after.div_ceil(self.every)
            }
        };
        before(lo.saturating_add(n))
            .saturating_sub(before(lo))
            .min(n)
    }
}

impl<'a> StageMixer<'a> {
    /// The mixer of `s`.
    pub fn new(s: &'a Scenario) -> StageMixer<'a> {
        let m = &s.model;
        let (pp, vp) = (s.parallel.pp.max(1), s.parallel.vp.max(1));
        let custom = s.parallel.layers_per_stage.as_deref();
        let schedule = s.parallel.schedule();
        let chunks = if schedule.v_shape() {
            2 * pp
        } else {
            pp.saturating_mul(vp)
        };
        let even = (m.moe.is_none()
            && custom.is_none()
            && schedule != Schedule::DualPipe
            && m.layers % chunks == 0)
            .then_some(m.layers / pp);
        let moe = m
            .moe
            .map(|moe| MoeChunks::of(m, &moe, pp, vp, custom.is_some(), schedule));
        StageMixer {
            m,
            pp,
            vp,
            custom,
            schedule,
            even,
            moe,
        }
    }

    /// Pipeline ranks.
    pub fn pp(&self) -> u64 {
        self.pp
    }

    /// The schedule in effect.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// Whether every rank holds the same layers but for the MTP modules where the output layer
    /// is (the even split of a dense model).
    pub fn uniform(&self) -> bool {
        self.even.is_some()
    }

    /// The first rank after `stage` that may hold other layers than `stage` (its MTP modules
    /// aside, which follow the output layer): for an every-layer MoE model split by default over
    /// one chunk per rank of a plain pipeline, chunk sizes change only at the split's boundaries
    /// ([`DefaultSplit::next_change`]) and, past the leading dense layers, every layer is an MoE
    /// layer, so whole stretches of ranks hold the same; otherwise the next rank.
    #[inline]
    pub fn next_change(&self, stage: u64) -> u64 {
        match &self.moe {
            Some(mc)
                if self.custom.is_none()
                    && self.vp == 1
                    && mc.v == 1
                    && mc.every == 1
                    && !self.schedule.v_shape()
                    && self.schedule != Schedule::DualPipe
                    && mc.split.start(stage) >= mc.dense_first =>
            {
                mc.split.next_change(stage)
            }
            _ => stage + 1,
        }
    }

    /// The layers of rank `stage` by kind.
    #[inline]
    pub fn mix(&self, stage: u64) -> LayerMix {
        let (m, pp, vp, custom, schedule) = (self.m, self.pp, self.vp, self.custom, self.schedule);
        let last = super::layout::holds_output(pp, schedule, stage);
        let mtp = if last { m.mtp_layers() } else { 0 };
        let Some(chunks) = &self.moe else {
            let dense = match self.even {
                Some(n) if stage < pp => n,
                _ => super::layout::rank_layers(m.layers, pp, vp, custom, schedule, stage),
            };
            return LayerMix {
                dense,
                moe: 0,
                mtp,
                mtp_moe: false,
            };
        };
        self.moe_mix(chunks, stage, mtp)
    }

    /// Under DualPipe, the part of rank `stage`'s layers ([`StageMixer::mix`]) that is model
    /// stage `stage` (the rank's other stage is `pp − 1 − stage`), with the MTP modules when that
    /// stage is the last; the two stages hold different numbers of micro-batches in flight
    /// ([`super::memory::activations::InFlight::dualpipe_counts`]). Empty for other schedules and
    /// for the middle rank of an odd pipeline, whose two stages are one.
    #[inline(always)]
    pub fn dualpipe_near(&self, stage: u64) -> LayerMix {
        if self.schedule != Schedule::DualPipe {
            return LayerMix::default();
        }
        self.dualpipe_near_of(stage)
    }

    /// [`StageMixer::dualpipe_near`] under DualPipe.
    #[inline(never)]
    fn dualpipe_near_of(&self, stage: u64) -> LayerMix {
        let pp = self.pp;
        if stage >= pp || pp - 1 - stage == stage {
            return LayerMix::default();
        }
        let mtp = if stage + 1 == pp {
            self.m.mtp_layers()
        } else {
            0
        };
        let Some(mc) = &self.moe else {
            return LayerMix {
                dense: chunk_layers(self.m.layers, pp, 1, self.custom, stage),
                moe: 0,
                mtp,
                mtp_moe: false,
            };
        };
        // DualPipe numbers one chunk per stage (`mc.v` = 1): the chunk is the stage.
        let (n, moe) = self.chunk_kinds(mc, stage);
        LayerMix {
            dense: n - moe,
            moe,
            mtp,
            mtp_moe: mc.mtp_moe,
        }
    }

    /// [`StageMixer::mix`] of an MoE model: each chunk's layers by kind.
    #[inline(never)]
    fn moe_mix(&self, moe_chunks: &MoeChunks, stage: u64, mtp: u64) -> LayerMix {
        let pp = self.pp;
        let r = stage.min(pp - 1);
        let (mut dense, mut moe) = (0, 0);
        let mut add = |chunk: u64| {
            let (n, e) = self.chunk_kinds(moe_chunks, chunk);
            moe += e;
            dense += n - e;
        };
        match self.schedule {
            Schedule::DualPipe => {
                add(r);
                if pp - 1 - r != r {
                    add(pp - 1 - r);
                }
            }
            sc if sc.v_shape() && self.custom.is_none() => {
                add(r);
                add(2 * pp - 1 - r);
            }
            _ => {
                for k in 0..self.vp {
                    add(r + k * pp);
                }
            }
        }
        LayerMix {
            dense,
            moe,
            mtp,
            mtp_moe: moe_chunks.mtp_moe,
        }
    }

    /// Layers and MoE layers of chunk `chunk` in `moe_chunks`' numbering (the default split
    /// worked out once, else `layers_per_stage`).
    #[inline(always)]
    fn chunk_kinds(&self, moe_chunks: &MoeChunks, chunk: u64) -> (u64, u64) {
        let (n, lo) = match self.custom {
            None => (
                moe_chunks.split.layers(chunk),
                moe_chunks.split.start(chunk),
            ),
            Some(_) => self.custom_chunk(moe_chunks.v, chunk),
        };
        (n, moe_chunks.moe_among(lo, n))
    }

    /// Layers and first layer of chunk `chunk` (of `v` per rank) with `layers_per_stage`.
    #[inline(never)]
    fn custom_chunk(&self, v: u64, chunk: u64) -> (u64, u64) {
        let (layers, pp, custom) = (self.m.layers, self.pp, self.custom);
        (
            chunk_layers(layers, pp, v, custom, chunk),
            chunk_start(layers, pp, v, custom, chunk),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scen(moe: &str, layers: u64, pp: u64, vp: u64, mtp: u64) -> Scenario {
        crate::scenario::from_value(&serde_json::json!({
            "model": {"layers": layers, "hidden": 1024, "heads": 8, "vocab": 1000, "seq_len": 128,
                      "ffn_act": "swiglu", "mtp_layers": mtp,
                      "moe": serde_json::from_str::<serde_json::Value>(moe).unwrap()},
            "training": {"global_batch": 64, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
            "parallel": {"tp": 1, "pp": pp, "dp": 1, "vp": vp},
            "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": pp}
        }))
        .unwrap()
    }

    #[test]
    fn deepseek_v3_dense_first_layers_sit_on_stage_0() {
        // 61 layers, 3 dense, pp 16: the default split (61 = 16·3 + 13) gives stage 0 three
        // layers, all dense; 58 MoE layers in all; one MTP module (MoE) on the last stage.
        let s = scen(
            r#"{"experts":256,"top_k":8,"expert_ffn_hidden":2048,"dense_layers":3}"#,
            61,
            16,
            1,
            1,
        );
        let mixes: Vec<LayerMix> = (0..16).map(|r| stage_mix(&s, r)).collect();
        assert_eq!(mixes[0].dense, 3);
        assert_eq!(mixes[0].moe, 0);
        assert_eq!(mixes.iter().map(|m| m.moe).sum::<u64>(), 58);
        assert_eq!(mixes.iter().map(|m| m.dense).sum::<u64>(), 3);
        assert_eq!(mixes[15].mtp, 1);
        assert!(mixes[15].mtp_moe);
        assert_eq!(mixes[14].mtp, 0);
        assert_eq!(model_mix(&s.model).moe, 58);
    }

    #[test]
    fn every_other_layer_interleaved_chunks() {
        // 48 layers, MoE every 2nd (layers 0, 2, 4, … as Megatron's moe_layer_freq = 2),
        // pp 2 × vp 12: chunks of 2 layers, each one MoE and one dense.
        let s = scen(
            r#"{"experts":128,"top_k":1,"expert_ffn_hidden":8192,"moe_every":2}"#,
            48,
            2,
            12,
            0,
        );
        for r in 0..2 {
            let m = stage_mix(&s, r);
            assert_eq!((m.dense, m.moe), (12, 12));
        }
        // Brute force against is_moe_layer for an odd split.
        let s = scen(
            r#"{"experts":8,"top_k":2,"expert_ffn_hidden":64,"moe_every":3,"dense_layers":2}"#,
            37,
            4,
            3,
            0,
        );
        let moe = s.model.moe.unwrap();
        let mut total = 0;
        for r in 0..4 {
            let m = stage_mix(&s, r);
            total += m.moe;
            let mut want = 0;
            for k in 0..3 {
                let c = r + 4 * k;
                let lo = chunk_start(37, 4, 3, None, c);
                let n = chunk_layers(37, 4, 3, None, c);
                want += (lo..lo + n).filter(|&i| moe.is_moe_layer(i)).count() as u64;
            }
            assert_eq!(m.moe, want, "stage {r}");
        }
        assert_eq!(
            total,
            (0..37).filter(|&i| moe.is_moe_layer(i)).count() as u64
        );
    }
}
