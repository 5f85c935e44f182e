//! The gradient bucket of the data-parallel reduction: one size, worked out here and read by
//! the memory model (ZeRO-2's unsharded bucket, [`super::memory::overhead`]), the time model
//! (how many reductions, and the exposed tail, [`super::time::data_parallel`]), the bucket chart
//! (through [`super::TimeEstimate::dp_bucket_bytes`]), the advice (its bucket candidates,
//! [`super::advice`]) and the Megatron-LM export (`--ddp-bucket-size`).

use super::memory::states::ParamBytes;
use super::time::stack::DEEPSPEED_REDUCE_BUCKET_ELEMENTS;
use crate::scenario::Scenario;

/// Megatron DDP's default bucket, elements (`DistributedDataParallelConfig.bucket_size`:
/// `max(40_000_000, 1_000_000·dp)`).
pub const MEGATRON_BUCKET_ELEMENTS: f64 = 4e7;

/// The gradient bucket of one scenario.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GradBucket {
    /// Bytes of one reduced gradient element ([`GradBucket::with`]).
    pub grad_bytes: f64,
    /// The bucket, bytes.
    pub bytes: f64,
}

impl GradBucket {
    /// The bucket of `s`, given its bytes per parameter ([`ParamBytes`]) and whether
    /// DeepSpeed's `BF16_Optimizer` runs the step ([`super::time::stack::Stack::bf16_optimizer`]): the resolved
    /// plan's ([`super::plan::Plan::bucket`]; [`super::plan::bucket_of`] without a plan).
    ///
    /// Bytes of one reduced gradient element: ZeRO-2, and DeepSpeed at every stage, reduce the
    /// 16-bit gradients (DeepSpeed's `communication_data_type` defaults to the gradients'
    /// dtype, `stage_1_and_2.py` reduces the model's fp16/bf16 `.grad` buckets), except its
    /// `BF16_Optimizer`, which all-reduces its fp32 accumulators
    /// ([`super::time::grad_accumulation`]); Megatron DDP and the distributed optimizer reduce
    /// the main gradients (fp32 with `accumulate_allreduce_grads_in_fp32`, the parameter dtype
    /// with `grad_reduce_in_fp32` off).
    ///
    /// The bucket: `parallel.bucket_mb` MB, else the framework default in elements times the
    /// reduced gradient's bytes: DeepSpeed's `reduce_bucket_size` (5·10⁸,
    /// `deepspeed/runtime/zero/config.py`) for ZeRO-2, else Megatron DDP's
    /// `bucket_size = max(4·10⁷, 10⁶·n)` for a reduction group of `n = dp·cp` ranks
    /// (Megatron-LM `distributed_data_parallel_config.py` / `training.py`, which reduce over the
    /// data-parallel group with context parallelism).
    pub fn with(s: &Scenario, bytes: &ParamBytes, bf16_optimizer: bool) -> Self {
        let par = &s.parallel;
        let (pbytes, main_grad_bytes) = (bytes.weights, bytes.main_grads);
        let grad_bytes = if bf16_optimizer {
            main_grad_bytes
        } else if par.zero_stage >= 2 || s.training.framework().traits().reduces_16bit_grads {
            pbytes
        } else {
            main_grad_bytes
        };
        let bytes = match par.bucket_mb {
            Some(mb) => (mb * 1e6).max(1.0),
            None if par.zero_stage == 2 => DEEPSPEED_REDUCE_BUCKET_ELEMENTS * grad_bytes,
            None => {
                let n = par.dp.max(1).saturating_mul(par.cp.max(1)) as f64;
                MEGATRON_BUCKET_ELEMENTS.max(1e6 * n) * grad_bytes
            }
        };
        GradBucket { grad_bytes, bytes }
    }

    /// The bucket in reduced gradient elements (Megatron-LM's `--ddp-bucket-size` unit).
    pub fn elements(&self) -> f64 {
        self.bytes / self.grad_bytes.max(1.0)
    }

    /// The bucket, MB (10⁶ bytes: the unit of `parallel.bucket_mb`).
    pub fn mb(&self) -> f64 {
        self.bytes / 1e6
    }
}
