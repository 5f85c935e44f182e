//! The parallel section: how the model and the batch are split over GPUs.

use serde::Serialize;

/// The parallel layout. `tp·pp·dp·cp` must equal the number of GPUs; experts are spread inside
/// `dp` (`ep` divides `dp`). Optional fields default as in `DESIGN.md`.
#[derive(Clone, Debug, PartialEq)]
pub struct Parallel {
    /// Tensor-parallel degree `t` (Megatron intra-layer split).
    pub tp: u64,
    /// Pipeline-parallel degree `p` (stages).
    pub pp: u64,
    /// Data-parallel degree `d` (model replicas).
    pub dp: u64,
    /// Context-parallel degree `c` (sequence split for attention).
    pub cp: u64,
    /// Expert-parallel degree `e` (inside dp).
    pub ep: u64,
    /// Model chunks per pipeline rank `v` (interleaved 1F1B); 1 = not interleaved.
    pub vp: u64,
    /// Megatron sequence parallelism (with `tp > 1`).
    pub sp: bool,
    /// ZeRO stage 0..3 (1 = Megatron's distributed optimizer; 3 = FSDP full shard).
    pub zero_stage: u8,
    /// Pipeline schedule. Default: interleaved when `vp > 1`, else 1F1B.
    pub schedule: Option<Schedule>,
    /// Layers on each pipeline stage (length `pp`, sum `layers`). Default: as even as possible.
    pub layers_per_stage: Option<Vec<u64>>,
    /// Gradient bucket size in MB (10⁶ bytes) for DP/ZeRO reduction. Default: the framework's.
    pub bucket_mb: Option<f64>,
    /// Overlap TP communication with GEMMs (Transformer Engine userbuffers). Default: off.
    pub tp_comm_overlap: Option<bool>,
    /// Overlap DP gradient reduction with the backward pass. Default: the framework's
    /// ([`crate::scenario::Scenario::dp_comm_overlap`]).
    pub dp_comm_overlap: Option<bool>,
    /// Expert tensor parallel size: how many ranks split each expert's weights. Default: `tp`.
    /// Experts are spread over `ep·etp` ranks folded into `tp·cp·dp` (Megatron-Core MoE
    /// parallel folding, `--expert-tensor-parallel-size`).
    pub etp: Option<u64>,
    /// HSDP: ZeRO/FSDP shards over this many data-parallel ranks and replicates across the
    /// rest. Default: all of `dp`.
    pub shard_ranks: Option<u64>,
    /// Overlap pipeline sends/receives with compute. Default: the framework's (Megatron-LM's
    /// `overlap_p2p_comm`, on with the interleaved schedule).
    pub pp_comm_overlap: Option<bool>,
    /// Pipeline rounds per step: the trainer runs its pipeline schedule this many times per
    /// optimizer step, each over an equal share of the micro-batches and draining the pipeline
    /// before the next (NeMo Automodel calls `schedule.step` once per gradient-accumulation step
    /// on its local batch, `recipes/llm/benchmark.py` and `train_ft.py` @89e3a9fdd). Default 1:
    /// one schedule over all the step's micro-batches (Megatron-LM).
    pub pp_rounds: Option<u64>,
    /// How ZeRO-3/FSDP gathers parameters. Default: the framework's (DeepSpeed per parameter
    /// tensor, torchtitan FSDP2 per block with copy-out, others per block).
    pub fsdp_style: Option<FsdpStyle>,
    /// How MoE tokens reach their experts across nodes. Default: the framework's (all of them
    /// run an NCCL all-to-all; DeepEP is opt-in everywhere).
    pub moe_dispatcher: Option<MoeDispatcher>,
    /// Send the MoE dispatch (and the combine's backward, the gradients travelling the same
    /// way) in FP8 with block scales, the combine (and the dispatch's backward) in BF16
    /// (DeepSeek-V3 report §3.3.2; Megatron-Core `moe_dispatch_fwd_dtype` /
    /// `moe_combine_bwd_dtype`). Default: off (every framework's default is BF16 on the wire).
    pub moe_dispatch_fp8: Option<bool>,
}

/// How ZeRO-3 / FSDP gathers parameters and reduces gradients (the engine prices each,
/// `engine::time::zero3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsdpStyle {
    /// DeepSpeed ZeRO-3: one all-gather per weight tensor, gradients in 5e8-element buckets.
    PerParameter,
    /// FSDP1 flat parameters: one all-gather and one reduce-scatter per wrapped block.
    PerBlock,
    /// FSDP2 `fully_shard`: per block, plus the copy-out/copy-in of the gathered buffers.
    PerBlockCopy,
    /// DeepSpeed ZeRO-3 as released in 2021 (v0.3.13–v0.5.4): one all-gather and one
    /// reduce-scatter per weight tensor, each after a device synchronisation, through PyTorch's
    /// list collectives (one copy per rank per call).
    PerParameterSync,
}

impl FsdpStyle {
    /// All values, for dropdowns.
    pub const ALL: &'static [FsdpStyle] = &[
        FsdpStyle::PerParameter,
        FsdpStyle::PerBlock,
        FsdpStyle::PerBlockCopy,
        FsdpStyle::PerParameterSync,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FsdpStyle::PerParameter => "per_parameter",
            FsdpStyle::PerBlock => "per_block",
            FsdpStyle::PerBlockCopy => "per_block_copy",
            FsdpStyle::PerParameterSync => "per_parameter_sync",
        }
    }
}

/// How an MoE layer dispatches tokens to the expert-parallel ranks and combines them back (the
/// engine prices each, `engine::time::moe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoeDispatcher {
    /// An NCCL all-to-all: every routed copy of a token travels to its expert's GPU on its own
    /// (Megatron-Core `--moe-token-dispatcher-type alltoall`, torchtitan's default).
    Alltoall,
    /// DeepEP's normal kernels: a token travels once per GPU holding at least one of its
    /// experts, not once per routed copy; it crosses the network once per destination node, to
    /// the GPU with the same in-node index, which forwards it over NVLink to the GPUs there that
    /// hold its experts (Megatron-Core `--moe-token-dispatcher-type flex --moe-enable-deepep`).
    Deepep,
}

impl MoeDispatcher {
    /// All values, for dropdowns.
    pub const ALL: &'static [MoeDispatcher] = &[MoeDispatcher::Alltoall, MoeDispatcher::Deepep];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            MoeDispatcher::Alltoall => "alltoall",
            MoeDispatcher::Deepep => "deepep",
        }
    }
}

/// Pipeline schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    /// One-forward-one-backward (PipeDream-Flush), Megatron's default.
    #[serde(rename = "1f1b")]
    OneFOneB,
    /// Interleaved 1F1B with `vp` model chunks per rank.
    Interleaved,
    /// All forwards, then all backwards.
    Gpipe,
    /// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §2.1): 1F1B with the
    /// backward split into input-gradient (B) and weight-gradient (W) passes, W delayed to fill
    /// the cool-down; same activation memory as 1F1B.
    #[serde(rename = "zb-h1")]
    ZbH1,
    /// ZB-V (Qi et al. 2024, the V-shape zero-bubble schedule; sail-sg/zero-bubble-pipeline-parallelism
    /// README): exactly two chunks per rank (`vp = 2`) placed in a V, zero bubble when
    /// `T_F = T_B = T_W`, 1F1B's activation memory.
    #[serde(rename = "zb-v")]
    ZbV,
    /// DualPipe (DeepSeek-V3 technical report §3.2.1; deepseek-ai/DualPipe): bidirectional,
    /// every rank holds two pipeline stages (two copies of the parameters), forward and backward
    /// chunks overlapped with the other's communication.
    #[serde(rename = "dualpipe")]
    DualPipe,
    /// DualPipeV (deepseek-ai/DualPipe README, Sea AI Lab's "cut-in-half"): DualPipe folded into
    /// a V over `pp` ranks with two chunks each (`vp = 2`).
    #[serde(rename = "dualpipev")]
    DualPipeV,
}

impl Schedule {
    /// All values, for dropdowns.
    pub const ALL: &'static [Schedule] = &[
        Schedule::OneFOneB,
        Schedule::Interleaved,
        Schedule::Gpipe,
        Schedule::ZbH1,
        Schedule::ZbV,
        Schedule::DualPipe,
        Schedule::DualPipeV,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Schedule::OneFOneB => "1f1b",
            Schedule::Interleaved => "interleaved",
            Schedule::Gpipe => "gpipe",
            Schedule::ZbH1 => "zb-h1",
            Schedule::ZbV => "zb-v",
            Schedule::DualPipe => "dualpipe",
            Schedule::DualPipeV => "dualpipev",
        }
    }

    /// Model chunks per rank the schedule needs (`parallel.vp`): 2 for the V-shaped ones, more
    /// than 1 for interleaved, else 1.
    pub fn needs_vp(self, vp: u64) -> bool {
        match self {
            Schedule::Interleaved => vp > 1,
            Schedule::ZbV | Schedule::DualPipeV => vp == 2,
            _ => vp == 1,
        }
    }

    /// Chunks in a V: chunk `k < pp` on rank `k`, chunk `k ≥ pp` on rank `2·pp − 1 − k`, so rank 0
    /// holds the first and the last chunk (embedding and loss).
    #[inline]
    pub fn v_shape(self) -> bool {
        matches!(self, Schedule::ZbV | Schedule::DualPipeV)
    }

    /// The backward pass is split into input-gradient (B) and weight-gradient (W) work.
    pub fn splits_backward(self) -> bool {
        matches!(
            self,
            Schedule::ZbH1 | Schedule::ZbV | Schedule::DualPipe | Schedule::DualPipeV
        )
    }

    /// Forward and backward chunks of two micro-batches run overlapped, each hiding the other's
    /// communication (DeepSeek-V3 report §3.2.1, Fig. 4).
    #[inline]
    pub fn overlaps_chunks(self) -> bool {
        matches!(self, Schedule::DualPipe | Schedule::DualPipeV)
    }
}

impl Default for Parallel {
    /// One GPU of everything (tp = pp = dp = cp = ep = vp = 1) and every optional field at its
    /// default: a base for struct update (`Parallel { tp: 8, ..Parallel::default() }`), so a new
    /// optional field needs no change where layouts are built.
    fn default() -> Parallel {
        Parallel {
            tp: 1,
            pp: 1,
            dp: 1,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 0,
            schedule: None,
            layers_per_stage: None,
            bucket_mb: None,
            tp_comm_overlap: None,
            dp_comm_overlap: None,
            etp: None,
            shard_ranks: None,
            pp_comm_overlap: None,
            pp_rounds: None,
            fsdp_style: None,
            moe_dispatcher: None,
            moe_dispatch_fp8: None,
        }
    }
}

impl Parallel {
    /// The schedule in effect: the explicit one, else interleaved when `vp > 1`, else 1F1B.
    #[inline]
    pub fn schedule(&self) -> Schedule {
        self.schedule.unwrap_or(if self.vp > 1 {
            Schedule::Interleaved
        } else {
            Schedule::OneFOneB
        })
    }

    /// Whether TP communication overlaps GEMMs (default off).
    pub fn tp_comm_overlap(&self) -> bool {
        self.tp_comm_overlap.unwrap_or(false)
    }

    /// Whether the MoE dispatch travels in FP8 (default off).
    pub fn moe_dispatch_fp8(&self) -> bool {
        self.moe_dispatch_fp8.unwrap_or(false)
    }

    /// Expert tensor parallel size (default `tp`).
    #[inline]
    pub fn etp(&self) -> u64 {
        self.etp.unwrap_or(self.tp)
    }

    /// Pipeline rounds per step (default 1).
    #[inline]
    pub fn pp_rounds(&self) -> u64 {
        self.pp_rounds.unwrap_or(1).max(1)
    }

    /// Data-parallel ranks the ZeRO/FSDP shards span (default all of `dp`).
    pub fn shard_ranks(&self) -> u64 {
        self.shard_ranks.unwrap_or(self.dp)
    }
}
