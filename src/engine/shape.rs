//! The model's dimensions as `f64`: the one place where the memory half (parameter counts,
//! activations) and the time half (FLOPs, GEMM shapes, message sizes) read the model section.
//!
//! Notation of [FORMULAS.md](crate::docs::formulas): `h` hidden, `a` heads, `d_h = h/a` (or the model's `head_dim`),
//! `q = a·d_h` query width, `g` KV heads and `kv = g·d_h` (GQA/MQA; `g = a` for MHA), `f` FFN
//! width with `c_ffn` GEMMs (2 GELU, 3 SwiGLU), `E` experts, top-`k`, expert width `f_e`.

use crate::scenario::Model;

/// Dimensions of one model (the notation of [FORMULAS.md](crate::docs::formulas)), read once from [`Model`].
///
/// A mixture-of-experts model has two kinds of layers: [`Shape::of`] describes its MoE layers
/// (routed experts, shared experts, router) and [`Shape::dense_layer`] its dense-MLP layers
/// (`model.moe.dense_layers`, the layers `moe_every` skips, and every layer of a dense model).
/// Which layer is which, per pipeline stage, is [`crate::engine::layers`].
///
/// Multi-head latent attention (`model.mla`, DeepSeek-V2 §2.1 / V3 §2.1.1) changes the
/// attention widths: queries and keys are `d_qk = qk_nope + qk_rope` wide per head, values
/// `d_v`, and the K/V (and optionally Q) projections go through a low-rank latent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shape {
    /// Hidden size `h`.
    pub h: f64,
    /// Attention heads `a`.
    pub heads: f64,
    /// Head dimension `d_h` (standard attention; MLA: the query/key head dimension).
    pub d_h: f64,
    /// Query width `q = a·d_qk` (standard attention: `a·d_h`).
    pub q: f64,
    /// Key/value width, the mean of the K and V widths so that `2·kv = k + v`: `g·d_h` for
    /// standard attention (K and V equal), `a·(d_qk + d_v)/2` for MLA.
    pub kv: f64,
    /// Attention output width (input of the output projection) `o = a·d_v` (standard: `q`).
    pub o: f64,
    /// Mean of the query/key and value head dimensions `(d_qk + d_v)/2`: what the attention core's
    /// two GEMMs reduce over per head (`d_h` for standard attention).
    pub d_attn: f64,
    /// MLA query latent rank (0: standard attention or no query compression).
    pub q_lora: f64,
    /// MLA key/value latent rank (0: standard attention).
    pub kv_lora: f64,
    /// MLA rotary key width shared by all heads `d_h^R` (0: standard attention).
    pub k_rope: f64,
    /// FFN GEMM count `c_ffn`: 2 (GELU MLP), 3 (SwiGLU).
    pub c_ffn: f64,
    /// Dense FFN width `f` (the model's `ffn_hidden`; the MLP of the dense layers).
    pub f_dense: f64,
    /// Experts `E` (0 for a dense model or a dense layer).
    pub experts: f64,
    /// Experts each token is routed to, `min(k, E)` (1 for a dense model: the one MLP).
    pub k: f64,
    /// Expert FFN width `f_e` (0 for a dense model).
    pub f_expert: f64,
    /// FFN width of one routed copy of a token: `f` (dense) or `f_e` (MoE).
    pub f_token: f64,
    /// FFN width a token actually computes in the routed part: `f` (dense) or `k·f_e` (MoE).
    pub f_active: f64,
    /// Total width of the shared experts every token passes through,
    /// `shared_experts · shared_expert_ffn_hidden` (0 without, and for dense layers).
    pub f_shared: f64,
    /// Expert-load imbalance: tokens on the busiest expert-parallel rank over the mean (1.0).
    pub imbalance: f64,
    /// Vocabulary `V`.
    pub v: f64,
    /// Sequence length `s`.
    pub s: f64,
    /// Layers `L`.
    pub layers: f64,
    /// MoE layers among them (0 for a dense model; [`crate::engine::layers`]).
    pub moe_layers: f64,
    /// Multi-token prediction modules (`model.mtp_layers`).
    pub mtp: f64,
    /// Whether the MTP modules' layer is an MoE layer (the model's last layer's kind).
    pub mtp_moe: bool,
    /// Attention weight-matrix parameters of one layer ([`Shape::attention_matrix_params`]),
    /// computed once.
    pub attn_params: f64,
}

impl Shape {
    /// Key/value width one of `t` tensor-parallel ranks computes attention with: `kv/t`, or one
    /// head (`d_h`) where `t` exceeds the KV heads and each rank keeps a whole one
    /// ([`crate::scenario::Scenario::tp_replicates_kv_heads`]).
    pub fn kv_rank(&self, t: f64, replicated: bool) -> f64 {
        if replicated {
            (self.kv / t).max(self.d_h)
        } else {
            self.kv / t
        }
    }

    /// Reads the model section (the MoE layer of an MoE model).
    pub fn of(m: &Model) -> Shape {
        let d_h = m.head_dim() as f64;
        let f_dense = m.ffn_hidden() as f64;
        let (experts, k, f_expert, f_shared, imbalance) = match m.moe {
            Some(moe) => (
                moe.experts as f64,
                moe.top_k.min(moe.experts) as f64,
                moe.expert_ffn_hidden as f64,
                moe.shared_experts() as f64 * moe.shared_expert_ffn_hidden() as f64,
                moe.imbalance().max(1.0),
            ),
            None => (0.0, 1.0, 0.0, 0.0, 1.0),
        };
        let f_token = if m.moe.is_some() { f_expert } else { f_dense };
        let a = m.heads as f64;
        let (q, kv, o, d_qk, d_attn, q_lora, kv_lora, k_rope) = match m.mla {
            Some(mla) => {
                let d_qk = (mla.qk_nope_head_dim + mla.qk_rope_head_dim) as f64;
                let d_v = mla.v_head_dim as f64;
                (
                    a * d_qk,
                    a * (d_qk + d_v) / 2.0,
                    a * d_v,
                    d_qk,
                    (d_qk + d_v) / 2.0,
                    mla.q_lora_rank as f64,
                    mla.kv_lora_rank as f64,
                    mla.qk_rope_head_dim as f64,
                )
            }
            None => (
                a * d_h,
                m.kv_heads() as f64 * d_h,
                a * d_h,
                d_h,
                d_h,
                0.0,
                0.0,
                0.0,
            ),
        };
        let mut d = Shape {
            h: m.hidden as f64,
            heads: a,
            d_h: d_qk,
            q,
            kv,
            o,
            d_attn,
            q_lora,
            kv_lora,
            k_rope,
            c_ffn: m.ffn_act.num_matrices() as f64,
            f_dense,
            experts,
            k,
            f_expert,
            f_token,
            f_active: k * f_token,
            f_shared,
            imbalance,
            v: m.vocab as f64,
            s: m.seq_len as f64,
            layers: m.layers as f64,
            moe_layers: crate::engine::layers::moe_layers_between(m, 0, m.layers) as f64,
            mtp: m.mtp_layers() as f64,
            mtp_moe: crate::engine::layers::last_layer_is_moe(m),
            attn_params: 0.0,
        };
        d.attn_params = d.attention_gemms_params();
        d
    }

    /// The same model's dense-MLP layer: attention as [`Shape::of`], the MLP a dense one of
    /// `ffn_hidden` (no experts, no router, no shared experts). A dense model's shape is its own
    /// dense layer.
    pub fn dense_layer(&self) -> Shape {
        Shape {
            experts: 0.0,
            k: 1.0,
            f_expert: 0.0,
            f_token: self.f_dense,
            f_active: self.f_dense,
            f_shared: 0.0,
            imbalance: 1.0,
            ..*self
        }
    }

    /// FFN width one GPU computes per token on the busiest expert-parallel rank, with the FFN's
    /// tensor-parallel width `tf`: `(f_active·imbalance + f_shared)/tf` (the routed rows, scaled by
    /// the load imbalance, and the shared experts every token passes through).
    #[inline]
    pub fn f_busiest(&self, tf: f64) -> f64 {
        (self.f_active * self.imbalance + self.f_shared) / tf
    }

    /// Whether the MLP is a mixture of experts.
    pub fn is_moe(&self) -> bool {
        self.experts > 0.0
    }

    /// Whether attention is multi-head latent attention.
    pub fn is_mla(&self) -> bool {
        self.kv_lora > 0.0
    }

    /// Attention weight-matrix parameters of one layer.
    /// Standard: Q and O are `h·q`, K and V `h·kv` each (Megatron-LM
    /// `theoretical_memory_usage.py`: `2·h·q·(1 + g/a)`, [params.md](crate::docs::formulas::params) §1).
    /// MLA: the sum of its projections' `k·n` ([`Shape::layer_gemms`]) — Megatron-LM
    /// `theoretical_memory_usage.py` (`d98e8a6`, `multi_latent_attention`): `q_lora·(h + a·d_qk)`
    /// (or `h·a·d_qk` without query compression) `+ kv_lora·(h + a·(d_nope + d_v)) + h·d_rope
    /// + a·d_v·h`; its latent norms are in [`crate::engine::memory::params::attention_params`].
    pub fn attention_matrix_params(&self) -> f64 {
        self.attn_params
    }

    /// The sum of the attention GEMMs' `k·n` (what [`Shape::of`] stores in `attn_params`).
    fn attention_gemms_params(&self) -> f64 {
        if !self.is_mla() {
            return 2.0 * self.h * self.q + 2.0 * self.h * self.kv;
        }
        let (g, n) = self.layer_gemms();
        g.iter()
            .take(self.attention_gemms().min(n))
            .map(|g| g.k * g.n)
            .sum()
    }

    /// Weight-matrix parameters of one MLP of inner width `f`: `c_ffn·h·f` ([params.md](crate::docs::formulas::params) §1).
    pub fn mlp_matrix_params(&self, f: f64) -> f64 {
        self.c_ffn * self.h * f
    }

    /// Dense MLP weight-matrix parameters of one layer (0 for an MoE layer).
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

    /// Shared-expert weight-matrix parameters of one MoE layer, `c_ffn·h·f_shared`.
    pub fn shared_matrix_params(&self) -> f64 {
        self.mlp_matrix_params(self.f_shared)
    }

    /// How many of [`Shape::layer_gemms`] belong to attention: 4 (Q, K, V, O); MLA 5 (query
    /// down and up, key/value down and up, output) or 4 without query compression.
    pub fn attention_gemms(&self) -> usize {
        if !self.is_mla() {
            4
        } else if self.q_lora > 0.0 {
            5
        } else {
            4
        }
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

/// Most weight GEMMs one layer has ([`Shape::layer_gemms`]): MLA's five plus SwiGLU's three.
pub const MAX_LAYER_GEMMS: usize = 8;
/// Most weight GEMMs one MLP has ([`Shape::mlp_gemms`]): SwiGLU's three.
pub const MAX_MLP_GEMMS: usize = 3;

impl Shape {
    /// The weight GEMMs of one layer in forward order. Standard attention has separate Q, K and
    /// V projections as in the Llama reference implementations (torchtitan
    /// `models/llama/model.py`: `wq`, `wk`, `wv`, `wo`): Q `h→q`, K `h→kv`, V `h→kv`, O `q→h`.
    /// MLA (DeepSeek-V3 §2.1.1; Megatron-Core `multi_latent_attention.py`): query down
    /// `h→q_lora` and up `q_lora→a·d_qk` (or one `h→a·d_qk` without query compression),
    /// key/value down `h→kv_lora + d_rope` (the latent and the shared rotary key) and up
    /// `kv_lora→a·(d_nope + d_v)`, output `a·d_v→h`. Then the MLP of one routed token copy,
    /// FC1 `h→f` (SwiGLU: gate `h→f` and up `h→f`) and FC2 `f→h`; [`Shape::attention_gemms`]
    /// tells where the MLP starts. The MLA down projections are treated as column-parallel.
    /// Returns a fixed array and the number of entries used; no allocation. Always inlined: its
    /// callers read a few entries, and a call would copy the whole array out.
    #[inline(always)]
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
        let h = self.h;
        let mut g = [LayerGemm::default(); MAX_LAYER_GEMMS];
        // The input projections, in fixed slots; `a` of them.
        let a = if !self.is_mla() {
            g[0] = col(h, self.q);
            g[1] = col(h, self.kv);
            g[2] = col(h, self.kv);
            3
        } else {
            let (q_up, kv_up) = self.mla_up_gemms();
            let i = if self.q_lora > 0.0 {
                g[0] = col(h, self.q_lora);
                g[1] = q_up;
                2
            } else {
                g[0] = q_up;
                1
            };
            g[i] = col(h, self.kv_lora + self.k_rope);
            g[i + 1] = kv_up;
            i + 2
        };
        g[a] = row(self.o, h);
        // The MLP's (all three slots written; the entries past the count are not read).
        let (mlp, m) = self.mlp_gemms();
        g[a + 1] = mlp[0];
        g[a + 2] = mlp[1];
        g[a + 3] = mlp[2];
        (g, a + 1 + m)
    }

    /// MLA's up projections (column-parallel), in [`Shape::layer_gemms`]'s shapes: the queries
    /// from their latent (from the hidden state without query compression), and the non-rotary
    /// keys with the values from theirs, per head `d_qk − d_rope + d_v`, i.e. `2·kv − a·d_rope`.
    /// What Megatron-LM's `mla_up_proj` recomputation reruns.
    #[inline(always)]
    pub fn mla_up_gemms(&self) -> (LayerGemm, LayerGemm) {
        let q_in = if self.q_lora > 0.0 {
            self.q_lora
        } else {
            self.h
        };
        let col = |k: f64, n: f64| LayerGemm {
            k,
            n,
            row_parallel: false,
        };
        (
            col(q_in, self.q),
            col(self.kv_lora, 2.0 * self.kv - self.heads * self.k_rope),
        )
    }

    /// The MLP's part of [`Shape::layer_gemms`] (from index [`Shape::attention_gemms`] on), of
    /// one routed token copy: FC1 `h→f` (SwiGLU: gate `h→f` and up `h→f`), column-parallel,
    /// then FC2 `f→h`, row-parallel. Returns a fixed array and the number of entries used.
    #[inline(always)]
    pub fn mlp_gemms(&self) -> ([LayerGemm; MAX_MLP_GEMMS], usize) {
        let (h, f) = (self.h, self.f_token);
        let fc1 = LayerGemm {
            k: h,
            n: f,
            row_parallel: false,
        };
        let fc2 = LayerGemm {
            k: f,
            n: h,
            row_parallel: true,
        };
        // `c_ffn` is 2 or 3 (at least 3: SwiGLU's three GEMMs).
        if self.c_ffn >= 3.0 {
            ([fc1, fc1, fc2], 3)
        } else {
            ([fc1, fc2, fc2], 2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::test_model as model;

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
