//! The result of one layer's context-parallel exchange ([`CpCosts`]), whichever ring runs it:
//! the P2P ring ([`super::layer_comm`]) or PyTorch's ring attention ([`super::ring`]).

/// Context-parallel ring of one layer, seconds per micro-batch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpCosts {
    /// K and V chunk one rank sends per ring step, bytes.
    pub kv_msg: f64,
    /// All steps forward.
    pub fwd_total: f64,
    /// All steps backward.
    pub bwd_total: f64,
    /// The forward exchange again in the recomputed forward (full recomputation), else 0.
    pub rc_total: f64,
    /// Bytes one rank sends, forward, recomputed forward and backward.
    pub bytes: f64,
    /// Exposed time, plus the SM share the hidden part takes from compute.
    pub exposed: f64,
    /// Part of `exposed`: that SM share ([`super::contention`]).
    pub contention: f64,
}

impl CpCosts {
    /// The costs of an exchange whose forward takes `fwd` = (total, exposed) seconds and
    /// backward `bwd`; full recomputation (`full`) runs the forward exchange again; the hidden
    /// part takes `share` of its time from compute ([`super::contention::p2p_sm_share`]).
    /// `bytes`: what one rank sends in all.
    pub(crate) fn assemble(
        share: f64,
        kv_msg: f64,
        fwd: (f64, f64),
        bwd: (f64, f64),
        full: bool,
        bytes: f64,
    ) -> CpCosts {
        let rc = if full { 1.0 } else { 0.0 };
        let exp = (1.0 + rc) * fwd.1 + bwd.1;
        let total = (1.0 + rc) * fwd.0 + bwd.0;
        let contention = super::contention::charge(total, exp, share);
        CpCosts {
            kv_msg,
            fwd_total: fwd.0,
            bwd_total: bwd.0,
            rc_total: rc * fwd.0,
            bytes,
            exposed: exp + contention,
            contention,
        }
    }
}
