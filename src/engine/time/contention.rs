//! Overlap contention: what communication hidden under compute still costs the compute.
//!
//! A collective or point-to-point transfer that runs beside compute is not free: NCCL runs it
//! as kernels, one CTA per channel, each CTA holding a whole SM ("NCCL CTAs won't share an SM
//! with compute kernels", S. Jeaugey, NVIDIA/nccl issue #689), so the compute beside it runs on
//! `S − c` of the GPU's `S` SMs and ends `T·c/S` later for a transfer of `T` seconds
//! (the many-wave limit). Which transfers overlap is the stack's choice (DP reduction, ZeRO-3 /
//! FSDP gathers, TP overlap, the CP ring, pipeline sends, EP all-to-all under DualPipe); the
//! share `c/S` comes from the channel count NCCL launches ([`super::comm::collective_sm_share`]
//! for collectives). The charge is part of each kind's exposed communication and is reported
//! apart as [`super::breakdown::TimeEstimate::overlap_contention_s`]
//! ([comm.md](crate::docs::formulas::comm) §7).

/// The compute lost while the hidden part of a transfer runs: `share` of its hidden time
/// `total − exposed` (never negative), seconds.
#[inline]
pub fn charge(total: f64, exposed: f64, share: f64) -> f64 {
    share * (total - exposed).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_hidden_part_is_charged() {
        // 10 ms of which 4 ms exposed, 24 of 132 SMs: 6 ms · 24/132 = 1.0909 ms.
        assert!((charge(0.010, 0.004, 24.0 / 132.0) - 0.006 * 24.0 / 132.0).abs() < 1e-15);
        // Nothing hidden, nothing charged.
        assert_eq!(charge(0.004, 0.004, 0.2), 0.0);
        assert_eq!(charge(0.003, 0.004, 0.2), 0.0);
    }
}
