//! Reading a measurement from one pasted training-log line, in the units each framework logs.
//!
//! Formats read (field names as the frameworks print them; the source of each format is given):
//! - **Megatron-LM** (`megatron/training/training.py`, `training_log`): `elapsed time per
//!   iteration (ms): 4321.0 | throughput per GPU (TFLOP/s/GPU): 402.4 | … global batch size:
//!   128 |`; its memory report (`megatron/training/utils.py`, `report_memory`): `memory (MB) |
//!   allocated: … | max allocated: … | reserved: … | max reserved: …`.
//! - **Megatron-DeepSpeed** (`megatron/training.py` of microsoft/Megatron-DeepSpeed): the same
//!   iteration time, plus `samples per second: …`, `tokens per gpu per second (tgs): …` and
//!   `TFLOPs: …` (per GPU).
//! - **NeMo 2 / Lightning** (`nemo/lightning/pytorch/callbacks` timing, printed by the progress
//!   bar): `train_step_timing in s: 4.32`.
//! - **torchtitan** (`torchtitan/components/metrics.py`, `MetricsProcessor.log`): `step: 10
//!   loss: 7.8653  memory: 39.41GiB(41.48%)  tps: 6,733  tflops: 389.95  mfu: 39.43%` (`tps`
//!   is tokens per second per GPU; `memory` is the allocator's peak reserved memory; colour
//!   escape codes are ignored).
//! - **DeepSpeed** (`deepspeed/utils/timer.py`, `ThroughputTimer`): `epoch=0/micro_step=10/
//!   global_step=10, RunningAvgSamplesPerSec=25.93, CurrSamplesPerSec=26.01, MemAllocated=12.3GB,
//!   MaxMemAllocated=20.1GB` (samples of the whole job per second; memory is PyTorch's
//!   `max_memory_allocated` in GiB, printed as "GB").
//!
//! The step time is preferred when a line carries several numbers, then throughput, then
//! TFLOP/s; memory is read as well. Every reading names the field it came from.

use super::MemoryKind;
use crate::engine::Estimate;
use crate::scenario::Scenario;

/// What a log field measures, in the unit it was logged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quantity {
    /// Seconds per optimizer step.
    StepS(f64),
    /// Tokens per second, whole job.
    TokensPerS(f64),
    /// Tokens per second per GPU.
    TokensPerSPerGpu(f64),
    /// Sequences per second, whole job.
    SamplesPerS(f64),
    /// Model TFLOP/s per GPU.
    TflopsPerGpu(f64),
    /// Peak memory per GPU, GiB, of the given kind.
    MemoryGib(f64, MemoryKind),
}

impl Quantity {
    /// Whether this is a time or rate (calibrates the factors) rather than memory.
    pub fn is_speed(&self) -> bool {
        !matches!(self, Quantity::MemoryGib(..))
    }

    /// The step time this quantity implies for scenario `s` (rates are converted with its global
    /// batch, sequence length and GPU count; TFLOP/s with the model FLOPs of the uncalibrated
    /// estimate `e`, the count Megatron-LM and torchtitan also report). `None` for memory.
    pub fn step_s(&self, s: &Scenario, e: &Estimate) -> Option<f64> {
        let tokens = s.training.global_batch as f64 * s.model.seq_len as f64;
        let gpus = s.cluster.num_gpus.max(1) as f64;
        let v = match *self {
            Quantity::StepS(t) => return Some(t),
            Quantity::TokensPerS(v) => tokens / v,
            Quantity::TokensPerSPerGpu(v) => tokens / (v * gpus),
            Quantity::SamplesPerS(v) => s.training.global_batch as f64 / v,
            Quantity::TflopsPerGpu(v) => e.flops.model_flops / (v * 1e12 * gpus),
            Quantity::MemoryGib(..) => return None,
        };
        Some(v)
    }
}

/// One number read from a log line.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The framework whose format matched.
    pub framework: &'static str,
    /// The log field read, as printed.
    pub field: &'static str,
    /// Its value, in paracalc's units.
    pub quantity: Quantity,
}

/// A field to look for: framework, the text before the number, and how to convert it.
struct Pattern {
    framework: &'static str,
    field: &'static str,
    convert: fn(f64) -> Quantity,
}

/// In order of preference (step time first).
const PATTERNS: &[Pattern] = &[
    Pattern {
        framework: "Megatron-LM / Megatron-DeepSpeed",
        field: "elapsed time per iteration (ms):",
        convert: |v| Quantity::StepS(v / 1000.0),
    },
    Pattern {
        framework: "NeMo",
        field: "train_step_timing in s:",
        convert: Quantity::StepS,
    },
    Pattern {
        framework: "torchtitan",
        field: "step_time:",
        convert: Quantity::StepS,
    },
    Pattern {
        framework: "torchtitan",
        field: "tps:",
        convert: Quantity::TokensPerSPerGpu,
    },
    Pattern {
        framework: "Megatron-DeepSpeed",
        field: "tokens per gpu per second (tgs):",
        convert: Quantity::TokensPerSPerGpu,
    },
    Pattern {
        framework: "Megatron-DeepSpeed",
        field: "samples per second:",
        convert: Quantity::SamplesPerS,
    },
    Pattern {
        framework: "DeepSpeed",
        field: "RunningAvgSamplesPerSec=",
        convert: Quantity::SamplesPerS,
    },
    Pattern {
        framework: "DeepSpeed",
        field: "CurrSamplesPerSec=",
        convert: Quantity::SamplesPerS,
    },
    Pattern {
        framework: "Megatron-LM",
        field: "throughput per GPU (TFLOP/s/GPU):",
        convert: Quantity::TflopsPerGpu,
    },
    Pattern {
        framework: "Megatron-DeepSpeed",
        field: "TFLOPs:",
        convert: Quantity::TflopsPerGpu,
    },
    Pattern {
        framework: "torchtitan",
        field: "tflops:",
        convert: Quantity::TflopsPerGpu,
    },
    Pattern {
        framework: "Megatron-LM",
        field: "max reserved:",
        convert: |v| Quantity::MemoryGib(v / 1024.0, MemoryKind::AllocatorReserved),
    },
    Pattern {
        framework: "Megatron-LM",
        field: "max allocated:",
        convert: |v| Quantity::MemoryGib(v / 1024.0, MemoryKind::AllocatorPeak),
    },
    Pattern {
        framework: "torchtitan",
        field: "memory:",
        convert: |v| Quantity::MemoryGib(v, MemoryKind::AllocatorReserved),
    },
    Pattern {
        framework: "DeepSpeed",
        field: "MaxMemAllocated=",
        convert: |v| Quantity::MemoryGib(v, MemoryKind::AllocatorPeak),
    },
];

/// Drops ANSI colour escapes (`ESC [ … m`), which torchtitan prints around every field.
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// The number right after `at` (spaces allowed before it; `,` thousands separators and a
/// trailing unit ignored): `4,321.5`, `1.5E-05`.
fn number_after(text: &str, at: usize) -> Option<f64> {
    let rest = text.get(at..)?.trim_start();
    let mut num = String::new();
    for (i, c) in rest.char_indices() {
        let exp_sign = (c == '-' || c == '+') && i > 0 && num.ends_with(['e', 'E']);
        if c.is_ascii_digit() || c == '.' || exp_sign || ((c == 'e' || c == 'E') && !num.is_empty())
        {
            num.push(c);
        } else if c == ',' && !num.is_empty() {
            continue;
        } else {
            break;
        }
    }
    let num = num.trim_end_matches(['e', 'E']);
    crate::text::parse_f64(num).filter(|v| v.is_finite() && *v > 0.0)
}

/// Whether `field` occurs at `i` as a whole field name (not inside a longer word: torchtitan's
/// `tps:` must not match `per_device_tps:`, `tflops:` must not match `iso_tflops:`).
fn starts_field(text: &str, i: usize, field: &str) -> bool {
    let first = field.chars().next().unwrap_or(' ');
    if !first.is_ascii_alphanumeric() {
        return true;
    }
    match text.get(..i).and_then(|t| t.chars().next_back()) {
        None => true,
        Some(c) => !(c.is_ascii_alphanumeric() || c == '_'),
    }
}

/// Every measurement recognised in `line`, most useful first.
///
/// # Errors
/// A sentence saying that no known field was found (and which ones are read).
pub fn read(line: &str) -> Result<Vec<Reading>, String> {
    let text = strip_ansi(line);
    let mut out = Vec::new();
    for p in PATTERNS {
        let mut from = 0;
        while let Some(rel) = text.get(from..).and_then(|t| t.find(p.field)) {
            let i = from + rel;
            from = i + p.field.len();
            if !starts_field(&text, i, p.field) {
                continue;
            }
            if let Some(v) = number_after(&text, i + p.field.len()) {
                out.push(Reading {
                    framework: p.framework,
                    field: p.field.trim_end_matches([':', '=']),
                    quantity: (p.convert)(v),
                });
                break;
            }
        }
    }
    if out.is_empty() {
        Err(
            "no known field found. paracalc reads Megatron-LM/NeMo (\"elapsed time per \
             iteration (ms)\", \"train_step_timing in s\", \"throughput per GPU (TFLOP/s/GPU)\", \
             \"max reserved\"), torchtitan (\"tps\", \"tflops\", \"memory\") and DeepSpeed \
             (\"RunningAvgSamplesPerSec\", \"samples per second\", \"TFLOPs\", \"MaxMemAllocated\")."
                .to_string(),
        )
    } else {
        Ok(out)
    }
}

/// The first speed reading (step time, throughput or TFLOP/s) and the first memory reading.
pub fn best(readings: &[Reading]) -> (Option<&Reading>, Option<&Reading>) {
    (
        readings.iter().find(|r| r.quantity.is_speed()),
        readings.iter().find(|r| !r.quantity.is_speed()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the line's readings include `q`.
    fn has(r: &[Reading], q: Quantity) -> bool {
        r.iter().any(|x| x.quantity == q)
    }

    #[test]
    fn megatron_iteration_line() {
        let line = " [2024-06-06 10:37:05] iteration       10/  500000 | consumed samples:         1280 | elapsed time per iteration (ms): 4321.5 | throughput per GPU (TFLOP/s/GPU): 402.4 | learning rate: 1.500000E-05 | global batch size:   128 | lm loss: 1.044020E+01 | loss scale: 1.0 | grad norm: 61.583 | number of skipped iterations:   0 | number of nan iterations:   0 |";
        let r = read(line).unwrap();
        assert_eq!(r[0].quantity, Quantity::StepS(4.3215));
        assert_eq!(r[0].field, "elapsed time per iteration (ms)");
        assert!(has(&r, Quantity::TflopsPerGpu(402.4)), "{r:?}");
    }

    #[test]
    fn megatron_memory_line() {
        let line = "[Rank 0] (after 10 iterations) memory (MB) | allocated: 23871.3 | max allocated: 51234.5 | reserved: 60420.0 | max reserved: 61440.0";
        let r = read(line).unwrap();
        let (speed, mem) = best(&r);
        assert!(speed.is_none());
        let mem = mem.unwrap();
        assert_eq!(mem.field, "max reserved");
        assert_eq!(
            mem.quantity,
            Quantity::MemoryGib(60.0, MemoryKind::AllocatorReserved)
        );
    }

    #[test]
    fn nemo_line() {
        let line = "Training epoch 0, iteration 9/99 | lr: 1.499e-05 | global_batch_size: 128 | global_step: 9 | reduced_train_loss: 10.44 | train_step_timing in s: 4.32 | consumed_samples: 1280";
        let r = read(line).unwrap();
        assert_eq!(r[0].framework, "NeMo");
        assert_eq!(r[0].quantity, Quantity::StepS(4.32));
    }

    #[test]
    fn torchtitan_line_with_colours() {
        let line = "[rank0]:[titan] 2025-01-20 10:00:00,123 - root - INFO - \u{1b}[31mstep: 10  \u{1b}[32mloss:  7.8653  \u{1b}[33mmemory: 39.41GiB(41.48%)  \u{1b}[34mtps: 6,733  \u{1b}[36mtflops: 389.95  \u{1b}[35mmfu: 39.43%\u{1b}[39m";
        let r = read(line).unwrap();
        let (speed, mem) = best(&r);
        let speed = speed.unwrap();
        assert_eq!(speed.framework, "torchtitan");
        assert_eq!(speed.field, "tps");
        assert_eq!(speed.quantity, Quantity::TokensPerSPerGpu(6733.0));
        assert_eq!(
            mem.unwrap().quantity,
            Quantity::MemoryGib(39.41, MemoryKind::AllocatorReserved)
        );
        assert!(has(&r, Quantity::TflopsPerGpu(389.95)), "{r:?}");
    }

    #[test]
    fn torchtitan_per_device_tps_is_not_read_as_tps() {
        let line = "step: 10  loss:  7.8653  step_time:  2.5000  tps: 52,000  per_device_tps: 6,500  tflops: 389.95  mfu: 39.43%";
        let r = read(line).unwrap();
        assert_eq!(r[0].quantity, Quantity::StepS(2.5));
        let tps: Vec<_> = r.iter().filter(|x| x.field == "tps").collect();
        assert_eq!(tps.len(), 1);
        assert_eq!(tps[0].quantity, Quantity::TokensPerSPerGpu(52000.0));
    }

    #[test]
    fn deepspeed_throughput_timer_line() {
        let line = "[2023-08-02 00:41:52,123] [INFO] [timer.py:260:stop] epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=25.93, CurrSamplesPerSec=26.01, MemAllocated=12.3GB, MaxMemAllocated=20.1GB";
        let r = read(line).unwrap();
        let (speed, mem) = best(&r);
        assert_eq!(speed.unwrap().field, "RunningAvgSamplesPerSec");
        assert_eq!(speed.unwrap().quantity, Quantity::SamplesPerS(25.93));
        assert_eq!(
            mem.unwrap().quantity,
            Quantity::MemoryGib(20.1, MemoryKind::AllocatorPeak)
        );
    }

    #[test]
    fn megatron_deepspeed_line() {
        let line = " iteration       20/  292968 | consumed samples:         5120 | consumed tokens:     10485760 | elapsed time per iteration (ms): 12345.6 | learning rate: 2.000E-06 | global batch size:   256 | lm loss: 1.040E+01 | loss scale: 4096.0 | grad norm: 12.345 | number of skipped iterations:   0 | number of nan iterations:   0 | samples per second: 20.737 | tokens per gpu per second (tgs): 331.8 | TFLOPs: 145.32 |";
        let r = read(line).unwrap();
        assert_eq!(r[0].quantity, Quantity::StepS(12345.6 / 1000.0));
        assert!(has(&r, Quantity::SamplesPerS(20.737)), "{r:?}");
        assert!(has(&r, Quantity::TokensPerSPerGpu(331.8)), "{r:?}");
        assert!(has(&r, Quantity::TflopsPerGpu(145.32)), "{r:?}");
    }

    #[test]
    fn unknown_lines_say_what_is_read() {
        let e = read("hello world 123").unwrap_err();
        assert!(e.contains("elapsed time per iteration"), "{e}");
        assert!(read("").is_err());
        // A field without a number is not a reading.
        assert!(read("tps: n/a").is_err());
    }

    #[test]
    fn rates_convert_to_step_time() {
        let s = crate::presets::model_preset("llama3-8b")
            .unwrap()
            .scenario();
        let e = crate::engine::estimate(&s).unwrap();
        let step = e.time.step_s;
        let tokens = s.training.global_batch as f64 * s.model.seq_len as f64;
        let gpus = s.cluster.num_gpus as f64;
        let cases = [
            Quantity::StepS(step),
            Quantity::TokensPerS(tokens / step),
            Quantity::TokensPerSPerGpu(tokens / step / gpus),
            Quantity::SamplesPerS(s.training.global_batch as f64 / step),
            Quantity::TflopsPerGpu(e.throughput.tflops_per_gpu),
        ];
        for q in cases {
            let got = q.step_s(&s, &e).unwrap();
            assert!((got / step - 1.0).abs() < 1e-9, "{q:?}: {got} vs {step}");
        }
        assert_eq!(
            Quantity::MemoryGib(1.0, MemoryKind::DeviceUsed).step_s(&s, &e),
            None
        );
    }
}
