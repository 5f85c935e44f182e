//! Definitions of the numbers the page shows (MFU, HFU, TFLOP/s per GPU, tokens/s, step time,
//! peak memory) and the FLOP convention: a short tooltip where each is shown, and a help card
//! with one anchor per term (`#help-mfu`…).

use yew::prelude::*;

/// A defined term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Step time.
    StepTime,
    /// Cluster tokens per second.
    TokensPerS,
    /// Model TFLOP/s per GPU.
    TflopsPerGpu,
    /// Model FLOPs utilisation.
    Mfu,
    /// Hardware FLOPs utilisation.
    Hfu,
    /// Peak memory per GPU.
    PeakMemory,
    /// How FLOPs are counted.
    Convention,
}

impl Term {
    /// Every term, in the help card's order.
    pub const ALL: [Term; 7] = [
        Term::StepTime,
        Term::TokensPerS,
        Term::TflopsPerGpu,
        Term::Mfu,
        Term::Hfu,
        Term::PeakMemory,
        Term::Convention,
    ];

    /// The anchor of its definition (`help-mfu`).
    pub fn anchor(self) -> &'static str {
        match self {
            Term::StepTime => "help-step",
            Term::TokensPerS => "help-tokens",
            Term::TflopsPerGpu => "help-tflops",
            Term::Mfu => "help-mfu",
            Term::Hfu => "help-hfu",
            Term::PeakMemory => "help-memory",
            Term::Convention => "help-flops",
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Term::StepTime => "Step time",
            Term::TokensPerS => "Throughput (tokens/s)",
            Term::TflopsPerGpu => "TFLOP/s per GPU",
            Term::Mfu => "MFU",
            Term::Hfu => "HFU",
            Term::PeakMemory => "Peak memory / GPU",
            Term::Convention => "How FLOPs are counted",
        }
    }

    /// The one-sentence definition (the tooltip).
    pub fn short(self) -> &'static str {
        match self {
            Term::StepTime => "Wall time of one optimizer step: forward and backward of every micro-batch, recomputation, pipeline bubble, communication not hidden behind compute, and the optimizer.",
            Term::TokensPerS => "Training tokens the whole cluster processes per second: global batch × sequence length ÷ step time.",
            Term::TflopsPerGpu => "Model FLOPs per step ÷ step time ÷ number of GPUs, in 10¹² FLOP/s (recomputation not counted).",
            Term::Mfu => "Model FLOPs utilisation: achieved model FLOP/s ÷ (GPUs × dense tensor-core peak of the training precision). Recomputed work is not counted.",
            Term::Hfu => "Hardware FLOPs utilisation: like MFU, but counting the recomputed forward work as well.",
            Term::PeakMemory => "Largest per-GPU memory over the pipeline stages (weights, gradients, optimizer states, activations, framework overhead) against what the framework can use.",
            Term::Convention => "Model FLOPs count 2 per multiply-add, backward = 2 × forward, and attention over the full s×s score matrix (4·q·s per token per layer). Counting causal attention as half of that (Megatron-LM since 2025) gives the lower 'causal' value.",
        }
    }

    /// The longer definition in the help card.
    pub fn long(self) -> &'static str {
        match self {
            Term::StepTime => "step = compute + recompute + bubble + optimizer + exposed communication (tp, cp, ep, pp, dp); the step-time chart draws these parts.",
            Term::TokensPerS => "Whole cluster, not per GPU. Samples/s is this divided by the sequence length.",
            Term::TflopsPerGpu => "The MFU numerator per GPU. Comparable to the TFLOP/s frameworks log only under the same FLOP convention (below).",
            Term::Mfu => "The usual headline number of training reports (PaLM appendix B; Korthikanti et al. 2022). The peak is the dense (not sparse) tensor-core peak of the precision trained in: FP8 runs use the FP8 peak.",
            Term::Hfu => "HFU ≥ MFU; they are equal without recomputation. Full recomputation adds one more forward pass, so HFU is then about 4/3 of MFU.",
            Term::PeakMemory => "A plan fits when every stage fits. 'OOM: X over' is the peak stage's excess.",
            Term::Convention => "paracalc's default counts attention over the whole s×s matrix, as Korthikanti et al. 2022 eq. 7, PaLM, torchtitan and NVIDIA's benchmark pages do. Megatron-LM (since 2025-03) counts causal attention as half. The two differ little at 2–8K tokens and a lot for long sequences (Llama 3 70B at 128K tokens: the causal count is 0.64 × the full one), so from 16K tokens the causal MFU and TFLOP/s are shown beside the default.",
        }
    }
}

/// A small "?" link to a term's definition, with the definition as its tooltip.
pub fn help_link(t: Term) -> Html {
    html! {
        <a class="help-link" href={format!("#{}", t.anchor())} title={t.short()}
           aria-label={format!("What is {}?", t.name())}>{ "?" }</a>
    }
}

/// How many constants the engine has of each kind, and which published runs the end-to-end
/// ones were chosen with (`src/docs/CONSTANTS.md`, [`crate::docs::constants`]).
pub fn constants_sentence() -> String {
    use crate::docs::constants::{BODY_NUMBERS, BY_KIND, END_TO_END_GROUPS};
    let list = |t: &[(&str, usize)]| -> String {
        t.iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "The engine's numeric constants: {} (the registry src/docs/CONSTANTS.md lists each with \
         its source). Specification: data sheets and the frameworks' code; micro-benchmark: \
         kernel and collective benchmarks; end-to-end: chosen where published training runs sit, \
         here {END_TO_END_GROUPS}; definition: units, caps and tolerances. Numbers written in \
         the engine's function bodies set no rate: {} (unit conversions, exact counts of a \
         formula, indices, definitions, and the efficiency table's, registered above).",
        list(&BY_KIND),
        list(&BODY_NUMBERS)
    )
}

/// The help card: every term with its definition, each at its anchor.
pub fn definitions() -> Html {
    html! {
        <section class="card definitions" id="definitions" aria-labelledby="definitions-title">
            <h2 id="definitions-title">{ "What the numbers mean" }</h2>
            <dl>
                { for Term::ALL.iter().map(|t| html! {
                    <>
                        <dt id={t.anchor()}>{ t.name() }</dt>
                        <dd>{ t.short() }{ " " }{ t.long() }</dd>
                    </>
                }) }
            </dl>
            <p class="small muted" id="constants-registry">
                { constants_sentence() }
            </p>
        </section>
    }
}
