//! Transformer Engine's userbuffers tensor-parallel overlap (`parallel.tp_comm_overlap` on a
//! Megatron-LM/NeMo stack with sequence parallelism), priced by what it runs rather than as a
//! collective that disappears under its neighbouring GEMM.
//!
//! Each linear layer of a TP block picks one of three methods (NVIDIA/TransformerEngine
//! `transformer_engine/pytorch/module/base.py` @d0067d0da, `initialize_ub`: `methods`,
//! `get_default_config`; kernels in `transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp`):
//! - **ring exchange** (`qkv_fprop`, `fc1_fprop`, `proj_dgrad`, `fc2_dgrad`: the sequence-parallel
//!   all-gathers): the GEMM runs as `tp` GEMMs of `1/tp` of the rows, each overlapping one
//!   point-to-point step of the gather on the copy engines (`use_ce` true, `num_sm` 1): no SMs
//!   taken, but `tp − 1` extra kernels, and a step longer than its chunk GEMM shows;
//! - **pipeline** (`proj_fprop`, `fc2_fprop`: the forward reduce-scatters): the GEMM runs as
//!   `num_splits` = 4 chunks, each chunk's reduce-scatter on `num_sm` = 16 SMs overlapping the
//!   next chunk's GEMM; with `set_sm_margin` the GEMMs run on the other SMs for their whole
//!   duration (`CommOverlapCore::initialize`: `_math_sms = sm_count − num_comm_sm`), and the last
//!   chunk's reduce-scatter runs after the last GEMM, exposed (`split_overlap_rs`);
//! - **bulk** (`qkv_dgrad`, `fc1_dgrad`: the re-gather of the layer input for the weight
//!   gradient under the input-gradient GEMM; `qkv_wgrad`, `fc1_wgrad`: the input gradient's
//!   reduce-scatter under the weight-gradient GEMM): the whole collective runs beside the GEMM on
//!   `num_sm` = 16 SMs, the GEMM on the rest (`bulk_overlap`; `set_sm_margin` defaults on for
//!   every method but ring exchange).
//!
//! So backward moves three collectives per block (the gradient's all-gather, the input's
//! re-gather, the input gradient's reduce-scatter), forward two. NeMo's tuned per-model
//! configurations (`nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py`, NVIDIA/NeMo
//! @ea4b47fd) keep the same methods and vary `num_sm` between 1 and 32 per GEMM (e.g. Llama 3.1
//! 405B on H100: pipeline 24 and 8 SMs, bulk 2-24); the engine uses Transformer Engine's
//! defaults, not one model's tuning.

use super::compute::Generation;

/// Chunks of a pipelined GEMM + reduce-scatter (`num_splits`, TE default for `pipeline`).
pub const PIPELINE_SPLITS: f64 = 4.0;
/// SMs a pipelined or bulk userbuffers collective occupies (`num_sm`, TE default 16 for every
/// method but ring exchange), which the overlapped GEMM gives up (`set_sm_margin`).
pub const COMM_SMS: f64 = 16.0;

/// Streaming multiprocessors per GPU of `gen`: V100 80, A100 108, H100 SXM 132 (NVIDIA Volta,
/// Ampere and Hopper architecture whitepapers), B200/GB200 148 (`multi_processor_count` of the
/// B200, e.g. the Purlin collectives paper §5.1, "the B200's 148 SMs").
pub fn sm_count(gen: Generation) -> f64 {
    match gen {
        Generation::Volta => V100_SMS,
        Generation::Ampere => A100_SMS,
        Generation::Hopper => H100_SMS,
        Generation::Blackwell => B200_SMS,
    }
}

/// SMs of a V100 (NVIDIA Volta architecture whitepaper).
pub const V100_SMS: f64 = 80.0;
/// SMs of an A100 (NVIDIA Ampere architecture whitepaper).
pub const A100_SMS: f64 = 108.0;
/// SMs of an H100 SXM (NVIDIA Hopper architecture whitepaper).
pub const H100_SMS: f64 = 132.0;
/// SMs of a B200/GB200 (`multi_processor_count`; Purlin collectives paper §5.1).
pub const B200_SMS: f64 = 148.0;

/// One layer's TP blocks as userbuffers sees them, seconds per micro-batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UbLayer {
    /// TP blocks in the layer (2 for attention + MLP).
    pub blocks: f64,
    /// Tensor-parallel size.
    pub tp: f64,
    /// One block's forward all-gather (of what the recipe gathers, FP8 or 16-bit).
    pub ag_fwd: f64,
    /// One block's backward all-gather of the output gradient.
    pub ag_bwd: f64,
    /// One block's reduce-scatter.
    pub rs: f64,
    /// Forward column-parallel GEMMs of the layer (QKV, FC1), all blocks.
    pub gemm_col: f64,
    /// Forward row-parallel GEMMs of the layer (output projection, FC2), all blocks.
    pub gemm_row: f64,
    /// Fixed cost of one GEMM kernel (launch, tail wave).
    pub kernel_s: f64,
    /// SMs of the GPU ([`sm_count`]).
    pub sms: f64,
}

/// What the overlap costs per micro-batch: exposed collective time, the GEMMs' slowdown on the
/// SMs left to them, and the extra kernels of the split GEMMs, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UbCosts {
    /// Forward: exposed collective time plus the split GEMMs' slowdown and extra kernels.
    pub fwd: f64,
    /// Backward, the same.
    pub bwd: f64,
    /// Every backward collective (three per block).
    pub bwd_total: f64,
}

impl UbLayer {
    /// Slowdown of `gemm` seconds of GEMMs that give up [`COMM_SMS`] SMs for their whole run:
    /// `gemm·m/(S − m)`.
    fn margin_s(&self, gemm: f64) -> f64 {
        gemm * COMM_SMS / (self.sms - COMM_SMS).max(1.0)
    }

    /// Ring exchange of `ag` seconds per block under `gemm` seconds of GEMMs (all blocks): `tp`
    /// chunk GEMMs, each hiding one of the `tp − 1` point-to-point steps; exposed what the steps
    /// take beyond their chunks, plus `tp − 1` extra kernels per block.
    fn ring_exchange_s(&self, ag: f64, gemm: f64) -> f64 {
        let steps = (self.tp - 1.0).max(0.0);
        let hidden_under = gemm * steps / self.tp.max(1.0);
        (self.blocks * ag - hidden_under).max(0.0) + self.blocks * steps * self.kernel_s
    }

    /// Bulk overlap of `coll` seconds per block beside `gemm` seconds of GEMMs (all blocks) on
    /// the SMs the collective leaves: exposed what the collective takes beyond the slowed GEMM,
    /// plus the slowdown.
    fn bulk_s(&self, coll: f64, gemm: f64) -> f64 {
        let slowed = gemm + self.margin_s(gemm);
        (self.blocks * coll - slowed).max(0.0) + self.margin_s(gemm)
    }

    /// The costs of the layer's userbuffers overlap (module docs).
    pub fn costs(&self) -> UbCosts {
        let n = self.blocks;
        // Forward: ring-exchange gathers under the column-parallel GEMMs; pipelined
        // reduce-scatters under the row-parallel GEMMs running on S − m SMs, the last of the
        // chunks exposed, `splits − 1` extra kernels per block.
        let k = PIPELINE_SPLITS;
        let row = self.gemm_row + self.margin_s(self.gemm_row);
        let pipeline = n * self.rs / k
            + (n * self.rs * (k - 1.0) / k - row * (k - 1.0) / k).max(0.0)
            + self.margin_s(self.gemm_row)
            + n * (k - 1.0) * self.kernel_s;
        let fwd = self.ring_exchange_s(self.ag_fwd, self.gemm_col) + pipeline;
        // Backward (each GEMM's input- and weight-gradient GEMMs cost what its forward does):
        // the gradient's ring-exchange gather under the row-parallel input-gradient GEMMs, the
        // input's bulk re-gather under the column-parallel input-gradient GEMMs, the input
        // gradient's bulk reduce-scatter under their weight-gradient GEMMs.
        let bwd = self.ring_exchange_s(self.ag_bwd, self.gemm_row)
            + self.bulk_s(self.ag_fwd, self.gemm_col)
            + self.bulk_s(self.rs, self.gemm_col);
        UbCosts {
            fwd,
            bwd,
            bwd_total: n * (self.ag_bwd + self.ag_fwd + self.rs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100_layer() -> UbLayer {
        // Two blocks, tp 8, 0.3 ms collectives, column GEMMs 3 ms, row GEMMs 1.7 ms.
        UbLayer {
            blocks: 2.0,
            tp: 8.0,
            ag_fwd: 0.3e-3,
            ag_bwd: 0.3e-3,
            rs: 0.3e-3,
            gemm_col: 3.0e-3,
            gemm_row: 1.7e-3,
            kernel_s: 5e-6,
            sms: 132.0,
        }
    }

    #[test]
    fn long_gemms_hide_the_collectives_but_not_the_margin_the_tail_or_the_splits() {
        let c = h100_layer().costs();
        // Forward. Ring exchange: 0.6 ms of gathers under 7/8·3 ms, hidden; 2·7 extra kernels
        // = 70 µs. Pipeline: the row GEMMs on 116 of 132 SMs, 1.7·16/116 = 0.23448 ms slower;
        // the last quarter of 2·0.3 ms exposed, 0.15 ms; the other 0.45 ms hidden under
        // 3/4·1.93448 ms; 2·3 extra kernels, 30 µs.
        let margin_row = 1.7e-3 * 16.0 / 116.0;
        let fwd = 70e-6 + 0.15e-3 + margin_row + 30e-6;
        assert!((c.fwd - fwd).abs() < 1e-12, "{} vs {fwd}", c.fwd);
        assert!((fwd - 0.48448e-3).abs() < 1e-8);
        // Backward: ring exchange under the row GEMMs (0.6 ms under 7/8·1.7 ms: hidden, 70 µs of
        // kernels), two bulk collectives of 0.6 ms each beside the column GEMMs, each slowing
        // them by 3·16/116 = 0.41379 ms.
        let margin_col = 3.0e-3 * 16.0 / 116.0;
        let bwd = 70e-6 + 2.0 * margin_col;
        assert!((c.bwd - bwd).abs() < 1e-12, "{} vs {bwd}", c.bwd);
        // Three collectives per block backward.
        assert!((c.bwd_total - 1.8e-3).abs() < 1e-15);
    }

    #[test]
    fn short_gemms_expose_what_they_cannot_cover() {
        // Collectives of 2 ms per block against the same GEMMs.
        let l = UbLayer {
            ag_fwd: 2e-3,
            ag_bwd: 2e-3,
            rs: 2e-3,
            ..h100_layer()
        };
        let c = l.costs();
        // Forward ring exchange: 4 ms − 7/8·3 ms = 1.375 ms exposed + 70 µs. Pipeline: last
        // quarter 1 ms, then 3 ms − 3/4·(1.7 + 0.23448) ms = 1.54914 ms, + margin + 30 µs.
        let margin_row = 1.7e-3 * 16.0 / 116.0;
        let pipeline = 1e-3 + (3e-3 - 0.75 * (1.7e-3 + margin_row)) + margin_row + 30e-6;
        let fwd = 1.375e-3 + 70e-6 + pipeline;
        assert!((c.fwd - fwd).abs() < 1e-12, "{} vs {fwd}", c.fwd);
        // Backward bulk: 4 ms beside 3 ms + margin: each exposes 4 − 3.41379 ms, plus margin.
        let margin_col = 3.0e-3 * 16.0 / 116.0;
        let bulk = (4e-3 - 3e-3 - margin_col) + margin_col;
        let ring = 4e-3 - 7.0 / 8.0 * 1.7e-3 + 70e-6;
        assert!((c.bwd - (ring + 2.0 * bulk)).abs() < 1e-12, "{}", c.bwd);
    }

    #[test]
    fn blackwell_gives_up_a_smaller_share_of_its_sms() {
        assert_eq!(sm_count(Generation::Hopper), 132.0);
        let b = UbLayer {
            sms: sm_count(Generation::Blackwell),
            ..h100_layer()
        };
        assert!(b.costs().fwd < h100_layer().costs().fwd);
    }
}
