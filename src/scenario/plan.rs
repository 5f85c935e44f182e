//! The [`Scenario`] itself: its four sections plus overheads and calibration, and what it
//! resolves across them (the stack's defaults in effect: ZeRO-3's style, DP overlap, the
//! recomputed modules; the GPU's numbers). Reading, writing and checking a scenario sit above
//! it, in [`super`] ([`super::parse`], [`Scenario::validate`]), so the sections' readers and
//! checks can name the type without reaching back into their parent.

use super::calibration::Calibration;
use super::cluster::Cluster;
use super::gpu::GpuSpec;
use super::model::Model;
use super::overhead::Overhead;
use super::parallel::{FsdpStyle, Parallel};
use super::recompute_modules::RecomputeModules;
use super::training::{Recompute, Training};

/// One planned training run: what is trained, how, with which layout, on what hardware.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The Transformer architecture.
    pub model: Model,
    /// Batch, precision, optimizer and recomputation.
    pub training: Training,
    /// The parallel layout (TP/PP/DP/CP/EP, interleaving, ZeRO, schedule, buckets).
    pub parallel: Parallel,
    /// GPUs, their count and their links.
    pub cluster: Cluster,
    /// Framework memory overheads (CUDA context, communication buffers, allocator reserve).
    pub overhead: Overhead,
    /// Factors fitted to one measured run of the user's cluster (`paracalc calibrate`); every
    /// estimate of the scenario applies them. Absent = not calibrated.
    pub calibration: Calibration,
}

impl Scenario {
    /// ZeRO-3's sharding style in effect: `parallel.fsdp_style`, else the framework's default
    /// ([`crate::engine::framework::Traits::fsdp_style`]).
    pub fn fsdp_style(&self) -> FsdpStyle {
        self.parallel
            .fsdp_style
            .unwrap_or(self.training.framework().traits().fsdp_style)
    }

    /// Whether tensor parallel `tp` splits the key/value heads as the stack runs them: `tp`
    /// divides them, or under Megatron-LM `tp` is a multiple of them (Megatron-LM f7dfb99, PR
    /// #2565, December 2025, `transformer_config.py`: `num_query_groups` "must be a multiple or
    /// divisor of" TP). Then each rank gathers the fused QKV output over TP and keeps one
    /// K/V head, which `tp / kv_heads` ranks share ([`crate::engine::shape::Shape::kv_rank`]).
    pub fn tp_splits_kv_heads(&self, tp: u64) -> bool {
        let kv = self.model.kv_heads();
        let tp = tp.max(1);
        kv % tp == 0
            || (self.training.framework().traits().tp_multiple_of_kv_heads
                && kv > 0
                && tp % kv == 0)
    }

    /// Whether each TP rank replicates one K/V head ([`Scenario::tp_splits_kv_heads`]): Megatron-LM
    /// with fewer key/value heads than TP ranks, standard attention.
    pub fn tp_replicates_kv_heads(&self) -> bool {
        let kv = self.model.kv_heads();
        self.model.mla.is_none()
            && kv > 0
            && kv < self.parallel.tp
            && self.tp_splits_kv_heads(self.parallel.tp)
    }

    /// Whether the data-parallel gradient reduction (and ZeRO-1/2's parameter all-gather)
    /// overlaps compute: `parallel.dp_comm_overlap`, else the framework's default. Megatron-LM
    /// (`--overlap-grad-reduce`, on in every published recipe), FSDP and torchtitan overlap;
    /// DeepSpeed overlaps only ZeRO-3: its `overlap_comm` defaults to `stage == 3`
    /// (`deepspeed/runtime/zero/config.py`, `overlap_comm_valid`, at 38327e07f), and its
    /// pipeline engine reduces after the last micro-batch (`ReduceGrads` in `TrainSchedule`).
    pub fn dp_comm_overlap(&self) -> bool {
        self.parallel.dp_comm_overlap.unwrap_or(
            self.training.framework().traits().dp_overlap_below_zero3
                || self.parallel.zero_stage >= 3,
        )
    }

    /// Whether full recomputation skips each dense layer's last weight GEMM:
    /// `training.recompute_early_stop`, else yes for PyTorch FSDP (framework `pytorch` with
    /// ZeRO-3) and no for every other stack.
    ///
    /// PyTorch's non-reentrant `torch.utils.checkpoint` (since PyTorch 2.1, pytorch/pytorch PR
    /// #90105) "stops recomputation as soon as we've recomputed the saved tensors we know we
    /// need" (`torch/utils/checkpoint.py`, Rule 5; `set_checkpoint_early_stop`, default on): its
    /// pack hook raises once the last tensor the forward saved has been saved again. An operator
    /// saves its inputs before it runs, so in a pre-norm block that ends in the MLP output
    /// projection and a residual add the rerun stops before that GEMM's kernel.
    /// - PyTorch FSDP checkpoints through `checkpoint_wrapper`, whose default is the
    ///   non-reentrant implementation (`torch/distributed/algorithms/_checkpoint/
    ///   checkpoint_wrapper.py`, `CheckpointImpl.NO_REENTRANT`), e.g. MPT under llm-foundry
    ///   (`fsdp_config.activation_checkpointing_reentrant: false`; blocks end in the down
    ///   projection and a dropout-free residual add).
    /// - torchtitan turns it off: `early_stop: bool = False` in its activation-checkpointing
    ///   config, passed to `checkpoint_wrapper` (pytorch/torchtitan 25413d224, 2025-08-29).
    /// - Megatron-LM's and DeepSpeed's reentrant checkpoint functions rerun the whole layer, and
    ///   the Hugging Face Trainer's checkpoint is reentrant by default (`use_reentrant=True`)
    ///   around post-norm layers with dropout.
    pub fn recompute_early_stop(&self) -> bool {
        self.training.recompute_early_stop.unwrap_or(
            self.training.framework().traits().fsdp_recompute_early_stop
                && self.parallel.zero_stage >= 3,
        )
    }

    /// The modules selective recomputation reruns, Megatron-LM's way
    /// ([`RecomputeModules`]), or `None` where the stack checkpoints per operator instead.
    /// - `training.recompute_modules` when given (Megatron-LM only, validation says so);
    /// - else Megatron-LM's default `["core_attn"]` (`transformer_config.py`) for the Megatron
    ///   stack, with or without flash attention;
    /// - else `None`: the other stacks' `selective` with flash attention is per-operator
    ///   selective checkpointing (torchtitan's op policy, [`crate::engine::memory::activations`]),
    ///   and without flash attention the attention core, which is `core_attn`.
    ///
    /// Always `None` unless `training.recompute` is selective.
    pub fn recompute_modules(&self) -> Option<RecomputeModules> {
        if self.training.recompute != Recompute::Selective {
            return None;
        }
        self.selective_modules()
    }

    /// The modules this plan's stack reruns under selective recomputation, whatever
    /// `training.recompute` is now ([`Scenario::recompute_modules`]'s rules).
    fn selective_modules(&self) -> Option<RecomputeModules> {
        let t = &self.training;
        match t.recompute_modules {
            Some(m) => Some(m),
            None if t.framework().traits().recompute_modules => Some(RecomputeModules::CORE_ATTN),
            None if !t.flash_attention => Some(RecomputeModules::CORE_ATTN),
            None => None,
        }
    }

    /// What `mode` recomputes under this plan's stack, in words: `none`, `full`, `selective
    /// (mla_up_proj, layernorm)` with Megatron-LM's modules ([`Scenario::recompute_modules`] for
    /// selective), or `selective (per-op)` where the stack checkpoints per operator.
    pub fn recompute_label(&self, mode: Recompute) -> String {
        if mode != Recompute::Selective {
            return mode.as_str().to_string();
        }
        match self.selective_modules() {
            Some(m) => format!("selective ({})", m.list()),
            None => match self.training.remat_saved {
                Some(n) => format!("selective (saves {})", n.list()),
                None => "selective (per-op)".to_string(),
            },
        }
    }

    /// The same plan without its calibration (the model's own rates and memory).
    pub fn uncalibrated(&self) -> Scenario {
        let mut u = self.clone();
        u.calibration = Calibration::default();
        u
    }

    /// The GPU's numbers: the preset named by `cluster.gpu` or the custom object, with the
    /// optional link overrides applied. `None` when the preset id is unknown (validation reports it).
    pub fn gpu(&self) -> Option<GpuSpec> {
        self.cluster.gpu_spec()
    }
}
