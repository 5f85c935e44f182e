//! cuDNN's fused attention on Blackwell as NVIDIA measured it: forward and backward throughput
//! by sequence length, one table per measured part, so the engine prices the kernel at its
//! published rate and with its own (steep) sequence ramp instead of Hopper's.
//!
//! Source: NVIDIA/cudnn-frontend @0b1577c (v1.15, 2025-10-10),
//! `benchmark/sdpa_benchmark_training/artifacts/sdpa_bf16_benchmark_results_NVIDIA_{B200,GB300}.csv`,
//! rows `pyt_cudnn`: cuDNN 9.13.1 in `nvcr.io/nvidia/pytorch:25.09-py3`, bf16, causal, head
//! dim 128, 128 query and 8 KV heads, batch 1, free clocks; FLOPs `4·s²·d·h/2` forward, 2.5×
//! that backward (the convention of [`super::attention::kernel_rates`]). The same B200 file at
//! cuDNN 9.10.2 (@9793df5, 2025-07-16) is within 3 % of it from 2k to 16k tokens: this is the
//! Blackwell cuDNN of 2025. Later cuDNN is much faster on Blackwell (GB200, cuDNN 9.17.0,
//! @b372d39: 4k 1386 / 1054, 8k 1584 / 1211, 16k 1668 / 1304 TFLOP/s; 9.22.0, @fb682ce, about
//! the same), which no scenario field selects ([attention.md](crate::docs::formulas::attention) §1).

use super::compute::Device;

/// Sequence length of the published fused-attention fractions (these tables' and
/// [`super::attention::kernel_rates`]), tokens: the sequence ramps are normalised to 1 there.
pub const RATES_AT_TOKENS: f64 = 16384.0;

/// One published table: `(tokens, forward TFLOP/s, backward TFLOP/s)` rows in increasing
/// length, measured on a part whose fused-attention peak in the engine
/// ([`Device::attn_peak_flops`]) is `ref_peak` TFLOP/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CudnnTable {
    /// The rows.
    pub rows: &'static [(f64, f64, f64)],
    /// The measured part's attention peak in the engine, TFLOP/s.
    pub ref_peak: f64,
}

/// cuDNN 9.13.1 on a B200 (its attention peak is its 2250 TFLOP/s spec; a GB200 scales it,
/// [`super::compute::BLACKWELL_NVL_ATTENTION_PEAK`]).
pub const B200_CUDNN_9_13: CudnnTable = CudnnTable {
    rows: &[
        (512.0, 83.991, 134.164),
        (1024.0, 254.501, 308.529),
        (2048.0, 478.921, 371.486),
        (4096.0, 855.678, 701.265),
        (8192.0, 1171.278, 942.509),
        (16384.0, 1332.415, 1074.776),
        (32768.0, 1419.000, 1108.688),
        (65536.0, 1382.330, 1073.059),
        (131072.0, 1355.418, 1047.843),
    ],
    ref_peak: 2250.0,
};

/// cuDNN 9.13.1 on a GB300 (Blackwell Ultra: twice the SFU exponential rate), same benchmark and
/// file set: 1.28× the B200's forward and 1.20× its backward at 8k tokens. Its reference is the
/// engine's GB300 attention peak, B200's 2250 × MAMF 1822/1745 = 2349.28 TFLOP/s
/// ([`super::compute::BLACKWELL_NVL_ATTENTION_PEAK`] of 2500), so the table's figures are the
/// GB300's own.
pub const GB300_CUDNN_9_13: CudnnTable = CudnnTable {
    rows: &[
        (512.0, 54.923, 95.339),
        (1024.0, 224.233, 277.209),
        (2048.0, 593.514, 487.345),
        (4096.0, 1144.867, 892.572),
        (8192.0, 1495.674, 1130.076),
        (16384.0, 1702.463, 1267.827),
        (32768.0, 1795.879, 1319.161),
        (65536.0, 1770.478, 1301.700),
        (131072.0, 1720.854, 1280.022),
    ],
    ref_peak: 2250.0 * 1822.0 / 1745.0,
};

impl CudnnTable {
    /// Forward and backward TFLOP/s at `s` tokens: the rows interpolated linearly in `log2(s)`,
    /// held at the table's ends.
    pub fn tflops(&self, s: f64) -> (f64, f64) {
        let t = self.rows;
        // NaN and lengths up to the first row take the first row.
        if s.is_nan() || s <= t[0].0 {
            return (t[0].1, t[0].2);
        }
        for w in t.windows(2) {
            let (a, b) = (w[0], w[1]);
            if s <= b.0 {
                let u = (s.log2() - a.0.log2()) / (b.0.log2() - a.0.log2());
                return (a.1 + u * (b.1 - a.1), a.2 + u * (b.2 - a.2));
            }
        }
        let last = t[t.len() - 1];
        (last.1, last.2)
    }

    /// Forward and backward rates at 16k tokens as fractions of [`CudnnTable::ref_peak`] (the
    /// convention of [`super::attention::kernel_rates`]).
    pub fn rates_16k(&self) -> (f64, f64) {
        let (f, b) = self.tflops(RATES_AT_TOKENS);
        (f / self.ref_peak, b / self.ref_peak)
    }

    /// Causal sequence ramps, forward and backward, normalised to 1 at 16k tokens. Far steeper
    /// than FlashAttention-2's on H100 ([`super::attention::seq_ramp`]): B200 0.879 / 0.877 at
    /// 8k and 0.642 / 0.652 at 4k, against 0.971 and 0.918.
    pub fn ramps(&self, s: f64) -> (f64, f64) {
        let (f, b) = self.tflops(s);
        let (f16, b16) = self.tflops(RATES_AT_TOKENS);
        (f / f16, b / b16)
    }

    /// The table that describes `dev`: GB300's for a part whose SFUs are faster than its
    /// generation's (Blackwell Ultra, [`crate::scenario::GpuSpec::sfu_exp_per_s`]), else B200's.
    pub(crate) fn of(dev: &Device) -> &'static CudnnTable {
        if dev.exp_per_s > dev.attn_exp_ref_per_s {
            &GB300_CUDNN_9_13
        } else {
            &B200_CUDNN_9_13
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_in_log_length_and_holds_the_ends() {
        // B200 at 6k tokens: 855.678 + (log2 6144 − 12)·(1171.278 − 855.678)
        // = 855.678 + 0.58496·315.6 = 1040.29 TFLOP/s forward.
        let (f6k, _) = B200_CUDNN_9_13.tflops(6144.0);
        assert!((f6k - 1040.29).abs() < 0.01, "{f6k}");
        assert_eq!(B200_CUDNN_9_13.tflops(8192.0), (1171.278, 942.509));
        assert_eq!(B200_CUDNN_9_13.tflops(256.0), (83.991, 134.164));
        assert_eq!(B200_CUDNN_9_13.tflops(1e6), (1355.418, 1047.843));
        // 16k fractions: 1332.415/2250 = 0.59218, 1074.776/2250 = 0.47768.
        let (f, b) = B200_CUDNN_9_13.rates_16k();
        assert!((f - 0.59218).abs() < 1e-5 && (b - 0.47768).abs() < 1e-5);
        // Ramps: 8k 1171.278/1332.415 = 0.87906, 942.509/1074.776 = 0.87694.
        let (rf, rb) = B200_CUDNN_9_13.ramps(8192.0);
        assert!((rf - 0.87906).abs() < 1e-5 && (rb - 0.87694).abs() < 1e-5);
        assert_eq!(B200_CUDNN_9_13.ramps(16384.0), (1.0, 1.0));
    }

    #[test]
    fn gb300_has_its_own_table() {
        let d =
            |id: &str| super::super::compute::preset_device(id, crate::scenario::Precision::Bf16);
        assert_eq!(CudnnTable::of(&d("gb300")), &GB300_CUDNN_9_13);
        assert_eq!(CudnnTable::of(&d("gb200")), &B200_CUDNN_9_13);
        assert_eq!(CudnnTable::of(&d("b200-sxm-180gb")), &B200_CUDNN_9_13);
        // The GB300 table's figures are the GB300's own: its rate times the GB300's attention
        // peak gives the measured TFLOP/s back (8k forward 1495.674).
        let peak = d("gb300").attn_peak_flops / 1e12;
        let (f, _) = GB300_CUDNN_9_13.rates_16k();
        let (rf, _) = GB300_CUDNN_9_13.ramps(8192.0);
        assert!((peak * f * rf - 1495.674).abs() < 1e-6);
    }
}
