//! The kernels a software stack launches for the token bookkeeping of one MoE layer (router,
//! permutation, sorting, the routing weights' exchange), per stack ([`super::stack::Stack`]
//! picks one); [`super::moe`] prices them.

/// Kernels the token bookkeeping of one MoE layer launches per micro-batch (router top-k and
/// load-balancing loss; dispatch metadata, permutation, unpermutation and the routing weights'
/// exchange), forward and backward. Each costs a kernel's fixed time at least
/// ([`super::compute::Device::memory_s`]); the bytes they move are small next to the token tensors'.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bookkeeping {
    /// Router kernels forward (the gating GEMM apart).
    pub router_fwd: f64,
    /// Router kernels backward.
    pub router_bwd: f64,
    /// Dispatch-metadata, permute and unpermute kernels forward (the all-to-alls apart).
    pub permute_fwd: f64,
    /// The same backward.
    pub permute_bwd: f64,
    /// Extra kernels forward when a GPU holds several experts (sorting the received rows by
    /// local expert and back).
    pub sort_fwd: f64,
    /// The same backward.
    pub sort_bwd: f64,
    /// Kernels forward of the routing weights' own exchange beside the tokens' (their
    /// all-to-all and expert-tensor gather). Where the weights travel to the experts (the NCCL
    /// all-to-all dispatcher with the weighting inside the experts,
    /// [`crate::scenario::Training::moe_probs_in_experts`]) these are collectives and are
    /// priced as such ([`super::moe::probs_exchange_s`]) instead of as kernels.
    pub probs_fwd: f64,
    /// The same backward (the weights' gradients sent back).
    pub probs_bwd: f64,
    /// HBM passes over the routed copies (`rows·h` activation elements at the source GPU,
    /// `T·k` rows for `T` tokens) of the permutation and unpermutation forward: `(rows,
    /// tokens)`, the second over the source's `T·h` tokens.
    pub passes_fwd: (f64, f64),
    /// The same backward (the autograd mirror images of the forward's operators).
    pub passes_bwd: (f64, f64),
    /// Passes over the routed copies added forward and backward when the combine weights each
    /// copy by its routing probability (the unpermute's multiply, weighting outside the
    /// experts, [`crate::scenario::Training::moe_probs_in_experts`] off).
    pub weighting_passes: (f64, f64),
}

/// Megatron-Core's unfused MoE bookkeeping (the defaults: `moe_router_fusion` and
/// `moe_permute_fusion` off), counted from NVIDIA/Megatron-LM @09b34b1 (April 2025, the
/// Megatron-Core of NeMo 25.04/25.05), softmax router with the auxiliary load-balancing loss,
/// dropless all-to-all dispatcher:
/// - router forward 18: `topk_softmax_with_capacity` (top-k, softmax, cast, two
///   `zeros_like`+`scatter` for the gates and the map, `int`/`bool` casts, the per-expert sum:
///   10), the aux-loss scores' softmax (1), `switch_load_balancing_loss_func` (all-reduce of the
///   per-expert counts over the TP×CP group, sum, two products, sum: 5), the loss tracker (2)
///   (`transformer/moe/router.py`, `moe_utils.py`); backward 7 (two softmax backwards, the cast,
///   the scatter's gather, the loss scaler and the sum's expand-multiply);
/// - dispatch and combine forward 24: `preprocess` (per-expert counts, input and output splits,
///   the all-gather of the counts over the TP×EP group, four device-to-host copies: 10),
///   `permute` (bool, transpose, `arange`, `masked_select` twice with its count, `index_select`,
///   the routing weights' transpose: 9), `unpermute` (`zeros`, `scatter_add_`, cast: 3)
///   (`token_dispatcher.py` `MoEAlltoAllTokenDispatcher`, `moe_utils.py`
///   `permute`/`unpermute`), and the routing weights' own all-to-all and expert-tensor gather
///   (2, `probs_fwd`); backward 6 (`index_select`'s `zeros`+`index_add`, `scatter_add_`'s
///   gather, the weights' `masked_select` backward `zeros`+`masked_scatter`) and the weights'
///   all-to-all back (1, `probs_bwd`);
/// - several local experts: `sort_chunks_by_idxs` concatenates the received chunks by expert
///   for the tokens and their weights and back (3 forward, 2 backward);
/// - HBM passes, in rows of `h` activation elements, `R = T·k` routed copies of `T` tokens
///   (`moe_utils.py` `permute`/`unpermute`, the same at Megatron-Core `core_v0.10.0` l. 156-221
///   and @7094270 l. 230-385, the commit of the DGX Cloud v25.05 recipes): forward `permute`'s
///   `index_select` (read `T`, write `R`), `unpermute`'s `torch.zeros(restore_shape)` (write
///   `T`) and `scatter_add_` (read `R`, write `T`): `2R + 3T`; backward the autograd mirrors,
///   `scatter_add_`'s `gather` (read and write `R`) and `index_select`'s `zeros` + `index_add_`
///   (write `T`, read `R`, write `T`): `3R + 2T`. Weighting in the combine (core ≤ 0.12.0, or
///   `moe_probs_in_experts` off), `permuted_tokens * permuted_probs.unsqueeze(-1)` adds 2 `R`
///   forward (read, write) and 6 backward (the tokens' gradient `grad·probs`, read and write;
///   the probabilities' gradient `(grad·tokens).sum(-1)`, read two, write one, read it again).
pub const MEGATRON_BOOKKEEPING: Bookkeeping = Bookkeeping {
    router_fwd: 18.0,
    router_bwd: 7.0,
    permute_fwd: 22.0,
    permute_bwd: 6.0,
    sort_fwd: 3.0,
    sort_bwd: 2.0,
    probs_fwd: 2.0,
    probs_bwd: 1.0,
    passes_fwd: (2.0, 3.0),
    passes_bwd: (3.0, 2.0),
    weighting_passes: (2.0, 6.0),
};

/// Fused or compiled bookkeeping (torchtitan's MoE, DeepSpeed, JAX): a few kernels each,
/// router 3 (logits, top-k scores, their fp32 softmax), permute and unpermute 4 (gather
/// before, scatter after, and their mirror images), sorting by local expert folded in; one
/// pass over the routed copies and one over the tokens each way and in each direction
/// (read `T`, write `R`; read `R`, write `T`), the weighting folded into the unpermute.
pub const FUSED_BOOKKEEPING: Bookkeeping = Bookkeeping {
    router_fwd: 3.0,
    router_bwd: 3.0,
    permute_fwd: 4.0,
    permute_bwd: 4.0,
    sort_fwd: 0.0,
    sort_bwd: 0.0,
    probs_fwd: 0.0,
    probs_bwd: 0.0,
    passes_fwd: (2.0, 2.0),
    passes_bwd: (2.0, 2.0),
    weighting_passes: (0.0, 0.0),
};
