//! Framework overhead terms: CUDA context, NCCL buffers, transient buffers (ZeRO-3 gathered
//! parameters, gradient buckets) and the allocator reserve. Defaults are documented on
//! [`crate::scenario::Overhead`].

use super::params::GpuParams;
use super::states::ParamBytes;
use crate::engine::bucket::GradBucket;
use crate::engine::framework::Communicator;
use crate::engine::time::comm::{Fabric, Group, Link};
use crate::engine::time::contention::collective_ctas;
use crate::engine::time::generation::Generation;
use crate::engine::time::groups::Groups;
use crate::scenario::{GpuSpec, Scenario};

/// Bytes in a GiB.
pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// NCCL's LL buffer of one connection, bytes: `NCCL_LL_LINES_PER_THREAD` 8 × `NCCL_LL_MAX_NTHREADS`
/// 512 × `NCCL_STEPS` 8 × 16 B (`union ncclLLFifoLine`) = 512 KiB (NVIDIA/nccl @v2.10.3-1
/// `src/include/devcomm.h` l. 31-53, `src/init.cc` l. 464 `DEFAULT_LL_BUFFSIZE`).
pub const NCCL_LL_BUFFER_BYTES: u64 = 524_288;
/// NCCL's LL128 buffer of one connection, bytes: `NCCL_LL128_ELEMS_PER_THREAD` 120 ×
/// `NCCL_LL128_MAX_NTHREADS` 640 × `NCCL_STEPS` 8 × 8 B = 4.69 MiB (@v2.10.3-1 `devcomm.h`
/// l. 69-70, `init.cc` l. 465 `DEFAULT_LL128_BUFFSIZE`).
pub const NCCL_LL128_BUFFER_BYTES: u64 = 4_915_200;
/// NCCL's Simple buffer of one connection, bytes: `NCCL_BUFFSIZE`, default `1 << 22` = 4 MiB on
/// x86 (@v2.10.3-1 `init.cc` l. 466 `DEFAULT_BUFFSIZE`).
pub const NCCL_SIMPLE_BUFFER_BYTES: u64 = 4_194_304;
/// Header of a P2P connection's device memory, bytes: `ncclSendMem` and the head of `ncclRecvMem`
/// are padded to `MEM_ALIGN` 4096 (@v2.10.3-1 `src/include/comm.h` l. 33-57).
pub const NCCL_CONN_HEADER_BYTES: u64 = 4096;
/// Granularity of NCCL's device allocations, bytes: each P2P connector's memory is rounded up to
/// `CUDA_IPC_MIN` = 2 MiB (`ALIGN_SIZE(…, CUDA_IPC_MIN)`, @v2.10.3-1 `src/transport/p2p.cc`
/// l. 159 and 207, `comm.h` l. 26), the size of the large pages `cudaMalloc` maps device memory in.
pub const NCCL_ALLOC_GRANULARITY_BYTES: u64 = 2_097_152;

/// `x` rounded up to [`NCCL_ALLOC_GRANULARITY_BYTES`].
const fn nccl_alloc(x: u64) -> u64 {
    x.div_ceil(NCCL_ALLOC_GRANULARITY_BYTES) * NCCL_ALLOC_GRANULARITY_BYTES
}

/// Device bytes of one NCCL connection (a sender's connector and its receiver's) inside an
/// NVLink domain (P2P transport), NCCL 2.10 (`src/transport/p2p.cc` @v2.10.3-1 l. 143-215):
/// the receiver allocates its header and the buffers of the three protocols, the sender its
/// header, each rounded up to 2 MiB: 10 + 2 = 12 MiB. With P2P read (Ampere over NVLink,
/// `ncclTopoCheckP2p`) the Simple buffer moves to the sender: 6 + 6, the same 12 MiB.
const fn p2p_connection_bytes() -> u64 {
    let buffers = NCCL_LL_BUFFER_BYTES + NCCL_LL128_BUFFER_BYTES + NCCL_SIMPLE_BUFFER_BYTES;
    nccl_alloc(NCCL_CONN_HEADER_BYTES + buffers) + nccl_alloc(NCCL_CONN_HEADER_BYTES)
}

/// Device bytes of one NCCL connection across nodes (network transport with GPUDirect RDMA),
/// NCCL 2.10 (`src/transport/net.cc` @v2.10.3-1 `netSendSetup`, `netRecvSetup`): the receiver
/// holds the three protocols' buffers in device memory, the sender LL128 and Simple (its LL
/// buffer and both headers are in host memory), each one `cudaMalloc` of whole 2 MiB pages:
/// 10 + 10 = 20 MiB. Without GPUDirect RDMA the buffers are in host memory (not priced).
const fn net_connection_bytes() -> u64 {
    let sender = NCCL_LL128_BUFFER_BYTES + NCCL_SIMPLE_BUFFER_BYTES;
    nccl_alloc(NCCL_LL_BUFFER_BYTES + sender) + nccl_alloc(sender)
}

/// Connections of one channel of the communicator `g` per rank, `(p2p, network)`: the ring's
/// and the tree's, each connection counted once, averaged over the ranks (every rank holds as
/// many senders as receivers, so a connection counts once per rank it joins over two).
///
/// At start-up NCCL 2.10 connects every channel's ring (receive from `prev`, send to `next`)
/// and its tree in both directions (up and down) (@v2.10.3-1 `src/init.cc` l. 776-787); a
/// connection to a peer a channel already has is not made again (`ncclTransportP2pConnect`,
/// `src/transport.cc` l. 42-55). Inside an NVLink domain the tree is a chain in the ring's
/// order (`src/graph/connect.cc` l. 53-54 `ncclTopoPreset`: `tree.up`/`tree.down[0]` are the
/// neighbours in `treeIntra`; "Trees [0] 3/-1/-1->2->1" beside rings 0 1 2 … 7 on all 24
/// channels of an HGX A100, NVIDIA/nccl-tests issue #100), so its downward links are the
/// ring's and its upward ones are new: `n + (n−1)` connections over `n` ranks (two ranks: the
/// ring's two). Across `N` nodes of `k` ranks: `2N(k−1)` inside the nodes, and the ring's `N`
/// plus a tree's `2(N−1)` between them (each channel one of the double binary trees,
/// `connect.cc` l. 156-157, each edge both ways).
fn connections_per_rank(g: &Group) -> (f64, f64) {
    let (n, nodes) = (g.n, g.nodes);
    let net = g.link == Link::Network;
    if n <= 2.0 {
        return if net { (0.0, 1.0) } else { (1.0, 0.0) };
    }
    if !net {
        return ((2.0 * n - 1.0) / n, 0.0);
    }
    (
        2.0 * nodes * (g.ppn - 1.0) / n,
        (nodes + 2.0 * (nodes - 1.0)) / n,
    )
}

/// Device bytes of one channel of the communicator `g` on each rank: its
/// [`connections_per_rank`] at [`p2p_connection_bytes`] and [`net_connection_bytes`] each. A
/// group of one kind of connection skips the other's zero term (the same value: the bytes are
/// positive, and `x + 0.0 = x`).
fn channel_bytes(g: &Group) -> f64 {
    let (p2p, net) = connections_per_rank(g);
    let (p2p_bytes, net_bytes) = (p2p_connection_bytes() as f64, net_connection_bytes() as f64);
    if net == 0.0 {
        p2p * p2p_bytes
    } else if p2p == 0.0 {
        net * net_bytes
    } else {
        p2p * p2p_bytes + net * net_bytes
    }
}

/// Device bytes of NCCL's buffers of one communicator `g` on each of its GPUs of `gen`:
/// channels × connections per rank × bytes per connection ([`channel_bytes`],
/// [`p2p_connection_bytes`], [`net_connection_bytes`]), the channels being the collective's
/// CTAs the time model charges ([`collective_ctas`]: 24 inside an 8-GPU A100/H100 domain, 32 on
/// NVLink 5, 16 across nodes with several GPUs of the group per node, 2 through one NIC).
/// An 8-rank NVLink communicator: 24 × 15/8 × 12 MiB = 0.53 GiB. Volta, whose channel count
/// no log gives, keeps [`crate::scenario::Overhead::DEFAULT_COMM_BUFFERS_GIB_PER_COMMUNICATOR`].
/// [states.md](crate::docs::formulas::states) §13.
pub fn communicator_bytes(g: &Group, gen: Generation) -> f64 {
    if g.n <= 1.0 {
        return 0.0;
    }
    let Some(channels) = collective_ctas(g, gen) else {
        return crate::scenario::Overhead::DEFAULT_COMM_BUFFERS_GIB_PER_COMMUNICATOR * GIB;
    };
    channels * channel_bytes(g)
}

/// Device bytes of NCCL's buffers of one GPU of `gpu` in the groups `g` of `s`: one communicator
/// per parallel group of more than one rank (TP, CP, EP, the pipeline neighbours, the
/// data-parallel reduction's `d·c` ranks), placed as the time model places them
/// ([`Groups::of`], [`crate::engine::plan::Plan::groups`]), each [`communicator_bytes`], and
/// with pipeline stages the stack's own ([`stack_communicators_bytes`]).
pub fn comm_buffers_bytes(g: &Groups, gpu: &GpuSpec, s: &Scenario) -> f64 {
    let gen = Generation::of(gpu);
    let per_group = communicator_bytes(&g.tp, gen)
        + communicator_bytes(&g.cp, gen)
        + communicator_bytes(&g.ep, gen)
        + communicator_bytes(&g.pp, gen)
        + communicator_bytes(&g.dp, gen);
    let stack = s.training.framework().traits().pipeline_communicators;
    if stack.is_empty() || s.parallel.pp <= 1 {
        return per_group;
    }
    per_group + stack_communicators_bytes(stack, g, gpu, gen, s)
}

/// Device bytes of NCCL's buffers of the communicators `list` a stack opens beyond one per
/// parallel group ([`crate::engine::framework::Traits::pipeline_communicators`]), each
/// [`communicator_bytes`] on its ranks for GPUs of `gen` (the caller's, worked out once): the TP, data-parallel and neighbours' groups as
/// [`Groups::of`] places them, the tied embedding's pair as `g.pp` (both two ranks across the
/// pipeline), a pipeline's `p` ranks `t·c·d` apart, the TP ranks of its `p` stages (each stage's
/// `t` ranks where [`Groups::of`] puts the TP group, the stages where it puts the pipeline's
/// ranks) and every rank. [states.md](crate::docs::formulas::states) §13. Out of line: the
/// stacks without such communicators do not carry its code.
#[inline(never)]
fn stack_communicators_bytes(
    list: &[Communicator],
    g: &Groups,
    gpu: &GpuSpec,
    gen: Generation,
    s: &Scenario,
) -> f64 {
    let par = &s.parallel;
    let (t, c, d, p) = (par.tp.max(1), par.cp.max(1), par.dp.max(1), par.pp.max(1));
    let f = &Fabric::of(gpu);
    let replica = t.saturating_mul(c).saturating_mul(d);
    let pipeline = Group::on(f, p, replica);
    let mut total = 0.0;
    for comm in list {
        let group = match comm {
            Communicator::Tp => g.tp,
            Communicator::Dp => g.dp,
            Communicator::PipelinePair if p > 2 || s.model.tied_embeddings => g.pp,
            Communicator::PipelinePair => continue,
            Communicator::Pipeline => pipeline,
            Communicator::ModelParallel => stages_of(&g.tp, &pipeline),
            Communicator::World => Group::on(f, replica.saturating_mul(p), 1),
        };
        total += communicator_bytes(&group, gen);
    }
    total
}

/// The group of `tp`'s ranks in every stage of `pipeline`: `tp.n · pipeline.n` ranks over
/// `tp.nodes · pipeline.nodes` domains (one stage's TP ranks share the domains of its TP group,
/// the stages those of the pipeline's ranks), over the network when that is more than one.
fn stages_of(tp: &Group, pipeline: &Group) -> Group {
    let (n, nodes) = (tp.n * pipeline.n, tp.nodes * pipeline.nodes);
    Group {
        n,
        nodes,
        ppn: n / nodes,
        link: if nodes > 1.0 {
            Link::Network
        } else if n > 1.0 {
            Link::Nvlink
        } else {
            Link::None
        },
        ..*pipeline
    }
}

/// Parameters ZeRO-3 gathers on one GPU: its dense and its expert parameters, each only when
/// their shard degree is above 1 ([`other_buffers_bytes`]).
fn gathered_params(bytes: &ParamBytes, p: &GpuParams) -> f64 {
    let sharded = |n: f64, degree: f64| if degree > 1.0 { n } else { 0.0 };
    sharded(p.dense, bytes.dense_shard) + sharded(p.experts, bytes.expert_shard)
}

/// Transient buffers of one GPU besides activations, bytes (`bytes` and `bucket` as the plan
/// resolved them, [`crate::engine::plan::Plan`]):
/// - **ZeRO-3 without pipelining**: the gathered 16-bit working copy and 16-bit gradient of the
///   largest module (DeepSpeed `estimate_zero3_model_states_mem_needs`: `4·P_ℓ`), plus the
///   prefetched next module (`2·P_ℓ`; FSDP/DeepSpeed prefetch one module ahead). fp32 training
///   gathers 4-byte copies; FP8 adds its two 1-byte copies of the gathered module.
/// - **ZeRO-3 with pipelining (`pp > 1`)**: the stage's parameters stay gathered (16-bit) across
///   the micro-batches of a step and its gradients accumulate unsharded in fp32 (the same fp32
///   gradient accumulation as the model states, [`super::states`]): `2 + 4` B per parameter (`2 + 2`
///   with `training.grad_reduce_in_fp32 = false`) —
///   gathering and reduce-scattering per micro-batch would multiply the traffic by `m`. PyTorch
///   FSDP2 with pipelining does this (`reshard_after_forward=False`, gradient sync only on the last
///   micro-batch, unsharded accumulation in the fp32 reduce dtype); Megatron and DeepSpeed do not
///   combine ZeRO-3 with pipelining at all.
///   Only parameters that ZeRO shards are gathered: a group whose shard degree is 1 (the routed
///   experts when `dp·cp·tp = ep·etp`) is whole on the GPU already, and its gradient is the
///   model states' own. NeMo Automodel leaves the experts out of FSDP when expert parallelism
///   covers the data-parallel ranks (`nemo_automodel/components/moe/parallelizer.py`
///   @89e3a9fdd l.158-162: `ignored_params` = the experts' parameters, and their own
///   `fully_shard` over the `ep_shard` mesh only when it has more than one rank, l.143-151;
///   `components/distributed/fsdp2.py` l.198 `ep_shard_size = dp_size // ep_size`).
/// - **ZeRO-2**: one gradient bucket of unsharded gradients before its reduce-scatter, the
///   bucket the time model reduces ([`GradBucket`]: `parallel.bucket_mb` MB, else DeepSpeed's
///   `reduce_bucket_size` of 5·10⁸ 16-bit gradients, the `ipg_buffer` of `stage_1_and_2.py`),
///   at most the stage's gradients.
/// - **ZeRO 0/1**: none (Megatron's gradient buckets are views into the fp32 gradient buffer).
pub fn other_buffers_bytes(
    s: &Scenario,
    bytes: &ParamBytes,
    bucket: &GradBucket,
    p: &GpuParams,
) -> f64 {
    let (w, g) = (bytes.weights, bytes.main_grads);
    let fp8 = super::states::quantized_copy_bytes(s.training.precision);
    match s.parallel.zero_stage {
        3 if s.parallel.pp > 1 => (w + g + fp8) * gathered_params(bytes, p),
        3 => (3.0 * w + fp8) * p.largest_module,
        2 => bucket.bytes.min(g * p.total()),
        _ => 0.0,
    }
}

/// DeepSpeed's pipeline all-reduce bucket, elements (`MEMORY_OPT_ALLREDUCE_SIZE`, `engine.py`
/// l. 73 @15293139f): `allreduce_no_retain` gathers gradient tensors until their count exceeds
/// it, then flattens and reduces them.
pub const DEEPSPEED_ALLREDUCE_BUCKET_ELEMENTS: f64 = 5e8;

/// Bytes the caching allocator reserves for the gradient all-reduce of DeepSpeed's pipeline
/// engine when `BF16_Optimizer` runs the step ([`super::states::deepspeed_bf16_lp_grads`],
/// `pp > 1`); 0 otherwise.
///
/// At the end of the batch `PipelineEngine._exec_reduce_grads` calls `_bf16_reduce_grads`, which
/// hands the optimizer's flat fp32 gradient groups (`get_grads_for_reduction`:
/// `fp32_groups_gradients_flat`, Megatron's weight-decay group first) to
/// `buffered_allreduce_fallback` with [`DEEPSPEED_ALLREDUCE_BUCKET_ELEMENTS`]; `allreduce_bucket`
/// flattens the bucket and casts it to `communication_data_type`, bf16 for bf16 at ZeRO stage 0
/// (microsoft/DeepSpeed @15293139f, the BigScience branch of 2022-02-28: `pipe/engine.py`
/// l. 246-270, `engine.py` l. 733-742 and 2104-2147). A stage of more than a bucket of
/// parameters sends its weight-decay group alone (flattening one tensor is a view): a bf16 copy,
/// `2·P` bytes; a smaller stage sends both groups in one bucket, flattened into a new fp32
/// tensor and then copied to bf16, `(4 + 2)·P`. The copy is made after the last backward, when
/// the activations are freed, but PyTorch's caching allocator serves a request from a cached
/// block only when one free block holds all of it, and never merges two segments it got from
/// `cudaMalloc` (`c10/cuda/CUDACachingAllocator.cpp`: best fit in a pool, blocks split and
/// coalesced only inside their segment). The pipeline phase caches blocks the size of its own
/// requests, the largest being the fp32 upcast of the largest gradient (`upcast`,
/// [`super::states::bf16_hp_upcast_bytes`]); a larger copy takes a new segment, so the reserved
/// memory nvidia-smi reports is the activation phase's plus the copy.
/// [states.md](crate::docs::formulas::states) §8.
pub fn bf16_reduce_copy_bytes(s: &Scenario, p: &GpuParams, upcast: f64) -> f64 {
    if s.parallel.pp <= 1 || !super::states::deepspeed_bf16_lp_grads(s) {
        return 0.0;
    }
    let params = p.total();
    let bf16 = crate::engine::per_gpu::element_bytes_of(crate::scenario::Precision::Bf16);
    let copy = if params > DEEPSPEED_ALLREDUCE_BUCKET_ELEMENTS {
        bf16 * params
    } else {
        (crate::engine::per_gpu::element_bytes_of(crate::scenario::Precision::Fp32) + bf16) * params
    };
    if copy > upcast {
        copy
    } else {
        0.0
    }
}

/// Bytes per element of the fp64 copy DeepSpeed's ZeRO-1/2 step makes of each gradient for the
/// norm (`get_grad_norm_direct`: `g.data.double().norm(2)`): 8 (IEEE 754 binary64).
pub const FP64_BYTES: f64 = 8.0;

/// Bytes the caching allocator reserves beyond the activation phase for the gradient norm of
/// DeepSpeed's ZeRO-1/2 step ([`super::states::deepspeed_zero_16bit_grads`]) on the GPU holding
/// the input embedding (`embedding`: its `V·h/t` elements there, 0 elsewhere); 0 otherwise.
///
/// `DeepSpeedZeroOptimizer.step` (microsoft/DeepSpeed @2151c787a, `stage_1_and_2.py`
/// l. 1632-1705) first checks the overflow (`_has_inf_or_nan`: `x.float().sum()`, an fp32 copy
/// of each gradient of the rank's partition), then takes the norm of the partition's gradients
/// one at a time through `g.data.double().norm(2)` (l. 1494-1553, `get_grad_norm_direct`), then
/// flattens them (16-bit, `2·P/d`) and casts the flat copy to fp32 (`4·P/d`). The
/// largest of these requests is the fp64 copy of the largest gradient piece of a partition: the
/// word embedding comes first in Megatron-DeepSpeed's first parameter group (`PipelineModule`
/// registers its tied modules before the layers), so the first data-parallel rank's partition
/// starts with `E = min(V·h/t, P/d)` of its elements (`P` the GPU's parameters, `d` the ZeRO
/// shard degree), and the copy is `8·E` bytes. Tied copies on the last stage are
/// `ds_pipe_replicated` and skipped by the norm. The step runs after the last backward, when
/// the activations are freed, but PyTorch's caching allocator serves a request from one free
/// block of a segment and never merges segments (see [`bf16_reduce_copy_bytes`]); the largest
/// blocks the iteration caches before the step are the embedding's weight-gradient transient
/// (`2·V·h/t`, each micro-batch after the first) and the fp32 partition gradient
/// `initialize_optimizer_states` allocates and frees at start-up (`4·P/d`). A larger fp64 copy
/// takes a new segment, which nvidia-smi counts from then on: priced when `8·E` exceeds both.
/// The fp32 overflow copy (`4·E`) and the flat copies fit in the start-up block or in the fp64
/// copy's segment, as long as those are whole: not priced. [states.md](crate::docs::formulas::states) §10.
pub fn deepspeed_norm_copy_bytes(
    s: &Scenario,
    bytes: &ParamBytes,
    p: &GpuParams,
    embedding: f64,
) -> f64 {
    if embedding <= 0.0 || !super::states::deepspeed_zero_16bit_grads(s) {
        return 0.0;
    }
    let partition = p.total() / bytes.dense_shard.max(1.0);
    let copy = FP64_BYTES * embedding.min(partition);
    let fp32 = crate::engine::per_gpu::element_bytes_of(crate::scenario::Precision::Fp32);
    let cached = (fp32 * partition).max(bytes.weights * embedding);
    if copy > cached {
        copy
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: f64 = 1024.0 * 1024.0;

    /// A connection costs 10 + 2 MiB inside a node and 10 + 10 MiB across nodes (NCCL 2.10's
    /// buffers, 0.5 + 4.6875 + 4 MiB, in whole 2 MiB pages).
    #[test]
    fn a_connection_is_twelve_mib_inside_a_node_and_twenty_across() {
        assert_eq!(p2p_connection_bytes(), 12 << 20);
        assert_eq!(net_connection_bytes(), 20 << 20);
    }

    /// BLOOM's A100 layouts, by hand: TP 8 inside the node 24 × 15/8 × 12 MiB = 540 MiB; the
    /// data-parallel group of 12 ranks one per node 2 × 34/12 × 20 MiB; 8 ranks two per node
    /// over 4 nodes 16 × (2·4·1/8 × 12 + 10/8 × 20) = 592 MiB; the pipeline neighbours across
    /// nodes 2 × 20 MiB; Volta keeps 0.25 GiB.
    #[test]
    fn communicator_buffers_by_hand() {
        let a100 = crate::scenario::gpu_preset("a100-sxm4-80gb").unwrap().spec;
        let gen = Generation::of(&a100);
        let of = |n, stride| communicator_bytes(&Group::new(&a100, n, stride), gen) / MIB;
        assert_eq!(of(8, 1), 540.0);
        assert!((of(12, 8) - 2.0 * 34.0 / 12.0 * 20.0).abs() < 1e-9);
        assert_eq!(of(8, 4), 592.0);
        assert_eq!(of(2, 32), 40.0);
        assert_eq!(of(1, 1), 0.0);
        let v100 = crate::scenario::gpu_preset("v100-sxm2-32gb").unwrap().spec;
        let g = Group::new(&v100, 8, 1);
        assert_eq!(communicator_bytes(&g, Generation::of(&v100)), 0.25 * GIB);
    }

    /// Megatron-DeepSpeed's own communicators on BLOOM 02-25's `dp12tp8pp4` (384 A100s, 8 per
    /// node, tied embedding): the slice group 540 MiB; Megatron's data-parallel group (12 ranks,
    /// one per node) 2 × 34/12 × 20 = 113.3; the tied pair 2 × 20 = 40; two pipeline groups (4
    /// ranks, one per node) 2 × 10/4 × 20 = 100 each; the model-parallel group (32 ranks, 8 on
    /// each of 4 nodes) 16 × (56/32 × 12 + 10/32 × 20) = 436; the world (384 ranks on 48 nodes)
    /// 16 × (672/384 × 12 + 142/384 × 20) = 454.3: 1,783.7 MiB beside the 5 groups' own. The
    /// Megatron stack opens none of them.
    #[test]
    fn megatron_deepspeed_communicators_by_hand() {
        let mut s = crate::presets::default_model_preset().scenario();
        (s.parallel.tp, s.parallel.cp, s.parallel.pp, s.parallel.dp) = (8, 1, 4, 12);
        (s.parallel.ep, s.parallel.vp) = (1, 1);
        s.model.tied_embeddings = true;
        let gpu = crate::scenario::gpu_preset("a100-sxm4-80gb").unwrap().spec;
        let g = Groups::of(&gpu, &s.parallel);
        let own = comm_buffers_bytes(&g, &gpu, &s);
        s.training.framework = Some(crate::engine::framework::Framework::Deepspeed);
        let extra = (comm_buffers_bytes(&g, &gpu, &s) - own) / MIB;
        let want = 540.0
            + 2.0 * 34.0 / 12.0 * 20.0
            + 40.0
            + 200.0
            + 436.0
            + 16.0 * (672.0 / 384.0 * 12.0 + 142.0 / 384.0 * 20.0);
        assert!((extra - want).abs() < 1e-9, "{extra} {want}");
        s.parallel.pp = 1;
        s.parallel.dp = 48;
        let g = Groups::of(&gpu, &s.parallel);
        let deepspeed = comm_buffers_bytes(&g, &gpu, &s);
        s.training.framework = None;
        assert_eq!(deepspeed, comm_buffers_bytes(&g, &gpu, &s));
    }

    /// ZeRO-3 with pipelining gathers only what ZeRO shards: a GPU with 1e9 dense and 2e9
    /// expert parameters, bf16 with an fp32 gradient accumulation (2 + 4 B), pp 4, dp 8: with
    /// ep 8 the experts' shard degree is 1 (whole already), so 6·1e9 B; with ep 2 (degree 4)
    /// both, 6·3e9 B.
    #[test]
    fn zero3_pipeline_gathers_only_sharded_params() {
        let mut s = crate::presets::default_model_preset().scenario();
        (s.parallel.tp, s.parallel.cp, s.parallel.pp, s.parallel.dp) = (1, 1, 4, 8);
        s.parallel.ep = 8;
        s.parallel.etp = None;
        s.parallel.zero_stage = 3;
        s.training.precision = crate::scenario::Precision::Bf16;
        s.training.grad_reduce_in_fp32 = None;
        let p = GpuParams {
            dense: 1e9,
            experts: 2e9,
            matrices: 0.0,
            largest_module: 0.0,
        };
        let bucket = GradBucket::default();
        let b = ParamBytes::of(&s);
        assert_eq!((b.weights, b.main_grads, b.expert_shard), (2.0, 4.0, 1.0));
        assert_eq!(other_buffers_bytes(&s, &b, &bucket, &p), 6e9);
        s.parallel.ep = 2;
        let b = ParamBytes::of(&s);
        assert_eq!(b.expert_shard, 4.0);
        assert_eq!(other_buffers_bytes(&s, &b, &bucket, &p), 18e9);
    }
}
