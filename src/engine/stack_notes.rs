//! What a plan needs from the software stack's version: kernels the engine prices as the
//! current releases run them, but that an older container does not have, each with what the
//! same plan costs on the older path (the same estimate with the fallback mechanism). Shown
//! under the verdict ([`super::advice::Verdict::stack_notes`]), so a planner on an older
//! container is not surprised.
//!
//! Rules, each from the code that decides it:
//! - Multi-head latent attention on Blackwell under Transformer Engine (`training.framework`
//!   `megatron`, cuDNN fused attention): TE chooses cuDNN's fused kernel on Blackwell only for
//!   head dims up to 128 until TE 71c76b6ba (2025-06-14, "Add support for head_dim > 128") with
//!   cuDNN 9.11 ("9.11: d_qk = 192, d_v = 128 + Blackwell + bprop",
//!   `transformer_engine/common/fused_attn/fused_attn.cpp` @d0067d0; at bee4649c, the TE of
//!   NeMo's 25.04 container, `!(sm_arch_ >= 100 && (head_dim_qk > 128 || head_dim_v > 128))`),
//!   and FlashAttention takes no `head_dim_qk != head_dim_v`
//!   (`pytorch/dot_product_attention/utils.py`), so older stacks run MLA's attention unfused
//!   (DeepSeek-V3's query/key heads are 128 + 64 = 192 wide; attention.md §2).

use super::estimate::estimate;
use super::framework::LayerLibrary;
use super::time::attention::AttentionKernel;
use super::time::compute::Generation;
use super::time::stack::Stack;
use crate::scenario::Scenario;
use serde::Serialize;

/// One requirement of the plan on its stack, and the plan's cost without it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StackNote {
    /// What the plan needs and what an older stack does instead.
    pub text: String,
    /// Step time on the older path, s.
    pub step_s: f64,
    /// Peak per-GPU memory on the older path, bytes.
    pub peak_bytes: f64,
    /// Whether the plan still fits on the older path.
    pub fits: bool,
}

/// The notes for plan `s` (empty for most plans; each note costs one more estimate, only when
/// its rule applies).
pub fn stack_notes(s: &Scenario) -> Vec<StackNote> {
    let mut out = Vec::new();
    if let Some((qk, v)) = mla_unfused_before_te_2_5(s) {
        let mut old = s.clone();
        old.training.flash_attention = false;
        if let Ok(o) = estimate(&old) {
            out.push(StackNote {
                text: format!(
                    "MLA's heads ({qk} wide for query/key, {v} for values) run in cuDNN's fused \
                     attention on Blackwell from Transformer Engine 2.5 with cuDNN 9.11; older \
                     containers (NeMo 25.04) run them unfused"
                ),
                step_s: o.time.step_s,
                peak_bytes: o.memory.peak_bytes,
                fits: o.memory.fits,
            });
        }
    }
    out
}

/// Widest head Transformer Engine's cuDNN fused attention ran on Blackwell before TE 2.5.
const TE_CUDNN_MAX_HEAD_DIM: u64 = 128;

/// The query/key and value head widths of `s`'s multi-head latent attention when it runs wider
/// than 128 through Transformer Engine's cuDNN kernel on Blackwell.
fn mla_unfused_before_te_2_5(s: &Scenario) -> Option<(u64, u64)> {
    let mla = s.model.mla?;
    let (qk, v) = (mla.qk_nope_head_dim + mla.qk_rope_head_dim, mla.v_head_dim);
    let gpu = s.cluster.gpu_spec()?;
    // The kernel the stack runs: the field, else the framework's default (`Stack::of`).
    let applies = (qk > TE_CUDNN_MAX_HEAD_DIM || v > TE_CUDNN_MAX_HEAD_DIM)
        && s.training.flash_attention
        && s.training.framework().traits().layers == LayerLibrary::TransformerEngine
        && Generation::of(&gpu) == Generation::Blackwell
        && Stack::of(s, &gpu).attention == AttentionKernel::Cudnn;
    applies.then_some((qk, v))
}
