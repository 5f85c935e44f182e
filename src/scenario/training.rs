//! The training section: batch, precision, optimizer, recomputation.

use serde::Serialize;

/// How the model is trained, independent of the layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Training {
    /// Sequences per optimizer step `B`.
    pub global_batch: u64,
    /// Sequences per micro-batch per pipeline (per DP rank) `b`.
    pub micro_batch: u64,
    /// Number format of the GEMMs and weights.
    pub precision: Precision,
    /// The optimizer (Adam/AdamW).
    pub optimizer: Optimizer,
    /// Activation recomputation.
    pub recompute: Recompute,
    /// Fused attention that never stores the `s×s` score matrix (FlashAttention).
    pub flash_attention: bool,
    /// Tokens to train on, for the time and cost to train. Optional.
    pub train_tokens: Option<f64>,
    /// Whether 16-bit training accumulates and data-parallel-reduces its gradients in fp32
    /// (Megatron-Core `DistributedDataParallelConfig.grad_reduce_in_fp32`). Optional; `None`
    /// means yes ([`Training::grad_reduce_in_fp32`]). `false` keeps the gradient buffer in the
    /// 16-bit parameter dtype, as NeMo's performance recipes do. No effect on fp32 training.
    pub grad_reduce_in_fp32: Option<bool>,
    /// The software stack, which decides which kernels and collectives run. Optional; `None`
    /// means Megatron-LM ([`Training::framework`]).
    pub framework: Option<Framework>,
    /// How FP8 GEMM inputs are scaled; only with `precision` fp8. Optional; `None` means
    /// delayed scaling ([`Training::fp8_recipe`]).
    pub fp8_recipe: Option<Fp8Recipe>,
    /// Fraction 0..1 of the optimizer states (fp32 master weights and Adam moments) kept in host
    /// memory and updated by the CPU: Megatron-Core `--optimizer-cpu-offload
    /// --optimizer-offload-fraction f` (`HybridDeviceOptimizer`), DeepSpeed ZeRO-Offload
    /// (`offload_optimizer`, the whole optimizer). Optional; default 0.
    pub optimizer_offload: Option<f64>,
    /// Fraction 0..1 of the stored layer activations moved to host memory after the forward pass
    /// and brought back for the backward (Megatron-Core `--cpu-offloading`, activation
    /// offloading). Optional; default 0.
    pub activation_offload: Option<f64>,
    /// The fused attention kernel (with `flash_attention`). Optional; `None` means the
    /// framework's (cuDNN for Megatron-LM/NeMo and JAX on Hopper and Blackwell, else
    /// FlashAttention-2).
    pub attention_kernel: Option<AttentionKernel>,
    /// Whether the CPU issues every operator one by one from Python (eager PyTorch: the Hugging
    /// Face Trainer, Composer), so that the GPU waits whenever the host takes longer to issue
    /// a phase's operators than the GPU takes to run them ([`crate::engine::time::host`]).
    /// Optional; `None` means the framework's: yes for `pytorch`, no for the others (JAX and
    /// `torch.compile` run compiled graphs; Megatron-LM and DeepSpeed launch few, fused kernels
    /// per layer, whose host time this model does not price).
    pub eager: Option<bool>,
    /// Whether full recomputation stops as soon as it has rebuilt every tensor the layer's
    /// backward needs, so the layer's last weight GEMM (the MLP output projection, whose output
    /// nothing saves) is not run again. Optional; `None` means the stack's default
    /// ([`crate::scenario::Scenario::recompute_early_stop`]).
    pub recompute_early_stop: Option<bool>,
    /// Megatron-LM's `--recompute-modules` under selective recomputation: which submodules are
    /// recomputed. Optional; `None` means the stack's choice
    /// ([`crate::scenario::Scenario::recompute_modules`]).
    pub recompute_modules: Option<super::RecomputeModules>,
    /// The cross-entropy kernel at the loss. Optional; `None` means the stack's
    /// ([`Training::loss_kernel`]).
    pub loss_kernel: Option<LossKernel>,
    /// Sequence chunks the output layer and the loss run in, each chunk's forward and backward
    /// before the next, so that one chunk's logits exist at a time (torchtitan's
    /// `ChunkedLossWrapper`). Optional; `None` means 1, the whole micro-batch at once
    /// ([`Training::loss_chunks`]).
    pub loss_chunks: Option<u64>,
    /// The number format of Adam's two moments. Optional; `None` means fp32
    /// ([`Training::optimizer_states`]).
    pub optimizer_states: Option<OptimizerStates>,
    /// Whether the SwiGLU keeps its input (the gate and up projections' output) for backward as
    /// an 8-bit float instead of the 16-bit tensor (Megatron-Core
    /// `TransformerConfig.activation_func_fp8_input_store`, [`Training::swiglu_fp8_input`]).
    /// Optional; `None` means no.
    pub swiglu_fp8_input: Option<bool>,
    /// How the optimizer keeps the master weights of 16-bit parameters (a whole fp32 copy, its
    /// low 16 bits, or none). Optional; `None` means the stack's ([`Training::master_weights`]).
    pub master_weights: Option<MasterWeights>,
    /// Whether the routed experts apply the routing probabilities inside their activation, so
    /// that the combine keeps no expert output for backward. Optional; `None` means the stack's
    /// ([`Training::moe_probs_in_experts`]).
    pub moe_probs_in_experts: Option<bool>,
    /// Whether the GEMM weights are kept as FP8 tensors, with no 16-bit copy, and gathered in
    /// FP8 by the distributed optimizer (Megatron-LM `--fp8-param-gather`). Optional; `None`
    /// means no ([`Training::fp8_params`]).
    pub fp8_params: Option<bool>,
    /// Whether the layers apply dropout with a probability above 0 (hidden, attention and
    /// embedding dropout), so that each dropout keeps its 1-byte mask for backward. Optional;
    /// `None` means the model's recipe and stack's default
    /// ([`crate::engine::memory::activations::dropout`]).
    pub dropout: Option<bool>,
    /// JAX's named rematerialization policy under selective recomputation: the tensors each
    /// layer saves besides its input (MaxText `remat_policy: custom`, [`super::RematSaved`]).
    /// Optional; `None` means the stack's selective recomputation.
    pub remat_saved: Option<super::RematSaved>,
}

impl Default for Training {
    /// Every optional field at its default, bf16 without recomputation, and 0 for the batch
    /// sizes: a base for struct update (`Training { global_batch: 128, ..Training::default() }`),
    /// so a new optional field needs no change where trainings are built.
    fn default() -> Training {
        Training {
            global_batch: 0,
            micro_batch: 0,
            precision: Precision::Bf16,
            optimizer: Optimizer::default(),
            recompute: Recompute::None,
            flash_attention: false,
            train_tokens: None,
            grad_reduce_in_fp32: None,
            framework: None,
            fp8_recipe: None,
            attention_kernel: None,
            optimizer_offload: None,
            activation_offload: None,
            eager: None,
            recompute_early_stop: None,
            recompute_modules: None,
            loss_kernel: None,
            loss_chunks: None,
            optimizer_states: None,
            swiglu_fp8_input: None,
            moe_probs_in_experts: None,
            fp8_params: None,
            master_weights: None,
            dropout: None,
            remat_saved: None,
        }
    }
}

impl Training {
    /// Whether gradients are accumulated and reduced in fp32: the scenario's value, else `true`.
    ///
    /// The default is Megatron-LM's: `arguments.py` forces `accumulate_allreduce_grads_in_fp32`
    /// for bf16, and NeMo's `bf16_mixed()` plugin (`recipes/precision/mixed_precision.py`) sets
    /// `grad_reduce_in_fp32=True`. `false` is e.g. NeMo's `pretrain_performance_optimizations`
    /// of the Llama 3 8B/70B and 3.1 405B recipes (`recipe.trainer.plugins.grad_reduce_in_fp32 =
    /// False`, NeMo v2.2.0 `nemo/collections/llm/recipes/llama3_8b.py`, `llama31_405b.py`, used by
    /// `scripts/llm/performance/pretrain_*.py`), which the plugin copies into the DDP config
    /// (`megatron_strategy.py`, `update_config_with_dtype_overrides`); Megatron-Core then
    /// allocates the gradient buffer in the parameter dtype (`param_and_grad_buffer.py`,
    /// `grad_dtype = torch.float if grad_reduce_in_fp32 else param.dtype`).
    pub fn grad_reduce_in_fp32(&self) -> bool {
        self.grad_reduce_in_fp32.unwrap_or(true)
    }

    /// Whether the host issues every operator eagerly: `training.eager`, else yes for eager
    /// PyTorch (`framework` pytorch) only (see the field).
    pub fn eager(&self) -> bool {
        self.eager.unwrap_or(self.framework().traits().eager)
    }

    /// Switches the recomputation to `mode` as a planner does (the search, the advice): Megatron-LM's
    /// recompute modules belong to selective recomputation and are dropped with any other mode
    /// (a scenario that states both is an error, not this).
    pub fn set_recompute(&mut self, mode: Recompute) {
        self.recompute = mode;
        if mode != Recompute::Selective {
            self.recompute_modules = None;
        }
    }

    /// The cross-entropy kernel: `training.loss_kernel`, else Megatron-LM's vocab-parallel one
    /// under Megatron-LM and PyTorch's unfused `cross_entropy` everywhere else.
    pub fn loss_kernel(&self) -> LossKernel {
        self.loss_kernel
            .unwrap_or(if self.framework().traits().vocab_parallel_loss {
                LossKernel::VocabParallel
            } else {
                LossKernel::Unfused
            })
    }

    /// The sequence chunks of the output layer and loss (`training.loss_chunks`), else 1.
    ///
    /// torchtitan's `ChunkedLossWrapper` (`torchtitan/components/loss.py` @bcc09297a, default
    /// `num_chunks = 8`, the loss of its Llama 3 and Qwen3 configs) runs the decoder up to the
    /// final norm, detaches the hidden states, splits them along the sequence and runs the
    /// output GEMM, the cross-entropy (`training.loss_kernel`, per chunk) and their backward
    /// chunk by chunk, gathering the chunks' input gradients for the decoder's backward. A loss
    /// whose chunks are all kept until one backward (torchtune's `CEWithChunkedOutputLoss`,
    /// which only upcasts a chunk at a time) is not this: it is 1.
    pub fn loss_chunks(&self) -> u64 {
        self.loss_chunks.unwrap_or(1).max(1)
    }

    /// The moments' format: `training.optimizer_states`, else fp32 (every stack's default:
    /// PyTorch's Adam allocates them like the fp32 master parameter, Megatron-Core's
    /// `exp_avg_dtype` and `exp_avg_sq_dtype` default to fp32).
    pub fn optimizer_states(&self) -> OptimizerStates {
        self.optimizer_states.unwrap_or(OptimizerStates::Fp32)
    }

    /// Whether the SwiGLU input is stored in FP8 for backward: `training.swiglu_fp8_input`, else
    /// no. Megatron-Core's `TransformerConfig.activation_func_fp8_input_store` (default False;
    /// SwiGLU only, `transformer_config.py` @d98e8a6; a config field with no `pretrain_gpt.py`
    /// flag, `arguments.py` lists it under "no CLI argument exists for these"; Megatron-Bridge
    /// sets it as `model.activation_func_fp8_input_store`): the fused bias-SwiGLU casts the tensor it
    /// saves to `torch.float8_e4m3fn` and back in backward (`fusions/fused_bias_swiglu.py`),
    /// in the dense MLP (`mlp.py`), the shared experts and the grouped routed experts
    /// (`moe/experts.py`), whatever the GEMM precision. DeepSeek-V3 caches the same tensor in
    /// FP8 (arXiv 2412.19437 §3.3.2, "Inputs of the SwiGLU operator in MoE").
    pub fn swiglu_fp8_input(&self) -> bool {
        self.swiglu_fp8_input.unwrap_or(false)
    }

    /// Whether the routed experts weight their rows by the routing probabilities inside the
    /// activation: `training.moe_probs_in_experts`, else yes under Megatron-LM, no elsewhere.
    /// Megatron-Core applies the probabilities in the experts' activation since !2668
    /// ("Memory efficient token permutation", commit `2659630`, 2025-04-09; cherry-picked into
    /// the 0.12 branch as !3310, `d5d00fd`, 2025-05-16, so in core 0.12.1 and later, not in
    /// 0.12.0 and older): `moe/experts.py` computes
    /// `activation(fc1) · probs` (SwiGLU fused: `weighted_bias_swiglu_impl`, which saves only
    /// its input and the probabilities), and the token dispatcher's unpermute no longer
    /// multiplies by the probabilities, so the combine saves no expert output. Without it (core
    /// ≤ 0.12.0; torchtitan's MoE, which multiplies the routed output by the scores after the
    /// experts, or the routed input before them with `score_before_experts`) one `e·h` tensor
    /// per routed row is kept to form the probabilities' gradient
    /// ([`crate::engine::memory::experts`]).
    pub fn moe_probs_in_experts(&self) -> bool {
        self.moe_probs_in_experts
            .unwrap_or(self.framework().traits().moe_probs_in_experts)
    }

    /// Whether the GEMM weights are FP8 tensors: `training.fp8_params`, else no (Megatron-LM's
    /// default). Megatron-LM `--fp8-param-gather` ("Keep the compute param in fp8 (do not use
    /// any other intermediate dtype) and perform the param all-gather in fp8",
    /// `megatron/training/arguments.py` @d98e8a6; only with the distributed optimizer or FSDP,
    /// the same file) builds the model under Transformer Engine's `fp8_model_init`: each GEMM
    /// weight is a `Float8Tensor` whose FP8 data (and the transposed copy Hopper's backward
    /// GEMMs read) replace both the 16-bit weight and the FP8 cache of the default path; the
    /// fp32 master stays in the optimizer, which casts the updated shard to FP8 before the
    /// all-gather. NeMo 2's FP8 precision plugins set it (`bf16_with_fp8_mixed`:
    /// `fp8_params = True` → `fp8_param_gather`, `nemo/collections/llm/recipes/precision/
    /// mixed_precision.py` and `nemo/lightning/pytorch/plugins/mixed_precision.py` @81d94d1501);
    /// Megatron-LM's DeepSeek-V3 GB200 guide lists it as "Primary weights in FP8".
    pub fn fp8_params(&self) -> bool {
        self.fp8_params.unwrap_or(false)
    }

    /// How the master weights are kept: `training.master_weights`, else 16-bit remainders where
    /// Megatron-LM's precision-aware optimizer runs (bf16 moments turn it on; its
    /// `store_param_remainders` defaults to true and has no command-line flag) and the
    /// parameters are bf16, whole fp32 everywhere else. Whether remainders apply to the
    /// precision is [`crate::engine::memory::states::master_as_remainder`]'s question.
    pub fn master_weights(&self) -> MasterWeights {
        self.master_weights.unwrap_or(
            if self.framework().traits().precision_aware_optimizer
                && self.optimizer_states() == OptimizerStates::Bf16
            {
                MasterWeights::Remainder
            } else {
                MasterWeights::Fp32
            },
        )
    }

    /// Offloaded fraction of the optimizer states, 0..1 (default 0).
    pub fn optimizer_offload(&self) -> f64 {
        self.optimizer_offload.unwrap_or(0.0).clamp(0.0, 1.0)
    }

    /// Offloaded fraction of the stored layer activations, 0..1 (default 0).
    pub fn activation_offload(&self) -> f64 {
        self.activation_offload.unwrap_or(0.0).clamp(0.0, 1.0)
    }

    /// The software stack: the scenario's, else Megatron-LM (`DESIGN.md`).
    pub fn framework(&self) -> Framework {
        self.framework.unwrap_or_default()
    }

    /// The FP8 scaling recipe in effect: `None` unless the precision is fp8, then the
    /// scenario's recipe or Transformer Engine's default, delayed scaling.
    pub fn fp8_recipe(&self) -> Option<Fp8Recipe> {
        (self.precision == Precision::Fp8).then(|| self.fp8_recipe.unwrap_or_default())
    }
}

pub use crate::engine::framework::Framework;

/// How the loss is computed from the logits, which sets what the loss keeps for backward and
/// the transient at its backward (`engine::memory::activations::output_bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKernel {
    /// PyTorch's `cross_entropy` on fp32 logits (Hugging Face models, torchtitan): keeps the
    /// fp32 log-softmax; its backward holds two more fp32 tensors of the logits' size, three
    /// under torchtitan with TP (DTensor loss parallel,
    /// `crate::engine::memory::loss_parallel`).
    Unfused,
    /// PyTorch's `cross_entropy` on the 16-bit logits themselves, with no fp32 upcast (NeMo
    /// Automodel's `MaskedCrossEntropy(fp32_upcast=False)`): the same operators as
    /// [`LossKernel::Unfused`] in the logits' dtype, so it keeps the 16-bit log-softmax and its
    /// backward holds two more 16-bit tensors of the logits' size.
    Unfused16,
    /// Megatron-LM's vocab-parallel cross-entropy: keeps the fp32 softmax and turns it into the
    /// gradient in place.
    VocabParallel,
    /// A fused kernel on the 16-bit logits (flash-attn's `xentropy`, llm-foundry's default
    /// `fused_crossentropy`): keeps the logits and the per-token log-sum-exp; its backward
    /// writes one gradient of the logits' size. PyTorch's `cross_entropy(pred.float(), …)`
    /// compiled by `torch.compile` is one too: Inductor fuses the fp32 upcast and the
    /// log-softmax into reductions over the 16-bit input, which is what the backward needs
    /// saved (with the per-row max and log-sum-exp), and lowers the NLL backward's one-hot
    /// scatter to a pointwise `where` (`torch/_inductor/config.py`
    /// `optimize_scatter_upon_const_tensor`, on by default), so the backward writes one 16-bit
    /// gradient. torchtitan compiles its loss whenever `training.compile` is on from
    /// pytorch/torchtitan bbb1b616e (2025-04-02; `torchtitan/components/loss.py`
    /// `build_cross_entropy_loss`, e.g. @e7c0cae); at 9dec370 (the public
    /// `docs/performance.md` runs) the line is commented out ("compiling loss function causes
    /// CUDA errors"), so the stack's default stays [`LossKernel::Unfused`] and a scenario of
    /// a later compiled run states `fused`.
    Fused,
}

impl LossKernel {
    /// All values, for dropdowns.
    pub const ALL: &'static [LossKernel] = &[
        LossKernel::Unfused,
        LossKernel::Unfused16,
        LossKernel::VocabParallel,
        LossKernel::Fused,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            LossKernel::Unfused => "unfused",
            LossKernel::Unfused16 => "unfused_16bit",
            LossKernel::VocabParallel => "vocab_parallel",
            LossKernel::Fused => "fused",
        }
    }
}

/// The number format Adam keeps its first and second moments (`exp_avg`, `exp_avg_sq`) in;
/// the master weights and the gradients keep theirs.
///
/// bf16 moments are DeepSeek-V3's recipe (arXiv 2412.19437 §3.3.3, "Low-Precision Optimizer
/// States": the AdamW moments tracked in BF16, master weights and gradients kept in FP32).
/// Megatron-Core runs them with its precision-aware optimizer (`--use-precision-aware-optimizer
/// --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16`, `megatron/training/arguments.py` @d98e8a6;
/// Transformer Engine's `FusedAdam`, distributed optimizer only), torchtitan with
/// `optimizer.implementation = "fused_opt_states_bf16"` (`components/optimizer/optimizer.py`,
/// since #2732, 2026-04). DeepSpeed's ZeRO optimizers keep fp32 moments (no switch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimizerStates {
    /// 4 B per moment (the default).
    Fp32,
    /// 2 B per moment.
    Bf16,
}

impl OptimizerStates {
    /// All values, for dropdowns.
    pub const ALL: &'static [OptimizerStates] = &[OptimizerStates::Fp32, OptimizerStates::Bf16];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            OptimizerStates::Fp32 => "fp32",
            OptimizerStates::Bf16 => "bf16",
        }
    }

    /// Bytes of one moment of one parameter.
    pub fn moment_bytes(self) -> f64 {
        match self {
            OptimizerStates::Fp32 => 4.0,
            OptimizerStates::Bf16 => 2.0,
        }
    }
}

/// How the optimizer stores the fp32 master copy of a bf16 parameter.
///
/// Megatron-Core's precision-aware optimizer (`--use-precision-aware-optimizer`, distributed
/// optimizer only) hands the master weights to Transformer Engine's `FusedAdam`, which with
/// `store_param_remainders` (Megatron-Core `OptimizerConfig`, default true since !2611,
/// 2025-02; TE ≥ 2.1) keeps only the low 16 bits of each fp32 master weight, the high 16 being
/// the bf16 parameter itself (`fused_adam.py`: "Works only when param type is BF16 and master
/// weight type is FP32"). NeMo's performance scripts turn that optimizer on for every bf16 run
/// (`scripts/performance/utils.py` @7a8f1cc, `set_primary_perf_configs`), with fp32 moments.
///
/// Some stacks keep no master copy at all: the optimizer's dtype is the model's 16-bit dtype,
/// so Adam updates the 16-bit parameters in place. NeMo 1 with `distributed_fused_adam` does
/// so when the optimizer `dtype` equals the model's (NVIDIA/NeMo r2.0.0rc1 `579983f`,
/// `nemo/collections/nlp/models/language_modeling/megatron_base_model.py` l. 797-801:
/// `store_params = False`, no `store_param_remainders`; Nemotron-4 340B's launcher YAML sets
/// `dtype: bf16`), and torchtitan with `training.dtype = "bfloat16"` ("all parameters,
/// gradients, and optimizer states in bfloat16, without an extra copy of fp32 weights",
/// `torchtitan/config/configs.py` l. 87-92 @b5bcd76).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MasterWeights {
    /// A whole fp32 copy, 4 B per parameter.
    Fp32,
    /// The low 16 bits next to the bf16 parameter, 2 B per parameter.
    Remainder,
    /// No copy: the 16-bit parameters are their own master weights, 0 B per parameter.
    None,
}

impl MasterWeights {
    /// All values, for dropdowns.
    pub const ALL: &'static [MasterWeights] = &[
        MasterWeights::Fp32,
        MasterWeights::Remainder,
        MasterWeights::None,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            MasterWeights::Fp32 => "fp32",
            MasterWeights::Remainder => "remainder",
            MasterWeights::None => "none",
        }
    }
}

/// A fused attention kernel (the engine prices each at its published throughput per GPU
/// generation, `engine::time::attention`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttentionKernel {
    /// FlashAttention-2 (flash-attn 2.x, PyTorch SDPA's flash backend); Ampere and newer.
    Fa2,
    /// FlashAttention-3; Hopper only.
    Fa3,
    /// cuDNN fused attention (Transformer Engine, XLA); Ampere and newer.
    Cudnn,
    /// The Triton FlashAttention kernel MPT's `attn_impl: triton` runs (Tri Dao's
    /// `flash_attn_triton.py` on the pre-MLIR Triton fork `triton-pre-mlir`, llm-foundry 2023),
    /// compiled with Ampere's instructions on every GPU; Ampere and Hopper.
    Triton,
}

impl AttentionKernel {
    /// All values, for dropdowns.
    pub const ALL: &'static [AttentionKernel] = &[
        AttentionKernel::Fa2,
        AttentionKernel::Fa3,
        AttentionKernel::Cudnn,
        AttentionKernel::Triton,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AttentionKernel::Fa2 => "fa2",
            AttentionKernel::Fa3 => "fa3",
            AttentionKernel::Cudnn => "cudnn",
            AttentionKernel::Triton => "triton",
        }
    }
}

/// FP8 scaling recipe (`DESIGN.md`): Transformer Engine's delayed and current ("tensorwise")
/// scaling, torchao's rowwise scaling, DeepSeek-V3-style blockwise (1×128 / 128×128) scaling and
/// the OCP microscaling format MXFP8 (Blackwell).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fp8Recipe {
    /// Per-tensor scales from an amax history (Transformer Engine `DelayedScaling`).
    #[default]
    Delayed,
    /// Per-tensor scales from the current amax (TE `Float8CurrentScaling`, torchao tensorwise).
    Tensorwise,
    /// One scale per row (torchao `rowwise`).
    Rowwise,
    /// One scale per 1×128 / 128×128 block (DeepSeek-V3, TE `Float8BlockScaling`).
    Blockwise,
    /// One shared exponent per 32 elements (OCP MX, TE `MXFP8BlockScaling`; Blackwell).
    Mxfp8,
}

impl Fp8Recipe {
    /// All values, for dropdowns.
    pub const ALL: &'static [Fp8Recipe] = &[
        Fp8Recipe::Delayed,
        Fp8Recipe::Tensorwise,
        Fp8Recipe::Rowwise,
        Fp8Recipe::Blockwise,
        Fp8Recipe::Mxfp8,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Fp8Recipe::Delayed => "delayed",
            Fp8Recipe::Tensorwise => "tensorwise",
            Fp8Recipe::Rowwise => "rowwise",
            Fp8Recipe::Blockwise => "blockwise",
            Fp8Recipe::Mxfp8 => "mxfp8",
        }
    }
}

/// Training precision. `fp16`/`bf16` are mixed precision with fp32 master weights; `fp8` is
/// Transformer-Engine-style FP8 GEMMs with bf16 weights kept as well; `nvfp4` is the same with
/// NVFP4 GEMMs (Blackwell; TE `NVFP4BlockScaling`, Megatron-LM `--fp4-format e2m1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// Full fp32 training.
    Fp32,
    /// fp16 mixed precision (loss scaling).
    Fp16,
    /// bf16 mixed precision.
    Bf16,
    /// FP8 GEMMs (Transformer Engine), bf16 elsewhere.
    Fp8,
    /// NVFP4 GEMMs (4-bit E2M1 values, an E4M3 scale per 16 elements and an fp32 scale per
    /// tensor; Transformer Engine), bf16 elsewhere. Blackwell only.
    Nvfp4,
}

impl Precision {
    /// All values, for dropdowns.
    pub const ALL: &'static [Precision] = &[
        Precision::Fp32,
        Precision::Fp16,
        Precision::Bf16,
        Precision::Fp8,
        Precision::Nvfp4,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
            Precision::Nvfp4 => "nvfp4",
        }
    }
}

/// The optimizer. Only Adam(W) is modelled (two fp32 moments per parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Optimizer {
    /// Adam or AdamW.
    #[default]
    Adam,
}

/// Activation recomputation (checkpointing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recompute {
    /// Store everything.
    None,
    /// Recompute the attention core only (Korthikanti et al. 2022 §4.3).
    Selective,
    /// Store each layer's input only and recompute the whole layer.
    Full,
}

impl Recompute {
    /// All values, for dropdowns.
    pub const ALL: &'static [Recompute] = &[Recompute::None, Recompute::Selective, Recompute::Full];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Recompute::None => "none",
            Recompute::Selective => "selective",
            Recompute::Full => "full",
        }
    }
}
