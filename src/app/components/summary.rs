//! The key numbers of an estimate: step time, throughput, MFU/HFU, memory against capacity,
//! time and cost to train.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::components::definitions::{help_link, Term};
use crate::app::format;
use crate::app::state::Draft;
use crate::engine::memory::verdict::{Verdict, DEFAULT_BAND_FRAC};
use crate::engine::Estimate;
use crate::evidence::band;
use crate::scenario::{Scenario, ScenarioError};

/// Which way is better for a number (for the comparison's colours).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Larger is better (throughput).
    Higher,
    /// Smaller is better (time, memory, cost).
    Lower,
}

/// One key number.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyNumber {
    /// Element id suffix (`step`, `tokens`…).
    pub id: &'static str,
    /// Label.
    pub label: &'static str,
    /// The value in its base unit (for deltas).
    pub value: f64,
    /// The value as text with its unit.
    pub text: String,
    /// Which way is better.
    pub better: Better,
    /// Whether it is a speed number (shown "if it fit" when the plan does not fit).
    pub speed: bool,
    /// The defined term it shows (tooltip and help anchor), if any.
    pub term: Option<Term>,
    /// The value under the other FLOP convention (causal attention), shown beside it for long
    /// sequences.
    pub alt: Option<String>,
}

/// Sequence length from which the causal-attention value is shown beside MFU and TFLOP/s
/// (there the two conventions differ by more than about 10 % for Llama-size models).
pub const SHOW_CAUSAL_FROM: u64 = 16_384;

/// The key numbers of `e` for scenario `s`, in display order. Time and cost to train appear only
/// when the scenario has train tokens (and a price).
pub fn key_numbers(e: &Estimate, s: &Scenario) -> Vec<KeyNumber> {
    let t = &e.throughput;
    let m = &e.memory;
    let causal = s.model.seq_len >= SHOW_CAUSAL_FROM;
    let mut out = vec![
        KeyNumber {
            id: "step",
            label: "Step time",
            value: e.time.step_s,
            text: format::duration(e.time.step_s),
            better: Better::Lower,
            speed: true,
            term: Some(Term::StepTime),
            alt: None,
        },
        KeyNumber {
            id: "tokens",
            label: "Throughput",
            value: t.tokens_per_s,
            text: format!("{} tokens/s", format::si(t.tokens_per_s)),
            better: Better::Higher,
            speed: true,
            term: Some(Term::TokensPerS),
            alt: None,
        },
        KeyNumber {
            id: "tflops",
            label: "TFLOP/s per GPU",
            value: t.tflops_per_gpu,
            text: format!("{} TFLOP/s", format::sig(t.tflops_per_gpu)),
            better: Better::Higher,
            speed: true,
            term: Some(Term::TflopsPerGpu),
            alt: causal.then(|| format!("causal {}", format::sig(t.tflops_per_gpu_causal))),
        },
        KeyNumber {
            id: "mfu",
            label: "MFU",
            value: t.mfu,
            text: format::pct(t.mfu),
            better: Better::Higher,
            speed: true,
            term: Some(Term::Mfu),
            alt: causal.then(|| format!("causal {}", format::pct(t.mfu_causal))),
        },
        KeyNumber {
            id: "hfu",
            label: "HFU",
            value: t.hfu,
            text: format::pct(t.hfu),
            better: Better::Higher,
            speed: true,
            term: Some(Term::Hfu),
            alt: None,
        },
        KeyNumber {
            id: "memory",
            label: "Peak memory / GPU",
            value: m.peak_bytes,
            text: format!(
                "{} of {}",
                format::gib(m.peak_bytes),
                format::gib(m.capacity_bytes)
            ),
            better: Better::Lower,
            speed: false,
            term: Some(Term::PeakMemory),
            alt: None,
        },
    ];
    if let Some(secs) = t.train_time_s {
        out.push(KeyNumber {
            id: "train-time",
            label: "Time to train",
            value: secs,
            text: format::duration(secs),
            better: Better::Lower,
            speed: true,
            term: None,
            alt: s
                .training
                .train_tokens
                .map(|n| format!("for {} tokens", format::si(n))),
        });
    }
    if let Some(h) = t.train_gpu_hours {
        out.push(KeyNumber {
            id: "gpu-hours",
            label: "GPU-hours",
            value: h,
            text: format!("{} GPU·h", format::si(h)),
            better: Better::Lower,
            speed: true,
            term: None,
            alt: None,
        });
    }
    if let (Some(cost), Some(_)) = (t.train_cost, s.cluster.price_per_gpu_hour) {
        out.push(KeyNumber {
            id: "cost",
            label: "Cost to train",
            value: cost,
            text: format::money(cost),
            better: Better::Lower,
            speed: true,
            term: None,
            alt: None,
        });
    }
    out
}

/// The fit verdict the page shows, one for the tile and the one-line summary: judged with the
/// memory band of the published runs most like the plan (`frac`, the evidence's
/// [`band::Band::memory_frac`], the band `paracalc estimate` judges with) once they are loaded,
/// else with the engine's own ([`DEFAULT_BAND_FRAC`], the verdict the estimate carries).
pub fn page_fit(e: &Estimate, frac: Option<f64>) -> Verdict {
    frac.map_or(e.memory.fit.verdict, |f| e.memory.fit_with(f).verdict)
}

/// A one-line summary (the embed's caption, the page's status line), with the fit `verdict` the
/// page shows ([`page_fit`]).
pub fn one_line(e: &Estimate, s: &Scenario, verdict: Verdict) -> String {
    let m = &e.memory;
    let fit = match verdict {
        Verdict::Fits => "fits",
        Verdict::MayNotFit => "may NOT fit",
        Verdict::DoesNotFit => "does NOT fit",
    };
    let calibrated = if s.calibration.is_default() {
        ""
    } else {
        " Calibrated to a measured run."
    };
    format!(
        "{} on {} × {}: step {}, {} tokens/s, MFU {}, peak {} per GPU ({fit}).{calibrated}",
        if s.model.name.is_empty() {
            "Model"
        } else {
            s.model.name.as_str()
        },
        s.cluster.num_gpus,
        s.cluster.gpu_name(),
        format::duration(e.time.step_s),
        format::si(e.throughput.tokens_per_s),
        format::pct(e.throughput.mfu),
        format::gib(m.peak_bytes),
    )
}

/// The expected error of the key numbers, as text ([`crate::evidence::band`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BandTexts {
    /// Next to the step time (the calibrated band when the plan is calibrated).
    pub step: String,
    /// Under it, which way those runs missed (uncalibrated plans only): "14 to 24 % shorter than
    /// measured on those runs" ([`band::Spread`]).
    pub step_spread: Option<String>,
    /// Next to throughput, TFLOP/s, MFU and HFU.
    pub rate: String,
    /// Next to the peak memory, when published runs report memory.
    pub memory: Option<String>,
    /// Under it, which way those runs' peaks missed ([`band::Spread`]).
    pub memory_spread: Option<String>,
    /// The memory band as a fraction, for the fit verdict ([`band::fit_is_uncertain`]).
    pub memory_frac: Option<f64>,
}

impl BandTexts {
    /// The element id and text of the signed line under the tile `id`'s band, if any.
    pub fn spread_for_tile(&self, id: &str) -> Option<(&'static str, String)> {
        match id {
            "step" => self.step_spread.clone().map(|t| ("band-step-spread", t)),
            "memory" => self
                .memory_spread
                .clone()
                .map(|t| ("band-memory-spread", t)),
            _ => None,
        }
    }

    /// The band shown in the tile `id`, if any.
    pub fn for_tile(&self, id: &str) -> Option<&str> {
        match id {
            "step" => Some(&self.step),
            "tokens" | "tflops" | "mfu" | "hfu" => Some(&self.rate),
            "memory" => self.memory.as_deref(),
            _ => None,
        }
    }
}

/// What [`summary`] shows.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryProps {
    /// The scenario.
    pub scenario: Rc<Scenario>,
    /// Its estimate.
    pub estimate: Rc<Result<Estimate, ScenarioError>>,
    /// Fields whose typed text is not accepted: the numbers belong to the last valid plan.
    pub drafts: Rc<Vec<Draft>>,
    /// The expected error of each number, once the published runs are loaded.
    pub bands: Option<Rc<BandTexts>>,
}

/// The "last valid plan" banner for fields whose text is not accepted (empty when none).
pub fn stale_banner(drafts: &[Draft]) -> Html {
    if drafts.is_empty() {
        return html! {};
    }
    html! {
        <div class="stale-banner" id="stale-banner" role="status">
            <strong>{ "Results of the last valid plan" }</strong>
            { " — not of what the form shows. Fix " }
            { for drafts.iter().enumerate().map(|(i, d)| html! {
                <>
                    if i > 0 { { ", " } }
                    <a href={format!("#{}", d.field.def().input_id())}>{ d.label() }</a>
                    { format!(" ({})", d.why.trim_end_matches('.')) }
                </>
            }) }
            { " to update them." }
        </div>
    }
}

/// The key numbers as a grid of tiles; the memory tile is red when the plan does not fit, and
/// then the speed numbers are greyed and labelled "if it fit". Every defined term has a tooltip
/// and a link to its definition.
pub fn summary(props: &SummaryProps) -> Html {
    let stale = !props.drafts.is_empty();
    let e = match &*props.estimate {
        Ok(e) => e,
        Err(err) => {
            let n = err.issues.len();
            return html! {
                <section class="summary card invalid" id="summary" aria-live="polite">
                    <h2>{ "Key numbers" }</h2>
                    { stale_banner(&props.drafts) }
                    <p class="error">{ format!("{n} problem{} in the inputs (marked at the fields) — fix {} to see the estimate.",
                        if n == 1 { "" } else { "s" }, if n == 1 { "it" } else { "them" }) }</p>
                </section>
            };
        }
    };
    let fits = e.memory.fits;
    let headroom = e.memory.headroom_bytes;
    let frac = props.bands.as_ref().and_then(|b| b.memory_frac);
    let verdict = page_fit(e, frac);
    // The limit inside the memory band: the verdict could go either way.
    let caveat = (verdict == Verdict::MayNotFit)
        .then(|| {
            band::fit_caveat(
                e.memory.peak_bytes,
                e.memory.capacity_bytes,
                frac.unwrap_or(DEFAULT_BAND_FRAC),
            )
        })
        .flatten();
    html! {
        <section class={classes!("summary", "card", stale.then_some("stale"))} id="summary" aria-live="polite">
            <h2 class="sr-only">{ "Key numbers" }</h2>
            { stale_banner(&props.drafts) }
            if !fits {
                <p class="if-fit-note" id="if-fit-note">{ "Does not fit in GPU memory: the speed numbers are for if it fit." }</p>
            }
            <dl class="tiles">
                { for key_numbers(e, &props.scenario).into_iter().map(|k| {
                    let bad = k.id == "memory" && !fits;
                    let band = props.bands.as_ref().and_then(|b| b.for_tile(k.id)).map(str::to_string);
                    let greyed = k.speed && !fits;
                    let title = k.term.map(|t| AttrValue::from(t.short()));
                    html! {
                        <div class={classes!("tile", bad.then_some("oom"), greyed.then_some("if-fit"))} id={format!("key-{}", k.id)} {title}>
                            <dt>
                                { k.label }
                                if greyed { <span class="if-fit-label">{ " (if it fit)" }</span> }
                                if let Some(t) = k.term { { help_link(t) } }
                            </dt>
                            <dd>
                                { k.text }
                                if let Some(alt) = k.alt {
                                    <span class="alt" title={k.term.is_some().then(|| Term::Convention.short())}>{ alt }</span>
                                }
                            </dd>
                            if let Some(b) = band {
                                <dd class="band small muted" id={format!("band-{}", k.id)} title={format!("80 % band of the measured value over the predicted one on a cluster paracalc has not seen, built from its errors on other published sources (between-source offsets plus the scatter of similar runs); calibrating on your own run removes the offset: {b}")}>
                                    // The rates repeat the step's basis: only its ± shows (the rest
                                    // is read out and in the tooltip).
                                    if matches!(k.id, "tokens" | "tflops" | "mfu" | "hfu") {
                                        if let Some((short, rest)) = b.split_once(" (") {
                                            { short.to_string() }<span class="sr-only">{ format!(" ({rest}") }</span>
                                        } else {
                                            { b }
                                        }
                                    } else {
                                        { b }
                                    }
                                </dd>
                            }
                            if let Some((id, w)) = props.bands.as_ref().and_then(|b| b.spread_for_tile(k.id)) {
                                <dd class="band small muted" id={id} title="Which way paracalc missed the measured value on the same published runs (predicted/measured − 1)">{ w }</dd>
                            }
                        </div>
                    }
                }) }
                if e.throughput.train_time_s.is_none() {
                    <div class="tile unset" id="key-train-time">
                        <dt>{ "Time to train" }</dt>
                        <dd><a href="#training-train_tokens">{ "set train tokens" }</a></dd>
                    </div>
                }
                // The three-state verdict (engine::memory::verdict): the limit inside the band
                // is "may not fit" whichever side of it the prediction lies.
                <div class={classes!("tile", "fit", match (fits, caveat.is_some()) {
                    (true, false) => "ok",
                    (_, true) => "tight",
                    (false, false) => "oom",
                })} id="key-fits">
                    <dt>{ "Memory" }</dt>
                    <dd>{ match (fits, caveat.is_some()) {
                        (true, false) => format!("fits ({} free)", format::gib(headroom)),
                        (true, true) => format!("may not fit ({} free)", format::gib(headroom)),
                        (false, true) => format!("may not fit ({} over)", format::gib(-headroom)),
                        (false, false) => format!("does not fit (OOM: {} over)", format::gib(-headroom)),
                    } }</dd>
                    if let Some(c) = caveat {
                        <dd class="band small" id="fit-uncertain">{ c }</dd>
                    }
                </div>
            </dl>
            // The tiles in one sentence, for screen readers (the embeds show it as their caption).
            <p class="sr-only" id="summary-line">{ one_line(e, &props.scenario, verdict) }</p>
        </section>
    }
}
