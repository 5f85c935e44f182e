//! PyTorch's ring attention (`context_parallel`, [`CpMechanism::TorchRing`]): what it costs
//! beyond the attention kernels, per layer and micro-batch on one GPU.
//!
//! Read from `torch/distributed/tensor/experimental/_attention.py` (pytorch/pytorch @0123248a;
//! the late-2024 version torchtitan's published runs used has the same loop, merger and
//! rotaters), `_templated_ring_attention` and `_templated_ring_attention_backward`:
//! - each of the `c` ring steps is one SDPA call; its output is merged into the running output
//!   in fp32 (`_SDPAMerger`, `convert_to_f32 = True`): the block output is cast up, then
//!   `out − sigmoid(lse_b − lse)·(out − out_b)` runs as separate element-wise kernels; a step
//!   that computes only the second half of the queries (`i > rank`, load balancing) merges that
//!   half and concatenates it back into a full-size copy (`_partial_update`, `torch.cat`);
//! - before every step but the last, K and V are concatenated into one send buffer;
//! - the forward exchange: one all-gather of every rank's K/V, issued before step 0 and waited
//!   for at step 1 (`_AllGatherRotater`), so only the causal local step hides it;
//! - the backward keeps fp32 accumulators for dQ, dK, dV (`zeros_like(…, float32)`), adds each
//!   step's gradients into them (half-size steps again through `_partial_update`), concatenates
//!   dK and dV into a send buffer after every step and passes it to the next rank
//!   (`_AllToAllRotater`, `permute_tensor`); step `i + 1`'s kernel hides step `i`'s send; the
//!   last send is waited for right after the loop, exposed.
//!
//! Element-wise kernels run at HBM bandwidth (one read or write of every operand, as eager
//! PyTorch launches them). `torch.compile` may fuse some of them; the count is the eager one.

use super::comm::Group;
use super::cp_exchange::CpCosts;
use super::inputs::Inputs;
use super::stack::CpMechanism;
use crate::scenario::Recompute;

/// fp32 accumulator bytes per element (`_ContextParallelOptions.convert_to_f32`).
const F32: f64 = 4.0;

/// Forward merge bytes per element of the local attention output, per ring step after the
/// first, averaged over the ranks of the group. A full step (`i ≤ rank`): cast the block
/// output to fp32 (read 2 + write 4 bytes), `out − out_b` (4 + 4 + 4), the product with
/// `sigmoid(lse_b − lse)` (4 + 4; the `lse` terms are `d_h` times smaller), `out − product`
/// (4 + 4 + 4): 38. A half step (`i > rank`): the same on half the rows (19) plus the
/// concatenation back into a full fp32 copy (4 + 4): 27. Rank `r` runs `r` full and
/// `c − 1 − r` half steps, so over the group half of each: `(38 + 27)/2 = 32.5`.
pub const MERGE_FWD_PER_OUT: f64 = 32.5;

/// Forward bytes per output element outside the loop: step 0's cast to fp32 (2 + 4) and the
/// final cast of the merged output back to 16 bits (4 + 2).
pub const MERGE_FWD_FIXED_PER_OUT: f64 = 12.0;

/// K/V send-buffer concatenation per step (all but the last), bytes per element of one of K or
/// V (16-bit): read K and V, write both (2·2 + 2·2).
pub const KV_CAT_PER_KV: f64 = 8.0;

/// Backward bytes per element of one of K or V, per ring step after the first, averaged over
/// the group: the dK and dV accumulations (a full step: fp32 `+=` of the 16-bit step gradient,
/// read 4 + 2, write 4, for each of dK and dV: 20; a half-key step `i ≤ rank`: the add on half
/// the rows (10) plus the concatenation of both full fp32 tensors (16): 26; mean 23), the
/// K/V send buffer (8, [`KV_CAT_PER_KV`]) and the dK/dV send buffer (read and write both fp32
/// tensors: 16).
pub const BWD_STEP_PER_KV: f64 = 23.0 + KV_CAT_PER_KV + 16.0;

/// Backward bytes per element of one of K or V outside the loop: zero-filling the fp32 dK, dV
/// (8), step 0's accumulation (20) and send buffer (16), the cast of the received fp32 dK/dV
/// back to 16 bits (read 8, write 4 = 12).
pub const BWD_FIXED_PER_KV: f64 = 8.0 + 20.0 + 16.0 + 12.0;

/// Backward bytes per query element per ring step after the first, averaged over the group:
/// the fp32 dQ `+=` (read 4 + 2, write 4 = 10) on a full step, on half the rows plus the
/// concatenation (5 + 8 = 13) on a half step: 11.5; and the passes every FlashAttention-2
/// backward call makes around its kernel, once per call instead of once per layer: `dot(dO, O)`
/// reads dO and O and zero-fills the fp32 dQ accumulator (2 + 2 + 4), the conversion reads it
/// and writes dQ (4 + 2), 14 bytes per query of the call (flash-attention
/// `csrc/flash_attn/flash_api.cpp` `mha_bwd`, `src/flash_bwd_launch_template.h`
/// `flash_bwd_dot_do_o_kernel<Clear_dQaccum>`, `flash_bwd_convert_dq_kernel` @0251105), a call
/// holding all the queries on a full step and half on a half step: `0.75·14 = 10.5`.
pub const BWD_STEP_PER_Q: f64 = 11.5 + 10.5;

/// Backward bytes per query element outside the loop: zero-filling dQ (4), step 0's `+=` (10),
/// the cast back to 16 bits (4 + 2).
pub const BWD_FIXED_PER_Q: f64 = 4.0 + 10.0 + 6.0;

/// Element-wise kernels per ring step (casts, the four merge ops or the three accumulations,
/// concatenations).
pub const KERNELS_PER_STEP: f64 = 8.0;

/// HBM bytes the ring moves outside the attention kernels, forward and backward, for `c` ranks,
/// `out` local output (= query) elements and `kv` local elements of one of K or V as exchanged.
pub fn merge_bytes(c: f64, out: f64, kv: f64) -> (f64, f64) {
    if c <= 1.0 {
        return (0.0, 0.0);
    }
    let steps = c - 1.0;
    let fwd =
        steps * (MERGE_FWD_PER_OUT * out + KV_CAT_PER_KV * kv) + MERGE_FWD_FIXED_PER_OUT * out;
    let bwd = steps * (BWD_STEP_PER_Q * out + BWD_STEP_PER_KV * kv)
        + BWD_FIXED_PER_Q * out
        + BWD_FIXED_PER_KV * kv;
    (fwd, bwd)
}

/// Width per token of one of K or V as the ring moves it, per TP rank: the query heads' when
/// the model repeats K/V before the kernel ([`super::stack::Stack::repeat_kv`]), else the K/V
/// width.
pub(crate) fn kv_width(x: &Inputs) -> f64 {
    let d = x.d;
    let w = if x.stack.repeat_kv {
        0.5 * (d.q + d.o)
    } else {
        d.kv
    };
    w / x.tf
}

/// Time of the ring's element-wise work, forward and backward, seconds (0 without CP or with
/// another mechanism).
pub(crate) fn merge_s(x: &Inputs) -> (f64, f64) {
    if x.cf <= 1.0 || x.stack.cp != CpMechanism::TorchRing {
        return (0.0, 0.0);
    }
    let (f, b) = merge_bytes(x.cf, x.tok * x.d.o / x.tf, x.tok * kv_width(x));
    let k = KERNELS_PER_STEP * x.cf;
    (x.dev.memory_s(f, k), x.dev.memory_s(b, k))
}

/// The exchange of one layer and micro-batch: K/V all-gathered (`c` chunks of `kv_msg` bytes)
/// under the first step's kernel (`fwd/c` forward, `bwd/c` backward), then `c` sends of the
/// fp32 gradients (`kv_msg·4/ab`), each but the last under the next step's kernel. Full
/// recomputation repeats the forward exchange.
pub(crate) fn costs(x: &Inputs, attn_fwd: f64, attn_bwd: f64) -> CpCosts {
    let kv_msg = 2.0 * x.tok * kv_width(x) * x.ab;
    let g = &x.groups.cp;
    exchange(
        g,
        x.cf,
        kv_msg,
        F32 / x.ab,
        (attn_fwd, attn_bwd),
        x.s.training.recompute == Recompute::Full,
        (
            x.collective_sm_share(g),
            x.p2p_sm_share(g, super::contention::P2p::Ring),
        ),
    )
}

/// [`costs`] for a group `g` of `c` ranks, K+V chunks of `kv_msg` bytes, gradients `grad_scale`
/// times larger, kernels of `fwd` and `bwd` seconds per layer (`kernels`); the hidden part
/// takes its share of its time from compute, `shares` = (the all-gathers', a collective's; the
/// sends', point-to-point), weighted by their time.
pub(crate) fn exchange(
    g: &Group,
    c: f64,
    kv_msg: f64,
    grad_scale: f64,
    kernels: (f64, f64),
    full_recompute: bool,
    shares: (f64, f64),
) -> CpCosts {
    let (fwd, bwd) = kernels;
    if c <= 1.0 {
        return CpCosts::default();
    }
    let gather = g.gather_s(c * kv_msg);
    let send = g.p2p_s(grad_scale * kv_msg);
    let rotations = (c - 1.0) * kv_msg;
    let gathers = (if full_recompute { 3.0 } else { 2.0 }) * gather;
    let share =
        (gathers * shares.0 + c * send * shares.1) / (gathers + c * send).max(f64::MIN_POSITIVE);
    CpCosts::assemble(
        share,
        kv_msg,
        (gather, (gather - fwd / c).max(0.0)),
        (
            gather + c * send,
            (gather - bwd / c).max(0.0) + (c - 1.0) * (send - bwd / c).max(0.0) + send,
        ),
        full_recompute,
        // An all-gather sends this rank's chunk c − 1 times: forward, recomputed, backward.
        (if full_recompute { 3.0 } else { 2.0 }) * rotations + c * grad_scale * kv_msg,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::gpu_preset;

    #[test]
    fn merge_bytes_count_the_eager_passes() {
        // c 8, 1e6 output and 1e6 K (or V) elements: forward 7·(32.5 + 8)·1e6 + 12·1e6 =
        // 295.5e6 bytes; backward 7·(22 + 47)·1e6 + 20·1e6 + 56·1e6 = 559e6.
        let (f, b) = merge_bytes(8.0, 1e6, 1e6);
        assert!((f - 295.5e6).abs() < 1.0, "{f}");
        assert!((b - 559e6).abs() < 1.0, "{b}");
        // Without CP there is no ring.
        assert_eq!(merge_bytes(1.0, 1e6, 1e6), (0.0, 0.0));
        // Llama-3 8B, cp 8, 32768 local tokens, 32 repeated heads of 128: out = kv = 32768·4096
        // elements; at 0.8·2.4 TB/s the forward merge takes 3.9649e10 B / 1.92e12 B/s = 20.65 ms,
        // 9 % of the layer's 227 ms of forward attention kernels.
        let e = 32768.0 * 4096.0;
        let (f, _) = merge_bytes(8.0, e, e);
        assert!((f / 1.92e12 - 0.020651).abs() < 1e-5, "{}", f / 1.92e12);
    }

    #[test]
    fn exchange_hides_under_the_first_step_and_the_next_steps() {
        // Eight H100s on NVLink (450 GB/s · 0.78 = 351 GB/s), 32768 tokens of 32 repeated K/V
        // heads of 128 in bf16: K+V 536,870,912 B per rank.
        let gpu = gpu_preset("h100-sxm5-96gb").unwrap().spec;
        let g = Group::new(&gpu, 8, 1);
        let kv = 536_870_912.0;
        let u = 0.15;
        // All-gather of 8 chunks (Simple ring: 8.4 + 7·3.4 µs, 7/8 of the buffer at 351 GB/s):
        // 32.2 µs + 10.70683 ms; fp32 gradient send: 8.4 + 3.4 µs + 1,073,741,824 B / 351 GB/s.
        let gather = 32.2e-6 + 7.0 * kv / 351e9;
        let send = 11.8e-6 + 2.0 * kv / 351e9;
        // No kernel to hide under: forward, recomputed forward and backward all exposed.
        let bare = exchange(&g, 8.0, kv, 2.0, (0.0, 0.0), true, (u, u));
        let total = 3.0 * gather + 8.0 * send;
        assert!(
            (bare.exposed - total).abs() < 1e-9,
            "{} vs {total}",
            bare.exposed
        );
        assert!((total - 0.056784).abs() < 1e-5, "{total}");
        // Long kernels (25 ms per forward step, 62.5 ms per backward step): only the last
        // gradient send is exposed, plus the SM share u = 0.15 of the rest.
        let hidden = exchange(&g, 8.0, kv, 2.0, (0.2, 0.5), true, (u, u));
        let want = send + u * (total - send);
        assert!(
            (hidden.exposed - want).abs() < 1e-9,
            "{} vs {want}",
            hidden.exposed
        );
        assert!((want - 0.011128).abs() < 1e-5, "{want}");
        // Bytes sent: 7 chunks in each all-gather (forward, recomputed, backward) and 8 fp32
        // gradient chunks: (14 + 7 + 16)·kv.
        assert!((hidden.bytes - 37.0 * kv).abs() < 1.0);
        assert!((hidden.rc_total - hidden.fwd_total).abs() < 1e-12);
        // Without recomputation the forward exchange happens once.
        let once = exchange(&g, 8.0, kv, 2.0, (0.0, 0.0), false, (u, u));
        assert!((bare.exposed - once.exposed - gather).abs() < 1e-9);
        // One rank: nothing.
        assert_eq!(
            exchange(&g, 1.0, kv, 2.0, (0.0, 0.0), true, (u, u)),
            CpCosts::default()
        );
    }

    fn llama8b_cp8(framework: &str) -> crate::scenario::Scenario {
        crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "Llama-3 8B", "layers": 32, "hidden": 4096, "heads": 32,
                 "kv_heads": 8, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256,
                 "seq_len": 262144}},
              "training": {{"global_batch": 1, "micro_batch": 1, "precision": "bf16",
                 "recompute": "full", "framework": "{framework}"}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 1, "cp": 8, "zero_stage": 3}},
              "cluster": {{"gpu": "h100-sxm5-96gb", "num_gpus": 8}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn torchtitan_merges_repeated_heads_megatron_does_not_merge() {
        use super::super::inputs::with_inputs;
        with_inputs(&llama8b_cp8("torchtitan"), |x| {
            assert_eq!(x.stack.cp, CpMechanism::TorchRing);
            // Repeated heads: K and V are as wide as the queries (32·128), not 8·128.
            assert_eq!(kv_width(x), 4096.0);
            // 32768 local tokens · 4096 = 134,217,728 elements each for the output and K (or
            // V): forward 7·40.5 + 12 = 295.5 bytes per element, backward 7·69 + 76 = 559, at
            // 0.8 · 2.4 TB/s plus 8 kernels per step (5 µs each).
            let e = 32768.0 * 4096.0;
            let (f, b) = merge_s(x);
            let k = 64.0 * 5e-6;
            assert!((f - (295.5 * e / 1.92e12 + k)).abs() < 1e-9, "{f}");
            assert!((b - (559.0 * e / 1.92e12 + k)).abs() < 1e-9, "{b}");
        });
        // Transformer Engine's ring keeps the 8 K/V heads and merges inside its kernels.
        with_inputs(&llama8b_cp8("megatron"), |x| {
            assert_eq!(x.stack.cp, CpMechanism::P2pRing);
            assert_eq!(kv_width(x), 1024.0);
            assert_eq!(merge_s(x), (0.0, 0.0));
        });
    }
}
