//! Framework memory overheads: what a real process holds besides model states and activations.

use serde::{Deserialize, Serialize};

/// Per-GPU memory the framework adds, each term explicit so users can change it.
/// Every field is optional; `None` means the documented default (see the accessors).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overhead {
    /// CUDA context and kernels' module images, GiB (nvidia-smi shows it, the allocator does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_context_gib: Option<f64>,
    /// NCCL / communication buffers, GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comm_buffers_gib: Option<f64>,
    /// Allocator reserve and fragmentation, as a percentage of the allocated bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocator_reserve_pct: Option<f64>,
}

impl Overhead {
    /// Whether every field is at its default (then the section is omitted from JSON).
    pub fn is_default(&self) -> bool {
        *self == Overhead::default()
    }
}
