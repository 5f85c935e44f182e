//! Applies a scenario's [`Calibration`] to the hardware rates the time model uses
//! (meaning and bounds of the factors: [`crate::scenario::Calibration`]; fitting them from a
//! measured run: [`crate::calibrate`]).
//!
//! The factors act on rates, never on the result: the compute factor multiplies the sustained
//! kernel rates of [`Device`] (GEMM, HBM streaming), the attention factor the fused-attention
//! rates (its tensor-core rates and the softmax exponentials; the compute factor when it is not
//! set, [`Calibration::attention`]),
//! the network factor multiplies the bandwidth of every link tier of the GPU. So a calibrated
//! plan still answers "what if": a layout with more exposed communication feels the network
//! factor more, a larger GEMM share feels the compute factor more. Fixed latencies (kernel
//! launch, collective `α`) are not scaled. MFU keeps the data-sheet peak as denominator.

use super::time::comm::{DEFAULT_NIC_GBPS, DEFAULT_PCIE_GBPS};
use super::time::compute::Device;
use crate::scenario::{Calibration, GpuSpec, Precision};
use std::borrow::Cow;

/// `gpu` with every link bandwidth (NVLink or PCIe, NIC) multiplied by the network factor. A link
/// the GPU leaves unset gets the time model's default for it first, so the factor always acts.
/// Without a network factor, `gpu` itself (borrowed: no copy on the estimate's path).
pub fn links<'g>(gpu: &'g GpuSpec, k: &Calibration) -> Cow<'g, GpuSpec> {
    let n = k.network();
    if n == 1.0 {
        return Cow::Borrowed(gpu);
    }
    let mut g = *gpu;
    g.nvlink_gbps = gpu.nvlink_gbps.map(|b| b * n);
    if gpu.nvlink_gbps.is_none() {
        g.pcie_gbps = Some(gpu.pcie_gbps.unwrap_or(DEFAULT_PCIE_GBPS) * n);
    }
    g.nic_gbps = Some(gpu.nic_gbps.unwrap_or(DEFAULT_NIC_GBPS) * n);
    Cow::Owned(g)
}

/// `dev` (the rates of a plan trained in `precision`) with every sustained kernel rate
/// multiplied by the compute factor, the fused-attention rates (`flash_flops`,
/// `attn_peak_flops`, and the exponential rates `exp_per_s`, `attn_exp_ref_per_s` that only the
/// fused kernel uses, [`Device::flash_s`] and `time::blackwell_cudnn`) by the attention factor;
/// the compute factor only where it was measured on the plan's GEMM units
/// ([`Calibration::compute_for`]).
pub(crate) fn device(dev: Device, k: &Calibration, precision: Precision) -> Device {
    let (c, a) = k.compute_for(precision);
    if c == 1.0 && a == 1.0 {
        return dev;
    }
    Device {
        gemm_flops: dev.gemm_flops * c,
        gemm16_flops: dev.gemm16_flops * c,
        flash_flops: dev.flash_flops * a,
        attn_peak_flops: dev.attn_peak_flops * a,
        hbm_bps: dev.hbm_bps * c,
        exp_per_s: dev.exp_per_s * a,
        attn_exp_ref_per_s: dev.attn_exp_ref_per_s * a,
        ..dev
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::gpu_preset;

    #[test]
    fn factors_scale_rates_not_latencies() {
        let gpu = gpu_preset("a100-sxm4-80gb").unwrap().spec;
        let k = Calibration {
            compute: Some(0.8),
            network: Some(0.5),
            ..Calibration::default()
        };
        let g = links(&gpu, &k);
        assert_eq!(g.nvlink_gbps, gpu.nvlink_gbps.map(|b| b * 0.5));
        assert_eq!(g.nic_gbps, gpu.nic_gbps.map(|b| b * 0.5));
        assert_eq!(g.peak_tflops, gpu.peak_tflops);
        let d0 = Device::new(&gpu, Precision::Bf16, None);
        let d = device(d0, &k, Precision::Bf16);
        assert!((d.gemm_flops - 0.8 * d0.gemm_flops).abs() < 1.0);
        assert!((d.hbm_bps - 0.8 * d0.hbm_bps).abs() < 1.0);
        assert_eq!(d.kernel_s, d0.kernel_s);
        // The exponential rate and its reference scale together: a calibrated GPU is not
        // mistaken for one with faster SFUs (`blackwell_cudnn::CudnnTable::of`).
        assert_eq!(d.exp_per_s, d.attn_exp_ref_per_s);
        // A GEMM far from the fixed cost takes 1/0.8 as long.
        let (t0, t) = (
            d0.gemm_s(8192.0, 8192.0, 8192.0),
            d.gemm_s(8192.0, 8192.0, 8192.0),
        );
        assert!(((t - d0.kernel_s) / (t0 - d0.kernel_s) - 1.25).abs() < 1e-9);
        // Attention follows compute when it is not set (the rates an old calibration scaled).
        assert_eq!(d.flash_flops, d0.flash_flops * 0.8);
        assert_eq!(d.attn_peak_flops, d0.attn_peak_flops * 0.8);
        // Set, it alone scales the fused-attention rates: 1.5 × the data sheet, GEMMs at 0.8.
        let ka = Calibration {
            attention: Some(1.5),
            ..k
        };
        let da = device(d0, &ka, Precision::Bf16);
        assert_eq!(da.gemm_flops, d.gemm_flops);
        assert_eq!(da.hbm_bps, d.hbm_bps);
        assert_eq!(da.flash_flops, d0.flash_flops * 1.5);
        assert_eq!(da.attn_peak_flops, d0.attn_peak_flops * 1.5);
        assert_eq!(da.exp_per_s, d0.exp_per_s * 1.5);
        assert_eq!(da.attn_exp_ref_per_s, d0.attn_exp_ref_per_s * 1.5);
        // Attention alone also acts (the identity shortcut needs both at 1).
        let only_a = Calibration {
            attention: Some(0.5),
            ..Calibration::default()
        };
        let d1 = device(d0, &only_a, Precision::Bf16);
        assert_eq!(d1.gemm_flops, d0.gemm_flops);
        assert_eq!(d1.flash_flops, d0.flash_flops * 0.5);
        // No calibration: identity.
        assert_eq!(*links(&gpu, &Calibration::default()), gpu);
    }

    #[test]
    fn a_gpu_without_links_gets_the_defaults_scaled() {
        let mut gpu = gpu_preset("a100-sxm4-80gb").unwrap().spec;
        gpu.nvlink_gbps = None;
        gpu.pcie_gbps = None;
        gpu.nic_gbps = None;
        let k = Calibration {
            network: Some(0.5),
            ..Calibration::default()
        };
        let g = links(&gpu, &k);
        assert_eq!(g.pcie_gbps, Some(DEFAULT_PCIE_GBPS * 0.5));
        assert_eq!(g.nic_gbps, Some(DEFAULT_NIC_GBPS * 0.5));
    }

    #[test]
    fn a_compute_factor_stays_on_the_gemm_units_it_was_measured_on() {
        let gpu = gpu_preset("v100-sxm2-16gb").unwrap().spec;
        let mut k = Calibration::default();
        (k.compute, k.attention, k.network) = (Some(0.8), Some(0.9), Some(0.5));
        k.precision = Some(Precision::Fp16);
        // Tensor cores to tensor cores (fp16 → bf16, FP8): carried.
        for p in [Precision::Fp16, Precision::Bf16, Precision::Fp8] {
            let d0 = Device::new(&gpu, p, None);
            assert_eq!(device(d0, &k, p).gemm_flops, d0.gemm_flops * 0.8);
        }
        // Tensor cores to the CUDA cores (fp32): compute is not, the attention factor of its
        // own still is; links are scaled whatever the precision.
        let d0 = Device::new(&gpu, Precision::Fp32, None);
        let d = device(d0, &k, Precision::Fp32);
        assert_eq!(d.gemm_flops, d0.gemm_flops);
        assert_eq!(d.gemm16_flops, d0.gemm16_flops);
        assert_eq!(d.hbm_bps, d0.hbm_bps);
        assert_eq!(d.flash_flops, d0.flash_flops * 0.9);
        assert_eq!(links(&gpu, &k).nic_gbps, gpu.nic_gbps.map(|b| b * 0.5));
        // Attention following compute stays with it.
        let follows = Calibration {
            attention: None,
            ..k
        };
        assert_eq!(
            device(d0, &follows, Precision::Fp32).flash_flops,
            d0.flash_flops
        );
        // And the other way round: measured in fp32, not carried to fp16.
        let fp32 = Calibration {
            precision: Some(Precision::Fp32),
            ..follows
        };
        let h0 = Device::new(&gpu, Precision::Fp16, None);
        assert_eq!(device(h0, &fp32, Precision::Fp16).gemm_flops, h0.gemm_flops);
        assert_eq!(
            device(d0, &fp32, Precision::Fp32).gemm_flops,
            d0.gemm_flops * 0.8
        );
        // No precision recorded (a calibration from before the field): every plan.
        let old = Calibration {
            precision: None,
            ..follows
        };
        assert_eq!(
            device(d0, &old, Precision::Fp32).gemm_flops,
            d0.gemm_flops * 0.8
        );
    }
}
