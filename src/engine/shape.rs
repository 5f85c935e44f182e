//! The model's dimensions as `f64`: the one place where the memory half (parameter counts,
//! activations) and the time half (FLOPs, GEMM shapes, message sizes) read the model section.
//!
//! Notation of [FORMULAS.md](crate::docs::formulas) §0: `h` hidden, `a` heads, `d_h = h/a` (or the model's `head_dim`),
//! `q = a·d_h` query width, `g` KV heads and `kv = g·d_h` (GQA/MQA; `g = a` for MHA), `f` FFN
//! width with `c_ffn` GEMMs (2 GELU, 3 SwiGLU), `E` experts, top-`k`, expert width `f_e`.

use crate::scenario::Model;

/// Dimensions of one model ([FORMULAS.md](crate::docs::formulas) §0), read once from [`Model`].
///
/// # Example
/// ```
/// use paracalc::engine::shape::Shape;
/// let m: paracalc::scenario::Model = serde_json::from_str(
///     r#"{"layers":32,"hidden":4096,"heads":32,"kv_heads":8,"ffn_hidden":14336,
///         "ffn_act":"swiglu","vocab":128256,"seq_len":8192}"#)?;
/// let d = Shape::of(&m);
/// assert_eq!((d.q, d.kv, d.c_ffn, d.f_active), (4096.0, 1024.0, 3.0, 14336.0));
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shape {
    /// Hidden size `h`.
    pub h: f64,
    /// Attention heads `a`.
    pub heads: f64,
    /// Head dimension `d_h`.
    pub d_h: f64,
    /// Query width `q = a·d_h`.
    pub q: f64,
    /// Key/value width `kv = g·d_h`.
    pub kv: f64,
    /// FFN GEMM count `c_ffn`: 2 (GELU MLP), 3 (SwiGLU).
    pub c_ffn: f64,
    /// Dense FFN width `f` (the model's `ffn_hidden`; unused by MoE layers).
    pub f_dense: f64,
    /// Experts `E` (0 for a dense model).
    pub experts: f64,
    /// Experts each token is routed to, `min(k, E)` (1 for a dense model: the one MLP).
    pub k: f64,
    /// Expert FFN width `f_e` (0 for a dense model).
    pub f_expert: f64,
    /// FFN width of one routed copy of a token: `f` (dense) or `f_e` (MoE).
    pub f_token: f64,
    /// FFN width a token actually computes: `f` (dense) or `k·f_e` (MoE).
    pub f_active: f64,
    /// Vocabulary `V`.
    pub v: f64,
    /// Sequence length `s`.
    pub s: f64,
    /// Layers `L`.
    pub layers: f64,
}

impl Shape {
    /// Reads the model section.
    pub fn of(m: &Model) -> Shape {
        let d_h = m.head_dim() as f64;
        let f_dense = m.ffn_hidden() as f64;
        let (experts, k, f_expert) = match m.moe {
            Some(moe) => (
                moe.experts as f64,
                moe.top_k.min(moe.experts) as f64,
                moe.expert_ffn_hidden as f64,
            ),
            None => (0.0, 1.0, 0.0),
        };
        let f_token = if m.moe.is_some() { f_expert } else { f_dense };
        Shape {
            h: m.hidden as f64,
            heads: m.heads as f64,
            d_h,
            q: m.heads as f64 * d_h,
            kv: m.kv_heads() as f64 * d_h,
            c_ffn: m.ffn_act.num_matrices() as f64,
            f_dense,
            experts,
            k,
            f_expert,
            f_token,
            f_active: k * f_token,
            v: m.vocab as f64,
            s: m.seq_len as f64,
            layers: m.layers as f64,
        }
    }

    /// Whether the MLP is a mixture of experts.
    pub fn is_moe(&self) -> bool {
        self.experts > 0.0
    }

    /// Attention weight-matrix parameters of one layer: Q and O are `h·q`, K and V `h·kv` each
    /// (Megatron-LM `theoretical_memory_usage.py`: `2·h·q·(1 + g/a)`, [FORMULAS.md](crate::docs::formulas) §2).
    pub fn attention_matrix_params(&self) -> f64 {
        2.0 * self.h * self.q + 2.0 * self.h * self.kv
    }

    /// Weight-matrix parameters of one MLP of inner width `f`: `c_ffn·h·f` ([FORMULAS.md](crate::docs::formulas) §2).
    pub fn mlp_matrix_params(&self, f: f64) -> f64 {
        self.c_ffn * self.h * f
    }

    /// Dense MLP weight-matrix parameters of one layer (0 for MoE).
    pub fn dense_mlp_matrix_params(&self) -> f64 {
        if self.is_moe() {
            0.0
        } else {
            self.mlp_matrix_params(self.f_dense)
        }
    }

    /// Routed-expert weight-matrix parameters of one layer, all `E` experts (0 for dense).
    pub fn expert_matrix_params(&self) -> f64 {
        self.experts * self.mlp_matrix_params(self.f_expert)
    }
}

/// One weight GEMM of a layer, per token and unsharded: `k` inputs → `n` outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerGemm {
    /// Reduction (input) width.
    pub k: f64,
    /// Output width.
    pub n: f64,
    /// Row-parallel under TP (the input width is split, each rank produces partial sums of the
    /// whole output): the attention output projection and the last MLP GEMM. Column-parallel
    /// GEMMs split the output width instead (Shoeybi et al. 2019, Megatron-LM §3).
    pub row_parallel: bool,
}

/// Most weight GEMMs one layer has ([`Shape::layer_gemms`]).
pub const MAX_LAYER_GEMMS: usize = 7;

impl Shape {
    /// The weight GEMMs of one layer in forward order, with separate Q, K and V projections as in
    /// the Llama reference implementations (torchtitan `models/llama/model.py`: `wq`, `wk`, `wv`,
    /// `wo`, then `w1`, `w3`, `w2`): Q `h→q`, K `h→kv`, V `h→kv`, O `q→h`, then the MLP of one
    /// routed token copy, FC1 `h→f` (SwiGLU: gate `h→f` and up `h→f`) and FC2 `f→h`.
    /// Returns a fixed array and the number of entries used (6 GELU, 7 SwiGLU); no allocation.
    pub fn layer_gemms(&self) -> ([LayerGemm; MAX_LAYER_GEMMS], usize) {
        let col = |k: f64, n: f64| LayerGemm {
            k,
            n,
            row_parallel: false,
        };
        let row = |k: f64, n: f64| LayerGemm {
            k,
            n,
            row_parallel: true,
        };
        let (h, f) = (self.h, self.f_token);
        let mut g = [LayerGemm::default(); MAX_LAYER_GEMMS];
        g[0] = col(h, self.q);
        g[1] = col(h, self.kv);
        g[2] = col(h, self.kv);
        g[3] = row(self.q, h);
        let mut n = 4;
        for _ in 1..(self.c_ffn as usize).clamp(2, 3) {
            g[n] = col(h, f);
            n += 1;
        }
        g[n] = row(f, h);
        (g, n + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(json: &str) -> Model {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn layer_gemms_match_the_parameter_count() {
        // SwiGLU (Llama 3 8B): 7 GEMMs whose k·n add up to the layer's weight matrices,
        // 2·4096·4096 + 2·4096·1024 + 3·4096·14336 = 218,103,808.
        let d = Shape::of(&model(
            r#"{"layers":32,"hidden":4096,"heads":32,"kv_heads":8,"ffn_hidden":14336,"ffn_act":"swiglu","vocab":128256,"seq_len":8192}"#,
        ));
        let (g, n) = d.layer_gemms();
        assert_eq!(n, 7);
        let sum: f64 = g.iter().take(n).map(|g| g.k * g.n).sum();
        assert_eq!(sum, 218_103_808.0);
        assert_eq!(
            sum,
            d.attention_matrix_params() + d.dense_mlp_matrix_params()
        );
        assert!(g[3].row_parallel && g[6].row_parallel && !g[5].row_parallel);
        // GELU (GPT-3 175B): 6 GEMMs, 12h² in all.
        let d = Shape::of(&model(
            r#"{"layers":96,"hidden":12288,"heads":96,"vocab":51200,"seq_len":2048}"#,
        ));
        let (g, n) = d.layer_gemms();
        assert_eq!(n, 6);
        let sum: f64 = g.iter().take(n).map(|g| g.k * g.n).sum();
        assert_eq!(sum, 12.0 * 12288.0 * 12288.0);
        assert!(g[5].row_parallel && g[5].k == 4.0 * 12288.0);
    }
}
