//! Framework memory overheads: what a real process holds besides model states and activations.

/// Per-GPU memory the framework adds, each term explicit so users can change it.
/// Every field is optional; `None` means the documented default (see the accessors).
///
/// # Example
/// ```
/// let o = paracalc::scenario::Overhead::default();
/// assert_eq!(o.cuda_context_gib(), 1.3);
/// assert_eq!(o.comm_buffers_gib(0.75), 0.75); // the engine's NCCL buffers unless set
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

    /// NCCL buffers per communicator where NCCL's channel count is not known (Volta: no
    /// `NCCL_DEBUG=INFO` log of its channels was read), GiB: 0.25, a round figure, not derived.
    /// Every other GPU gets what NCCL allocates for its channels and connections
    /// (`engine::memory::overhead::communicator_bytes`).
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

    /// Communication buffers, GiB: the scenario's value, else `derived`, what NCCL allocates
    /// for the layout's communicators (`engine::memory::overhead::comm_buffers_bytes`).
    pub fn comm_buffers_gib(&self, derived: f64) -> f64 {
        self.comm_buffers_gib.unwrap_or(derived)
    }

    /// Allocator reserve, percent: the scenario's value or [`Self::DEFAULT_ALLOCATOR_RESERVE_PCT`].
    pub fn allocator_reserve_pct(&self) -> f64 {
        self.allocator_reserve_pct
            .unwrap_or(Self::DEFAULT_ALLOCATOR_RESERVE_PCT)
    }
}
