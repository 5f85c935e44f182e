//! Framework memory overheads: what a real process holds besides model states and activations.

/// Per-GPU memory the framework adds, each term explicit so users can change it.
/// Every field is optional; `None` means the documented default (see the accessors).
///
/// # Example
/// ```
/// let o = paracalc::scenario::Overhead::default();
/// assert_eq!(o.cuda_context_gib(), 1.3);
/// assert_eq!(o.comm_buffers_gib(3), 0.75); // three communicators (e.g. TP, PP, DP)
/// assert_eq!(o.allocator_reserve_pct(), 5.0);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overhead {
    /// CUDA context and kernels' module images, GiB (nvidia-smi shows it, the allocator does not).
    pub cuda_context_gib: Option<f64>,
    /// NCCL / communication buffers, GiB.
    pub comm_buffers_gib: Option<f64>,
    /// Allocator reserve and fragmentation, as a percentage of the allocated bytes.
    pub allocator_reserve_pct: Option<f64>,
}

impl Overhead {
    /// Default CUDA context, GiB: 1.3. The Hugging Face `model_memory_anatomy.md` guide measures
    /// 1343 MiB of nvidia-smi "used" memory after creating a one-element tensor (CUDA context plus
    /// the PyTorch/cuBLAS/cuDNN kernel images); the validation README uses the same ~1.3 GiB.
    pub const DEFAULT_CUDA_CONTEXT_GIB: f64 = 1.3;

    /// Default NCCL buffers per communicator a GPU belongs to (TP, CP, EP, PP, DP groups of more
    /// than one rank), GiB: 0.25. NCCL gives every channel a receive buffer per protocol and peer —
    /// `NCCL_BUFFSIZE` 4 MiB (Simple) + ~4.6 MiB (LL128) + 256 KiB (LL) ≈ 9 MiB — and uses up to
    /// 24–32 channels on NVLink, i.e. about 0.2–0.3 GiB per ring communicator.
    pub const DEFAULT_COMM_BUFFERS_GIB_PER_COMMUNICATOR: f64 = 0.25;

    /// Default allocator reserve, percent of the allocated bytes: 5. The PyTorch caching allocator
    /// rounds and caches blocks, so reserved memory exceeds the live tensors; Megatron-LM's
    /// `theoretical_memory_usage.py` applies the same 5 % (its `× 1.05`) for fragmentation.
    pub const DEFAULT_ALLOCATOR_RESERVE_PCT: f64 = 5.0;

    /// Whether every field is at its default (then the section is omitted from JSON).
    pub fn is_default(&self) -> bool {
        *self == Overhead::default()
    }

    /// CUDA context, GiB: the scenario's value or [`Self::DEFAULT_CUDA_CONTEXT_GIB`].
    pub fn cuda_context_gib(&self) -> f64 {
        self.cuda_context_gib
            .unwrap_or(Self::DEFAULT_CUDA_CONTEXT_GIB)
    }

    /// Communication buffers, GiB, for a GPU in `communicators` NCCL communicators: the
    /// scenario's value, else [`Self::DEFAULT_COMM_BUFFERS_GIB_PER_COMMUNICATOR`] each.
    pub fn comm_buffers_gib(&self, communicators: u64) -> f64 {
        self.comm_buffers_gib
            .unwrap_or(Self::DEFAULT_COMM_BUFFERS_GIB_PER_COMMUNICATOR * communicators as f64)
    }

    /// Allocator reserve, percent: the scenario's value or [`Self::DEFAULT_ALLOCATOR_RESERVE_PCT`].
    pub fn allocator_reserve_pct(&self) -> f64 {
        self.allocator_reserve_pct
            .unwrap_or(Self::DEFAULT_ALLOCATOR_RESERVE_PCT)
    }
}
