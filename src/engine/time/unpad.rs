//! The unpadding around FlashAttention-2's variable-length kernel in eager PyTorch stacks: the
//! model code gathers the tokens a padding mask keeps out of the query, key and value tensors,
//! calls `flash_attn_varlen_func` on the packed rows and scatters the output back into the
//! padded shape, every layer, forward and backward, even when nothing is padded.
//!
//! Counted from the code the published runs name (llm-foundry's H100 large-scale table,
//! mosaicml/llm-foundry `scripts/train/benchmarking/README.md` @5e85bd62d, `--attn_impl flash`
//! in `sweep.py`, flash-attn 2.4.2):
//! - `flash_attn_fn` (`llmfoundry/models/layers/attention.py` @5e85bd62d) builds an all-ones
//!   `key_padding_mask` when none is given and calls `bert_padding.unpad_input` on the query,
//!   the key and the value, then `bert_padding.pad_input` on the output;
//! - `unpad_input` (Dao-AILab/flash-attention `flash_attn/bert_padding.py` @v2.4.2): the mask's
//!   row sums, `torch.nonzero` of the flattened mask, their `max().item()`, a `cumsum` and an
//!   `F.pad` (five small kernels and a copy to the host), then `IndexFirstAxis`, a `torch.gather`
//!   of every kept row (read and write each element; the index is an expanded view, read from
//!   cache), whose backward writes a zero tensor and scatters the gradient into it;
//! - `pad_input` is `IndexPutFirstAxis`: a zero tensor of the padded shape, then
//!   `output[indices] = values` (read and write each element); its backward gathers the
//!   gradient rows (read and write).
//!
//! Not priced: the two host synchronisations of each `unpad_input` (`nonzero` and `.item()`),
//! six per layer forward, which drain the GPU's queue once each
//! ([host.md](crate::docs::formulas::host) §4).

/// Kernels of one layer's forward: three `unpad_input` calls of six (row sums, `nonzero`,
/// `max`, the copy of `.item()`, `cumsum`, `F.pad`) each with one gather, the `ones_like` mask,
/// and the output's zero fill and `index_put`.
pub const FWD_KERNELS: f64 = 3.0 * 7.0 + 1.0 + 2.0;

/// Kernels of one layer's backward: a zero fill and a scatter per gathered tensor (three) and
/// the gather of the output's gradient.
pub const BWD_KERNELS: f64 = 3.0 * 2.0 + 1.0;

/// Bytes per token of one layer's unpadding, forward and backward, for activation elements of
/// `a` bytes, query width `q` and key/value width `kv` on one GPU. Forward: the gathers read
/// and write the query, key and value (`2a·(q + 2kv)`), the output's zero fill writes it and
/// the `index_put` reads and writes it (`3a·q`). Backward: each gathered tensor's gradient is a
/// zero fill plus a scatter that reads and writes it (`3a·(q + 2kv)`), the output's gradient a
/// gather (`2a·q`).
pub fn bytes_per_token(a: f64, q: f64, kv: f64) -> (f64, f64) {
    let qkv = q + 2.0 * kv;
    (2.0 * a * qkv + 3.0 * a * q, 3.0 * a * qkv + 2.0 * a * q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpadding_moves_each_attention_tensor_a_few_times() {
        // MPT-7B (h 4096, 32 heads, no GQA), bf16: forward 2·2·12288 + 3·2·4096 = 73,728 B per
        // token and layer, backward 3·2·12288 + 2·2·4096 = 90,112 B.
        assert_eq!(bytes_per_token(2.0, 4096.0, 4096.0), (73_728.0, 90_112.0));
        // Grouped-query attention gathers the narrower K and V: 8 of 32 heads.
        let (f, b) = bytes_per_token(2.0, 4096.0, 1024.0);
        assert_eq!(
            (f, b),
            (
                2.0 * 2.0 * 6144.0 + 6.0 * 4096.0,
                6.0 * 6144.0 + 4.0 * 4096.0
            )
        );
        assert_eq!((FWD_KERNELS, BWD_KERNELS), (24.0, 7.0));
    }
}
