//! "I measured this plan": the user enters one measured number of the current plan (or pastes a
//! training-log line), paracalc fits the scenario's calibration ([`crate::calibrate`]) and every
//! number, chart and link from then on uses it. The fitted factors are shown in words, with a
//! one-click reset.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::state::Action;
use crate::calibrate::logline::{self, Quantity};
use crate::calibrate::{fit, memory_offset, FitError, Measurement, MemoryKind};
use crate::engine::estimate;
use crate::evidence::band;
use crate::scenario::{Calibration, Scenario};
use crate::text::num::{ExpFixed, Fixed, Plain};

/// The units a measurement can be entered in (the ones frameworks log).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Seconds per step.
    StepS,
    /// Milliseconds per step (Megatron-LM's "elapsed time per iteration (ms)").
    StepMs,
    /// Tokens per second, whole job.
    TokensPerS,
    /// Tokens per second per GPU (torchtitan's `tps`).
    TokensPerSPerGpu,
    /// Model TFLOP/s per GPU.
    TflopsPerGpu,
    /// Peak memory per GPU, GiB (nvidia-smi).
    MemoryGib,
}

impl Unit {
    /// All units, in the select's order.
    pub const ALL: &'static [Unit] = &[
        Unit::StepS,
        Unit::StepMs,
        Unit::TokensPerS,
        Unit::TokensPerSPerGpu,
        Unit::TflopsPerGpu,
        Unit::MemoryGib,
    ];

    /// The select's value.
    pub fn id(self) -> &'static str {
        match self {
            Unit::StepS => "s",
            Unit::StepMs => "ms",
            Unit::TokensPerS => "tok/s",
            Unit::TokensPerSPerGpu => "tok/s/gpu",
            Unit::TflopsPerGpu => "tflops",
            Unit::MemoryGib => "gib",
        }
    }

    /// The select's label.
    pub fn label(self) -> &'static str {
        match self {
            Unit::StepS => "s per step",
            Unit::StepMs => "ms per step",
            Unit::TokensPerS => "tokens/s (whole job)",
            Unit::TokensPerSPerGpu => "tokens/s per GPU",
            Unit::TflopsPerGpu => "TFLOP/s per GPU",
            Unit::MemoryGib => "GiB peak memory per GPU",
        }
    }

    /// The unit of a select value.
    pub fn parse(id: &str) -> Unit {
        Unit::ALL
            .iter()
            .copied()
            .find(|u| u.id() == id)
            .unwrap_or(Unit::StepS)
    }

    /// The measured quantity `v` in this unit.
    pub fn quantity(self, v: f64) -> Quantity {
        match self {
            Unit::StepS => Quantity::StepS(v),
            Unit::StepMs => Quantity::StepS(v / 1000.0),
            Unit::TokensPerS => Quantity::TokensPerS(v),
            Unit::TokensPerSPerGpu => Quantity::TokensPerSPerGpu(v),
            Unit::TflopsPerGpu => Quantity::TflopsPerGpu(v),
            Unit::MemoryGib => Quantity::MemoryGib(v, MemoryKind::DeviceUsed),
        }
    }
}

/// The calibration of `s` after measuring `q`: speed quantities refit the compute, attention and
/// network factors (the memory offset is kept), memory refits the offset (the factors are
/// kept). Returns the new section, a sentence explaining it, and, for a step time that misses
/// the uncalibrated prediction far beyond `usual_frac` (the step band of similar published
/// runs, when known), the warning of [`band::unusual_miss`].
///
/// # Errors
/// A sentence naming the measured input when it is implausible or the plan is invalid.
pub fn calibrate_with(
    s: &Scenario,
    q: Quantity,
    usual_frac: Option<f64>,
) -> Result<(Calibration, String, Option<String>), String> {
    let base = s.uncalibrated();
    let e0 = estimate(&base).map_err(|e| format!("Fix the plan first: {e}"))?;
    let explain = |e: FitError| match e {
        FitError::Implausible { message, .. } => {
            let mut m = message;
            if let Some(c) = m.get_mut(..1) {
                c.make_ascii_uppercase();
            }
            m
        }
        FitError::Scenario(e) => format!("Fix the plan first: {e}"),
    };
    match q {
        Quantity::MemoryGib(gib, kind) => {
            let off = memory_offset(s, gib, kind).map_err(explain)?;
            let k = Calibration {
                memory_gib: Some(off),
                ..s.calibration
            };
            Ok((k, format!("Memory calibrated: {}.", k.describe()), None))
        }
        _ => {
            let step_s = q
                .step_s(&base, &e0)
                .filter(|t| t.is_finite() && *t > 0.0)
                .ok_or("The measured number must be a positive number.")?;
            let f = fit(s, &Measurement::step(step_s)).map_err(explain)?;
            let k = Calibration {
                memory_gib: s.calibration.memory_gib,
                ..f.calibration
            };
            let warning = usual_frac.and_then(|u| band::unusual_miss(f.step_before_s, step_s, u));
            Ok((k, f.explain(), warning))
        }
    }
}

/// The number after the first `field` in `line` (thousands separators allowed), if any.
fn number_after_field(line: &str, field: &str) -> Option<f64> {
    let at = line.find(field)? + field.len();
    let rest = line[at..].trim_start_matches([' ', '=', ':', '\t']);
    let num: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
        .filter(|c| *c != ',')
        .collect();
    crate::text::parse_f64(&num).filter(|v| v.is_finite() && *v > 0.0)
}

/// Fields of a log line that describe the run rather than its speed, as the frameworks print
/// them (Megatron-LM `training_log`, NeMo's progress bar, torchtitan's config echo), with the
/// plan's value of each.
const RUN_FIELDS: &[(&[&str], &str)] = &[
    (
        &[
            "global batch size:",
            "global_batch_size:",
            "global_batch_size=",
        ],
        "global batch size",
    ),
    (
        &["seq_length:", "seq_len:", "seq_length=", "seq_len="],
        "sequence length",
    ),
    (&["world size:", "world_size:", "world_size="], "GPU count"),
];

/// What a pasted log line says about its run that differs from plan `s`, in words: the run
/// fields it carries ([`RUN_FIELDS`]) that do not equal the plan's (these refuse the
/// calibration: a step of other work says nothing about this plan's speed), and, when the line
/// carries both a step time and TFLOP/s per GPU, model FLOPs per step that differ from the
/// plan's by more than [`FLOPS_MISMATCH`] on its GPU count (a warning: the frameworks' FLOP
/// counts differ a little, so only a large gap points at another model, batch or cluster).
pub fn line_mismatches(
    line: &str,
    s: &Scenario,
    readings: &[logline::Reading],
) -> (Vec<String>, Option<String>) {
    let plan = |name: &str| match name {
        "global batch size" => s.training.global_batch,
        "sequence length" => s.model.seq_len,
        _ => s.cluster.num_gpus,
    };
    let mut differ = Vec::new();
    for (fields, name) in RUN_FIELDS {
        if let Some(v) = fields.iter().find_map(|f| number_after_field(line, f)) {
            let p = plan(name);
            if (v - p as f64).abs() > 0.5 {
                differ.push(format!("{name} {} (the plan: {p})", Plain(v)));
            }
        }
    }
    let step = readings.iter().find_map(|r| match r.quantity {
        Quantity::StepS(t) => Some(t),
        _ => None,
    });
    let tflops = readings.iter().find_map(|r| match r.quantity {
        Quantity::TflopsPerGpu(v) => Some(v),
        _ => None,
    });
    let warning = match (step, tflops, estimate(&s.uncalibrated())) {
        (Some(t), Some(f), Ok(e)) if e.flops.model_flops > 0.0 => {
            let gpus = s.cluster.num_gpus.max(1) as f64;
            let implied = f * 1e12 * gpus * t;
            let ratio = implied / e.flops.model_flops;
            (!(1.0 / FLOPS_MISMATCH..=FLOPS_MISMATCH).contains(&ratio)).then(|| {
                format!(
                    "The line's step time and TFLOP/s per GPU make {} FLOP per step on the plan's {} GPUs, {}× the {} of this plan's model and batch: the run's model, batch, sequence length or GPU count likely differs from the plan.",
                    ExpFixed(implied, 3),
                    s.cluster.num_gpus,
                    Fixed(ratio, 2),
                    ExpFixed(e.flops.model_flops, 3)
                )
            })
        }
        _ => None,
    };
    (differ, warning)
}

/// The ratio of a log line's FLOPs per step to the plan's beyond which they are named
/// different ([`line_mismatches`]). Megatron-LM and torchtitan count the same GEMMs as
/// paracalc's model FLOPs but differ on attention and the output layer by up to ~10 %.
pub const FLOPS_MISMATCH: f64 = 1.2;

/// Props of [`MeasuredBox`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct MeasuredBoxProps {
    /// The current scenario.
    pub scenario: Rc<Scenario>,
    /// Sends the fitted calibration.
    pub on_action: Callback<Action>,
    /// The uncalibrated step band of similar published runs as a fraction, once loaded: a
    /// measurement far outside it is flagged ([`calibrate_with`]).
    pub usual_error: Option<f64>,
}

/// The "I measured this plan" box.
#[component]
pub fn MeasuredBox(props: &MeasuredBoxProps) -> Html {
    let st = BoxState {
        unit: use_state(|| Unit::StepS),
        note: use_state(|| None::<(bool, String)>),
        warning: use_state(|| None::<String>),
        value: use_state(String::new),
    };
    let apply = fit_and_report(props, &st);
    let on_value = on_value(&st, apply.clone());
    let on_unit = on_unit(&st);
    let on_log = on_log(&st, apply, props.scenario.clone());
    let reset = on_reset(&st, props.on_action.clone());
    let BoxState {
        unit,
        note,
        warning,
        value,
    } = st;
    html! {
        <section class="card measured" id="measured" aria-labelledby="measured-title">
            <h2 id="measured-title">{ "I measured this plan" }</h2>
            <p class="muted small">{ "Enter one number from a run of exactly this plan on your cluster; paracalc fits how fast your GPUs and links really are, and every estimate, chart and link then uses it." }</p>
            <div class="field inline">
                <label for="measured-value">{ "Measured" }</label>
                <input id="measured-value" type="text" inputmode="decimal" placeholder="e.g. 4.32" value={(*value).clone()} onchange={on_value} aria-describedby="measured-note" />
                <select id="measured-unit" onchange={on_unit} aria-label="Unit of the measured number">
                    { for Unit::ALL.iter().map(|u| html! {
                        <option value={u.id()} selected={*u == *unit}>{ u.label() }</option>
                    }) }
                </select>
            </div>
            <div class="field">
                <label for="measured-log">{ "…or paste a log line (Megatron-LM/NeMo, torchtitan, DeepSpeed)" }</label>
                <textarea id="measured-log" rows="2" spellcheck="false" onchange={on_log}
                    placeholder="iteration 10/500 | elapsed time per iteration (ms): 4321.5 | throughput per GPU (TFLOP/s/GPU): 402.4 |" />
            </div>
            { status(note.as_ref(), warning.as_deref(), props.scenario.calibration, reset) }
        </section>
    }
}

/// The box's state: the unit and the number as typed, the last fit's explanation or error
/// (`note`: is_error, text) and a measured step far outside the usual error (`warning`, shown
/// beside a successful fit).
struct BoxState {
    unit: UseStateHandle<Unit>,
    note: UseStateHandle<Option<(bool, String)>>,
    warning: UseStateHandle<Option<String>>,
    value: UseStateHandle<String>,
}

/// Fits the calibration to a measured quantity ([`calibrate_with`]), sends it and sets the
/// note and the warning; `read` is what was read from a log line, `extra` what else that line
/// says differs from the plan.
fn fit_and_report(
    props: &MeasuredBoxProps,
    st: &BoxState,
) -> impl Fn(Quantity, Option<String>, Option<String>) + Clone + 'static {
    let (scenario, on_action, note, warning, usual) = (
        props.scenario.clone(),
        props.on_action.clone(),
        st.note.clone(),
        st.warning.clone(),
        props.usual_error,
    );
    move |q: Quantity, read: Option<String>, extra: Option<String>| match calibrate_with(
        &scenario, q, usual,
    ) {
        Ok((k, text, unusual)) => {
            // The unusual miss and what else the log line says differs, together.
            warning.set(match (unusual, extra) {
                (Some(a), Some(b)) => Some(format!("{a} {b}")),
                (a, b) => a.or(b),
            });
            on_action.emit(Action::SetCalibration(k));
            note.set(Some((
                false,
                read.map_or(text.clone(), |r| format!("{r} {text}")),
            )));
        }
        Err(e) => {
            warning.set(None);
            note.set(Some((true, read.map_or(e.clone(), |r| format!("{r} {e}")))));
        }
    }
}

/// A typed number: fitted in the selected unit, or a note when it is not a positive number.
fn on_value(
    st: &BoxState,
    apply: impl Fn(Quantity, Option<String>, Option<String>) + 'static,
) -> Callback<Event> {
    let (unit, value, note) = (st.unit.clone(), st.value.clone(), st.note.clone());
    Callback::from(move |e: Event| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        let text = el.value();
        value.set(text.clone());
        match crate::text::parse_f64(&text.trim().replace(',', "")) {
            Some(v) if v.is_finite() && v > 0.0 => apply(unit.quantity(v), None, None),
            _ if text.trim().is_empty() => note.set(None),
            _ => note.set(Some((
                true,
                format!("\"{text}\" is not a positive number."),
            ))),
        }
    })
}

/// The unit select.
fn on_unit(st: &BoxState) -> Callback<Event> {
    let unit = st.unit.clone();
    Callback::from(move |e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        unit.set(Unit::parse(&el.value()));
    })
}

/// A pasted log ([`read_log`]): its reading shown in the number field and fitted, or the
/// note saying why not.
fn on_log(
    st: &BoxState,
    apply: impl Fn(Quantity, Option<String>, Option<String>) + 'static,
    scenario: Rc<Scenario>,
) -> Callback<Event> {
    let (note, value, unit) = (st.note.clone(), st.value.clone(), st.unit.clone());
    Callback::from(move |e: Event| {
        let el: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
        let text = el.value();
        if text.trim().is_empty() {
            return;
        }
        match read_log(&text, &scenario) {
            Err(why) => note.set(Some((true, why))),
            Ok(None) => {}
            Ok(Some(r)) => {
                if let Some((shown, u)) = r.shown {
                    unit.set(u);
                    value.set(Plain(shown).to_string());
                }
                apply(r.quantity, Some(r.read), r.warning);
            }
        }
    })
}

/// The reset button: the calibration back to none, the box emptied.
fn on_reset(st: &BoxState, on_action: Callback<Action>) -> Callback<MouseEvent> {
    let (note, value, warning) = (st.note.clone(), st.value.clone(), st.warning.clone());
    Callback::from(move |_| {
        on_action.emit(Action::SetCalibration(Calibration::default()));
        note.set(None);
        warning.set(None);
        value.set(String::new());
    })
}

/// What a pasted log gives to calibrate with ([`read_log`]).
struct LogReading {
    /// The measured quantity.
    quantity: Quantity,
    /// What was read, in words ("Read “elapsed time per iteration (ms)” (Megatron-LM): …").
    read: String,
    /// The number and unit the form then shows (none for samples/s, which has no unit there).
    shown: Option<(f64, Unit)>,
    /// The line's FLOPs per step differ from the plan's ([`line_mismatches`]).
    warning: Option<String>,
}

/// Reads pasted log `text` for plan `s`: the last line with a known field (a pasted block may
/// hold several), its best speed reading, else its memory reading (`None`: neither).
///
/// # Errors
/// The note to show: nothing read, or the line is of another run than the plan.
fn read_log(text: &str, s: &Scenario) -> Result<Option<LogReading>, String> {
    let Some((line, readings)) = text
        .lines()
        .rev()
        .find_map(|l| logline::read(l).ok().map(|r| (l, r)))
    else {
        return Err(format!(
            "Nothing read from the pasted text: {}",
            // `.err()`, not `unwrap_err()`: that needs the readings' `Debug`, whose `f64`s would
            // bring core's float formatting into the WebAssembly bundle.
            logline::read("").err().unwrap_or_default()
        ));
    };
    let (differ, warning) = line_mismatches(line, s, &readings);
    if !differ.is_empty() {
        return Err(format!(
            "Not calibrated: the line is of another run than this plan — {}. Make the plan match the run (or paste a line of this plan's run), then paste again.",
            differ.join(", ")
        ));
    }
    let (speed, mem) = logline::best(&readings);
    Ok(speed.or(mem).map(|r| LogReading {
        quantity: r.quantity,
        read: format!(
            "Read \u{201c}{}\u{201d} ({}): {}.",
            r.field,
            r.framework,
            describe(r.quantity)
        ),
        shown: match r.quantity {
            Quantity::StepS(t) => Some((t, Unit::StepS)),
            Quantity::TokensPerS(v) => Some((v, Unit::TokensPerS)),
            Quantity::TokensPerSPerGpu(v) => Some((v, Unit::TokensPerSPerGpu)),
            Quantity::SamplesPerS(_) => None,
            Quantity::TflopsPerGpu(v) => Some((v, Unit::TflopsPerGpu)),
            Quantity::MemoryGib(v, _) => Some((v, Unit::MemoryGib)),
        },
        warning,
    }))
}

/// The last fit's note (`(is_error, text)`), a measured step far off, and the calibration in
/// words with its reset button.
fn status(
    note: Option<&(bool, String)>,
    warning: Option<&str>,
    k: Calibration,
    reset: Callback<MouseEvent>,
) -> Html {
    html! {
        <>
            if let Some((err, text)) = note {
                <p id="measured-note" class={classes!("small", if *err { "error" } else { "muted" })} aria-live="polite">{ text.clone() }</p>
            }
            if let Some(w) = warning {
                <p id="measured-warning" class="small notice warn" role="status">{ w.to_string() }</p>
            }
            if k.is_default() {
                <p class="small muted" id="calibration-words">{ "Not calibrated: the numbers use the data-sheet rates of the GPU and links." }</p>
            } else {
                <p class="small" id="calibration-words">{ format!("Calibrated: {}.", k.describe()) }</p>
                <button type="button" id="calibration-reset" onclick={reset}>{ "Reset calibration" }</button>
            }
        </>
    }
}

/// A reading in words ("4.32 s per step").
fn describe(q: Quantity) -> String {
    match q {
        Quantity::StepS(t) => format!("{} s per step", Plain(t)),
        Quantity::TokensPerS(v) => format!("{} tokens/s for the whole job", Plain(v)),
        Quantity::TokensPerSPerGpu(v) => format!("{} tokens/s per GPU", Plain(v)),
        Quantity::SamplesPerS(v) => format!("{} samples/s for the whole job", Plain(v)),
        Quantity::TflopsPerGpu(v) => format!("{} TFLOP/s per GPU", Plain(v)),
        Quantity::MemoryGib(v, kind) => format!(
            "{} GiB peak memory per GPU ({})",
            Fixed(v, 2),
            match kind {
                MemoryKind::DeviceUsed => "whole device",
                MemoryKind::AllocatorReserved => "allocator reserved",
                MemoryKind::AllocatorPeak => "allocator peak",
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::model_preset;

    #[test]
    fn every_unit_calibrates_to_the_same_step() {
        let s = model_preset("llama3-8b").unwrap().scenario();
        let e = estimate(&s).unwrap();
        let t = 1.1 * e.time.step_s;
        let tokens = s.training.global_batch as f64 * s.model.seq_len as f64;
        let gpus = s.cluster.num_gpus as f64;
        let entries = [
            (Unit::StepS, t),
            (Unit::StepMs, 1000.0 * t),
            (Unit::TokensPerS, tokens / t),
            (Unit::TokensPerSPerGpu, tokens / t / gpus),
            (Unit::TflopsPerGpu, e.flops.model_flops / t / gpus / 1e12),
        ];
        for (u, v) in entries {
            let (k, text, _) = calibrate_with(&s, u.quantity(v), None).unwrap();
            let mut c = s.clone();
            c.calibration = k;
            let got = estimate(&c).unwrap().time.step_s;
            assert!((got / t - 1.0).abs() < 0.005, "{u:?}: {got} vs {t}");
            assert!(text.contains("scales with the GPU kernels"), "{text}");
            // Llama 3 8B runs fused attention: its own factor is fitted and shown.
            assert!(k.attention.is_some(), "{k:?}");
            assert!(text.contains("fused attention runs at"), "{text}");
            assert_eq!(Unit::parse(u.id()), u);
        }
    }

    #[test]
    fn a_step_far_outside_the_usual_error_is_flagged_against_the_uncalibrated_plan() {
        let mut s = model_preset("llama3-8b").unwrap().scenario();
        let t = estimate(&s).unwrap().time.step_s;
        let unusual = |s: &Scenario, q| calibrate_with(s, q, Some(0.06)).unwrap().2;
        // 25 % slower against a ±6 % band (limit 18 %): flagged; 10 % slower: not.
        let w = unusual(&s, Unit::StepS.quantity(1.25 * t)).expect("flagged");
        assert!(w.contains("25 % slower than predicted"), "{w}");
        assert_eq!(unusual(&s, Unit::StepS.quantity(1.1 * t)), None);
        // A tokens/s reading is the same step: 1.25× the step is 1/1.25 of the tokens/s.
        let tokens = s.training.global_batch as f64 * s.model.seq_len as f64;
        assert!(unusual(&s, Unit::TokensPerS.quantity(tokens / (1.25 * t))).is_some());
        // No band known yet (the published runs not loaded): nothing to flag.
        assert_eq!(
            calibrate_with(&s, Unit::StepS.quantity(1.25 * t), None)
                .unwrap()
                .2,
            None
        );
        // Measured against the uncalibrated plan: an existing calibration changes nothing.
        s.calibration.compute = Some(0.8);
        assert!(unusual(&s, Unit::StepS.quantity(1.25 * t)).is_some());
        assert_eq!(unusual(&s, Unit::StepS.quantity(1.1 * t)), None);
        // Memory readings are not step times.
        let gib = estimate(&s).unwrap().memory.peak_bytes / 1_073_741_824.0 + 1.0;
        assert_eq!(unusual(&s, Unit::MemoryGib.quantity(gib)), None);
    }

    #[test]
    fn memory_keeps_the_factors_and_implausible_input_is_named() {
        let mut s = model_preset("llama3-8b").unwrap().scenario();
        s.calibration.compute = Some(0.9);
        let e = estimate(&s).unwrap();
        let gib = e.memory.peak_bytes / 1_073_741_824.0 + 1.0;
        let (k, _, _) = calibrate_with(&s, Unit::MemoryGib.quantity(gib), None).unwrap();
        assert_eq!(k.compute, Some(0.9));
        assert!((k.memory_gib() - 1.0).abs() < 1e-4);
        let err = calibrate_with(&s, Unit::MemoryGib.quantity(1000.0), None).unwrap_err();
        assert!(err.contains("more than the GPU has"), "{err}");
        let err = calibrate_with(&s, Unit::StepS.quantity(1e-6), None).unwrap_err();
        assert!(err.contains("faster than this hardware allows"), "{err}");
    }
}
