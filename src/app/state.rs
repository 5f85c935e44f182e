//! The app state: one [`Scenario`] (plus the pinned A of a comparison, the preset it is relative
//! to, link notices and the selected chart), changed only through [`Action`]s.
//!
//! The URL query is the state, encoded by [`crate::share`]: [`State::from_query`] decodes a link
//! (never failing: what it cannot use becomes a notice) and [`State::to_query`] encodes it back.

use std::rc::Rc;

use yew::Reducible;

use crate::app::charts::ChartKind;
use crate::engine::search::Layout;
use crate::presets::{self, model_preset, network_preset};
use crate::scenario::{
    gpu_preset, Calibration, CustomGpu, FieldId, GpuChoice, Model, Moe, Recompute, Scenario, Value,
};
use crate::share::{self, Notice, Pinned, View};

/// Everything the page shows is derived from this.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The scenario being planned (B of a comparison).
    pub scenario: Scenario,
    /// The model preset the scenario is encoded against in links (`model=`).
    pub preset: &'static str,
    /// The pinned scenario A of an A/B comparison.
    pub pinned: Option<Pinned>,
    /// What the link that opened the page could not use (plain text).
    pub notices: Vec<Notice>,
    /// The chart selected in the full app (`chart=`).
    pub chart: Option<ChartKind>,
    /// Embed mode with this chart (`embed=`).
    pub embed: Option<ChartKind>,
    /// A one-off message from the last import (plain text), `(is_error, text)`.
    pub message: Option<(bool, String)>,
    /// Fields whose typed text is not accepted: while any is listed the scenario (and every
    /// result, link and embed) is the last valid plan, not what the form shows.
    pub drafts: Vec<Draft>,
    /// The last change the app made by itself or on one click (dp following tp, a tried
    /// suggestion, an applied layout), announced with an undo.
    pub undo: Option<Undo>,
}

/// A field whose typed text is not accepted (see [`State::drafts`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    /// The field (its path and label come from the field table).
    pub field: FieldId,
    /// Why the text is not accepted.
    pub why: String,
}

impl Draft {
    /// The field's label.
    pub fn label(&self) -> &'static str {
        self.field.def().label
    }

    /// The field's path (`parallel.tp`).
    pub fn path(&self) -> &'static str {
        self.field.def().path
    }
}

/// An announced change and the scenario before it.
#[derive(Clone, Debug, PartialEq)]
pub struct Undo {
    /// What changed, in words ("Tensor parallel (tp) 8 → 4 set dp 8 → 16 to keep 1024 GPUs.").
    pub text: String,
    /// The scenario before the change ([`Action::Undo`] restores it).
    pub before: Box<Scenario>,
    /// Whether it was a one-click suggestion or layout (the notice then compares the key
    /// numbers before and after).
    pub tried: bool,
}

impl Default for State {
    /// The default preset (`presets::DEFAULT_MODEL_PRESET`), as a link without keys opens.
    fn default() -> State {
        let p = presets::default_model_preset();
        State {
            scenario: p.scenario(),
            preset: p.id,
            pinned: None,
            notices: Vec::new(),
            chart: None,
            embed: None,
            message: None,
            drafts: Vec::new(),
            undo: None,
        }
    }
}

/// A change to the [`State`], dispatched by the form and the toolbar.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Set a numeric field from a form's number (`None`: empty). A value the field's kind does
    /// not accept is ignored; [`layout_rules`] then keeps the layout consistent.
    SetNum(FieldId, Option<f64>),
    /// Set any field to a value of its kind (selects, switches, text, lists). A value the
    /// field's kind does not accept is ignored; [`layout_rules`] then keeps the layout
    /// consistent.
    Set(FieldId, Value<'static>),
    /// Dense (false) or mixture-of-experts (true; starts from 8 experts, top-2).
    SetMoe(bool),
    /// A GPU preset id, or `"custom"` to edit the current GPU's numbers.
    SetGpu(String),
    /// Apply a cluster network preset (node size and link bandwidths).
    ApplyNetwork(String),
    /// Start over from a model preset (its whole scenario).
    LoadPreset(String),
    /// Replace the model section (Hugging Face import), with a message for the user.
    ImportModel(Box<Model>, String),
    /// Replace the whole scenario (JSON import).
    ReplaceScenario(Box<Scenario>),
    /// Set the calibration section (the "I measured this plan" box; default = reset).
    SetCalibration(Calibration),
    /// Show a message (import failures).
    Message(bool, String),
    /// A field's typed text is not accepted (`Some(why)`) or no longer stands (`None`: accepted
    /// again, replaced from elsewhere, or the field is gone).
    Draft(FieldId, Option<String>),
    /// One click: apply a suggestion of the verdict or a fitting layout (its changes in order),
    /// announced with what it was.
    Try(Box<crate::engine::advice::Suggestion>),
    /// Restore the scenario before the announced change.
    Undo,
    /// Keep the announced change (hide its notice).
    KeepChange,
    /// Set `dp = num_gpus / (tp·pp·cp)`.
    FixDp,
    /// Set `num_gpus = tp·pp·dp·cp`.
    FixGpus,
    /// Round `global_batch` to the nearest multiple of `micro_batch·dp` (at least one).
    FixGlobalBatch,
    /// A layout picked in the search chart ([`Layout::apply`]).
    ApplyLayout(Layout),
    /// Pin the current scenario as A.
    Pin,
    /// Drop the pinned A.
    Unpin,
    /// Swap A and B.
    Swap,
    /// The chart tab changed.
    SelectChart(ChartKind),
    /// Hide the link notices and the import message.
    Dismiss,
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.apply(action);
        Rc::new(next)
    }
}

/// `tp·pp·cp` (saturating).
fn model_parallel(s: &Scenario) -> u64 {
    let p = &s.parallel;
    p.tp.saturating_mul(p.pp).saturating_mul(p.cp)
}

/// `tp·pp·dp·cp` (saturating): the GPUs the layout uses.
pub fn layout_gpus(s: &Scenario) -> u64 {
    model_parallel(s).saturating_mul(s.parallel.dp)
}

/// [`layout_gpus`] capped at the largest GPU count a scenario may have (the validator then
/// reports the mismatch instead of the link refusing the number).
fn capped_layout_gpus(s: &Scenario) -> u64 {
    layout_gpus(s).min(crate::scenario::fields::MAX_GPUS)
}

/// The `dp` that makes the layout use exactly `num_gpus`, if the GPUs split evenly.
pub fn fitting_dp(s: &Scenario) -> Option<u64> {
    let mp = model_parallel(s);
    (mp > 0 && s.cluster.num_gpus % mp == 0 && s.cluster.num_gpus >= mp)
        .then(|| s.cluster.num_gpus / mp)
}

/// The multiple of `micro_batch·dp` nearest to `global_batch` (at least one multiple).
/// Stays within the link's limit of 10¹⁰ sequences (unchanged when no multiple fits).
pub fn fitting_global_batch(s: &Scenario) -> u64 {
    const MAX: u64 = 10_000_000_000;
    let step = s.training.micro_batch.saturating_mul(s.parallel.dp).max(1);
    if step > MAX {
        return s.training.global_batch;
    }
    let n = (s.training.global_batch.saturating_add(step / 2) / step).clamp(1, MAX / step);
    n * step
}

/// Largest cluster an import looks for a fitting layout on.
pub const IMPORT_MAX_GPUS: u64 = 16_384;

/// The memory band an import's plan must clear ([`judge`](crate::engine::memory::verdict::judge)
/// gives "fits"): 25 %, so the page then says "fits", not "may not fit", under the in-sample
/// memory band it judges the plan with (5-7 % for the dense presets' plans, above 20 % for a
/// mixture-of-experts plan like the DeepSeek-V3 import, which at a 10 % margin landed at 65.9 of
/// 79.7 GiB and read "may not fit"). A choice of margin, not a measured constant.
pub const IMPORT_BAND: f64 = 0.25;

/// After a Hugging Face import, a plan that fits, and what changed to get there (empty: it fit
/// as it was): the closest fitting layout on the same GPUs
/// ([`advice::closest_fitting`](crate::engine::advice::closest_fitting)); when none is within
/// two changes, the fastest fitting layout of a layout search (one chunk per stage, ZeRO-1, the
/// default schedule) on the same GPUs, then on twice as many, up to [`IMPORT_MAX_GPUS`].
pub fn fit_imported(s: &mut Scenario) -> Vec<String> {
    use crate::engine::memory::verdict::{judge, Verdict};
    use crate::engine::{advice, estimate, search};
    let before = s.clone();
    let solid = |peak: f64, capacity: f64| judge(peak, capacity, IMPORT_BAND) == Verdict::Fits;
    let mut said = Vec::new();
    if let Ok(e) = estimate(s) {
        let capacity = e.memory.capacity_bytes;
        if solid(e.memory.peak_bytes, capacity) {
            return Vec::new();
        }
        let near = advice::closest_fitting(s, 8);
        if let Some(sug) = near.into_iter().find(|x| solid(x.peak_bytes, capacity)) {
            said.push(sug.describe(s));
            sug.apply(s);
            return said;
        }
    }
    let mut n = s.cluster.num_gpus.max(1);
    while n <= IMPORT_MAX_GPUS {
        let space = search::SearchSpace {
            num_gpus: Some(n),
            max_micro_batch: s.training.micro_batch.max(1),
            max_vp: 1,
            vary_cp: false,
            recompute: vec![Recompute::Selective, Recompute::Full],
            zero_stages: vec![1],
            schedules: vec![None],
            refine_splits: false,
            top: 20,
            max_candidates: 200_000,
            ..search::SearchSpace::default()
        };
        let report = search::search(s, &space);
        let capacity = estimate(s).map_or(0.0, |e| e.memory.capacity_bytes);
        if let Some(best) = report
            .best
            .iter()
            .find(|r| capacity <= 0.0 || solid(r.peak_bytes, capacity))
        {
            best.layout.apply(s);
            s.cluster.num_gpus = n;
            let (a, b) = (&before.parallel, &s.parallel);
            if n != before.cluster.num_gpus {
                said.push(format!("GPUs {} → {n}", before.cluster.num_gpus));
            }
            said.push(format!(
                "layout tp {} × pp {} × dp {} × cp {}{} → tp {} × pp {} × dp {} × cp {}{}",
                a.tp,
                a.pp,
                a.dp,
                a.cp,
                if before.model.moe.is_some() || a.ep > 1 {
                    format!(", ep {}", a.ep)
                } else {
                    String::new()
                },
                b.tp,
                b.pp,
                b.dp,
                b.cp,
                if s.model.moe.is_some() {
                    format!(", ep {}", b.ep)
                } else {
                    String::new()
                },
            ));
            if s.training.recompute != before.training.recompute {
                said.push(format!(
                    "recompute {} → {}",
                    before.training.recompute.as_str(),
                    s.training.recompute.as_str()
                ));
            }
            if s.training.micro_batch != before.training.micro_batch {
                said.push(format!(
                    "micro-batch {} → {}",
                    before.training.micro_batch, s.training.micro_batch
                ));
            }
            if b.zero_stage != a.zero_stage {
                said.push(format!("ZeRO {} → {}", a.zero_stage, b.zero_stage));
            }
            return said;
        }
        n *= 2;
    }
    vec![format!(
        "no layout of up to {IMPORT_MAX_GPUS} {} fits; the layout is unchanged",
        s.cluster.gpu_name()
    )]
}

/// A custom GPU with the numbers of `s`'s current GPU.
fn custom_of(s: &Scenario) -> CustomGpu {
    let spec = s.cluster.gpu_spec().unwrap_or_else(|| {
        gpu_preset("h100-sxm5-80gb")
            .or(crate::scenario::GPU_PRESETS.first())
            .map(|p| p.spec)
            .unwrap_or_else(crate::scenario::GpuSpec::fallback)
    });
    let (id, name) = match &s.cluster.gpu {
        GpuChoice::Custom(c) => (c.id.clone(), c.name.clone()),
        GpuChoice::Preset(_) => (
            "custom".to_string(),
            format!("Custom ({})", s.cluster.gpu_name()),
        ),
    };
    CustomGpu::from_spec(id, name, spec)
}

/// The rules that keep a form edit of field `changed` consistent with the rest of the layout
/// (the link and the validator accept any combination; these only save the user a step):
/// - `tp`, `pp`, `cp` or the GPU count recompute `dp = num_gpus / (tp·pp·cp)` when the GPUs
///   split evenly (else the validator reports the mismatch and the form offers a fix);
/// - `dp` sets the GPU count to `tp·pp·dp·cp`;
/// - `pp` drops a `layers_per_stage` list written for another stage count.
///
/// Returns what it changed, in words, for the notice that announces it (empty: nothing).
pub fn layout_rules(s: &mut Scenario, changed: FieldId) -> Vec<String> {
    let (old_dp, old_gpus) = (s.parallel.dp, s.cluster.num_gpus);
    let mut said = Vec::new();
    match changed {
        FieldId::Tp | FieldId::Pp | FieldId::Cp | FieldId::NumGpus => {
            if let Some(dp) = fitting_dp(s) {
                s.parallel.dp = dp;
            }
            if s.parallel.dp != old_dp {
                said.push(format!(
                    "set dp {old_dp} → {} to keep {} GPUs (tp × pp × dp × cp)",
                    s.parallel.dp, s.cluster.num_gpus
                ));
            }
        }
        FieldId::Dp => {
            s.cluster.num_gpus = capped_layout_gpus(s);
            if s.cluster.num_gpus != old_gpus {
                said.push(format!(
                    "set the GPU count {old_gpus} → {} (tp × pp × dp × cp)",
                    s.cluster.num_gpus
                ));
            }
        }
        _ => {}
    }
    if changed == FieldId::Pp {
        let pp = s.parallel.pp;
        if let Some(l) = s
            .parallel
            .layers_per_stage
            .take_if(|l| l.len() as u64 != pp)
        {
            said.push(format!(
                "cleared layers per stage {} (one entry per old stage)",
                stage_list_text(&l)
            ));
        }
    }
    said
}

/// A stage list as the form shows it (`9,10,10,9`).
pub fn stage_list_text(list: &[u64]) -> String {
    list.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// "Tensor parallel (tp) 8 → 4 set dp 8 → 16 …." for an edit of `id` from `before` to `s` that
/// made the automatic changes `said`.
fn edit_notice(id: FieldId, before: &Scenario, s: &Scenario, said: &[String]) -> String {
    let def = id.def();
    let show = |x: Option<f64>| {
        x.map_or_else(
            || "default".to_string(),
            crate::app::components::num_field::show,
        )
    };
    let value = |sc: &Scenario| match def.range() {
        Some(_) => show(def.number(sc)),
        None => (def.get)(sc).map_or_else(|| "default".to_string(), |v| def.format(&v)),
    };
    format!(
        "{} {} → {} {}.",
        def.label,
        value(before),
        value(s),
        said.join("; ")
    )
}

/// The layout rules after an edit of field `id` ([`layout_rules`]), announced when they
/// changed anything.
fn edited(id: FieldId, before: &Scenario, s: &mut Scenario) -> Said {
    let said = layout_rules(s, id);
    (!said.is_empty()).then(|| (edit_notice(id, before, s, &said), false))
}

/// Dense (`on` false) or mixture-of-experts (from 8 experts, top-2); a dense model drops
/// expert parallelism, announced.
fn set_moe(s: &mut Scenario, on: bool) -> Said {
    s.model.moe = if on {
        Some(s.model.moe.unwrap_or(Moe::new(8, 2, s.model.ffn_hidden())))
    } else {
        None
    };
    if on || s.parallel.ep <= 1 {
        return None;
    }
    let text = format!("Dense model: set ep {} → 1 (experts only).", s.parallel.ep);
    s.parallel.ep = 1;
    Some((text, false))
}

/// A GPU preset `id`, or `"custom"` to edit the current GPU's numbers. A calibration describes
/// the cluster it was measured on (its drivers, kernels and fabric), so it does not follow the
/// plan to another GPU preset (announced); editing the figures of the same GPU keeps it.
fn set_gpu(s: &mut Scenario, id: &str) -> Said {
    let was = s.cluster.gpu_name();
    if id == "custom" {
        if !matches!(s.cluster.gpu, GpuChoice::Custom(_)) {
            let custom = custom_of(s);
            s.cluster.gpu = GpuChoice::Custom(custom);
            // The overrides are now part of the custom GPU.
            s.cluster.intra_node_gbps = None;
            s.cluster.inter_node_gbps = None;
        }
    } else if let Some(p) = gpu_preset(id) {
        s.cluster.gpu = GpuChoice::Preset(p.id.to_string());
    }
    let now = s.cluster.gpu_name();
    if id == "custom" || now == was || s.calibration.is_default() {
        return None;
    }
    s.calibration = Calibration::default();
    Some((
        format!("Calibration removed: it was measured on {was}; measure a run on {now} to calibrate again."),
        false,
    ))
}

/// A layout picked in the search chart, with the GPU count it uses; the announcement's text.
fn apply_layout(s: &mut Scenario, layout: Layout) -> String {
    layout.apply(s);
    s.cluster.num_gpus = capped_layout_gpus(s);
    let p = &s.parallel;
    format!(
        "Applied layout tp {} × pp {} × dp {} × cp {}, vp {}, micro-batch {}, recompute {}, ZeRO {}.",
        p.tp, p.pp, p.dp, p.cp, p.vp, s.training.micro_batch,
        s.training.recompute.as_str(), p.zero_stage
    )
}

/// An announcement of a change: its text and whether it was a one-click suggestion or layout
/// (see [`Undo`]).
type Said = Option<(String, bool)>;

impl State {
    /// Applies one action in place. A view action ([`State::apply_view`]) leaves the plan and
    /// its announcement alone; any other ends the previous announcement (its undo would drop
    /// this change) and may announce itself, with the plan before it for [`Action::Undo`].
    pub fn apply(&mut self, action: Action) {
        let Some(action) = self.apply_view(action) else {
            return;
        };
        self.undo = None;
        let before = self.scenario.clone();
        if let Some((text, tried)) = self.apply_change(action, &before) {
            self.undo = Some(Undo {
                text,
                before: Box::new(before),
                tried,
            });
        }
    }

    /// Applies an action that changes what the page shows but not the plan (chart tab,
    /// messages, drafts, the pinned A, the announcement itself); hands any other back.
    fn apply_view(&mut self, action: Action) -> Option<Action> {
        match action {
            Action::SelectChart(c) => self.chart = Some(c),
            Action::Dismiss => {
                self.notices.clear();
                self.message = None;
            }
            Action::Pin => {
                self.pinned = Some(Pinned {
                    scenario: self.scenario.clone(),
                    preset: self.preset,
                })
            }
            Action::Unpin => self.pinned = None,
            Action::Message(error, text) => self.message = Some((error, text)),
            Action::Draft(field, why) => {
                self.drafts.retain(|d| d.field != field);
                if let Some(why) = why {
                    self.drafts.push(Draft { field, why });
                }
            }
            Action::Undo => {
                if let Some(u) = self.undo.take() {
                    self.scenario = *u.before;
                }
            }
            Action::KeepChange => self.undo = None,
            other => return Some(other),
        }
        None
    }

    /// Applies an action that changes the plan (`before` is the plan it started from) and
    /// returns its announcement, if it makes one.
    fn apply_change(&mut self, action: Action, before: &Scenario) -> Said {
        let s = &mut self.scenario;
        match action {
            Action::SetNum(id, v) => {
                self.drafts.retain(|d| d.field != id);
                id.def().set_number(s, v);
                return edited(id, before, s);
            }
            Action::Set(id, v) => {
                self.drafts.retain(|d| d.field != id);
                let def = id.def();
                if def.check(&v).is_ok() && (def.set)(s, v).is_ok() {
                    return edited(id, before, s);
                }
            }
            Action::SetMoe(on) => return set_moe(s, on),
            Action::SetGpu(id) => return set_gpu(s, &id),
            Action::ApplyNetwork(id) => {
                if let Some(n) = network_preset(&id) {
                    n.apply(&mut s.cluster);
                }
            }
            Action::LoadPreset(id) => {
                if let Some(p) = model_preset(&id) {
                    self.scenario = p.scenario();
                    self.preset = p.id;
                }
            }
            Action::ImportModel(model, message) => return self.import_model(*model, &message),
            Action::ReplaceScenario(scenario) => {
                self.scenario = *scenario;
                self.preset = share::nearest_preset(&self.scenario).id;
                self.message = Some((false, "Scenario loaded from JSON.".into()));
            }
            Action::SetCalibration(k) => s.calibration = k,
            Action::FixDp => {
                if let Some(dp) = fitting_dp(s) {
                    s.parallel.dp = dp;
                }
            }
            Action::FixGpus => s.cluster.num_gpus = capped_layout_gpus(s),
            Action::FixGlobalBatch => s.training.global_batch = fitting_global_batch(s),
            Action::ApplyLayout(layout) => return Some((apply_layout(s, layout), true)),
            Action::Try(sug) => {
                let text = format!("Applied: {}.", sug.describe(s));
                sug.apply(s);
                return Some((text, true));
            }
            Action::Swap => {
                if let Some(a) = self.pinned.take() {
                    self.pinned = Some(Pinned {
                        scenario: std::mem::replace(&mut self.scenario, a.scenario),
                        preset: std::mem::replace(&mut self.preset, a.preset),
                    });
                }
            }
            // Handled by apply_view.
            Action::SelectChart(_)
            | Action::Dismiss
            | Action::Pin
            | Action::Unpin
            | Action::Message(..)
            | Action::Draft(..)
            | Action::Undo
            | Action::KeepChange => {}
        }
        None
    }

    /// A Hugging Face import: the model replaced, then made to fit ([`fit_imported`]); "Start
    /// from" names the preset nearest to what the plan now is, and the message says what
    /// changed. Announced when anything beyond the model changed.
    fn import_model(&mut self, model: Model, message: &str) -> Said {
        let s = &mut self.scenario;
        s.model = model;
        let mut said = Vec::new();
        if s.model.moe.is_none() && s.parallel.ep > 1 {
            said.push(format!("dense model: ep {} → 1", s.parallel.ep));
            s.parallel.ep = 1;
        }
        said.extend(fit_imported(s));
        self.preset = share::nearest_preset(s).id;
        let changed = if said.is_empty() {
            "The plan fits as it was.".to_string()
        } else {
            format!("To make it fit: {}.", said.join("; "))
        };
        self.message = Some((false, format!("{message}\n{changed}")));
        (!said.is_empty()).then(|| (format!("Imported {}. {changed}", s.model.name), false))
    }

    /// The state a link describes (the query with or without `?`, or a whole URL). Never fails:
    /// a link too long to read gives the default state with a notice.
    pub fn from_query(query: &str) -> State {
        match share::decode(query) {
            Ok(d) => State {
                scenario: d.scenario,
                preset: d.preset,
                pinned: d.view.pinned,
                notices: d.notices,
                chart: d.view.chart,
                embed: d.view.embed,
                message: None,
                drafts: Vec::new(),
                undo: None,
            },
            Err(e) => State {
                notices: vec![Notice {
                    key: "link".into(),
                    message: format!("{e} The default scenario is shown instead."),
                }],
                ..State::default()
            },
        }
    }

    /// The link query (without `?`) for this state, with the view keys (`chart`, `embed`) and
    /// the pinned A.
    pub fn to_query(&self) -> String {
        self.query_with(self.embed)
    }

    /// The link query with `embed` replaced (`None`: the full app; `Some`: an embed of that chart).
    pub fn query_with(&self, embed: Option<ChartKind>) -> String {
        let view = View {
            embed,
            chart: self.chart,
            pinned: self.pinned.clone(),
        };
        share::encode_with_view(&self.scenario, self.preset, &view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_default_preset_and_valid() {
        let s = State::default();
        assert_eq!(s.preset, "llama3-8b");
        assert_eq!(s.scenario.validate(), Ok(()));
        assert_eq!(s.to_query(), "v=1&model=llama3-8b");
        assert_eq!(State::from_query(""), s);
        assert_eq!(State::from_query("?"), s);
    }

    #[test]
    fn a_calibration_does_not_follow_the_plan_to_another_gpu() {
        let mut st = State::default();
        let k = Calibration {
            compute: Some(0.8),
            network: Some(0.7),
            ..Calibration::default()
        };
        st.apply(Action::SetCalibration(k));
        // Custom figures of the same GPU: still the measured cluster.
        st.apply(Action::SetGpu("custom".into()));
        assert_eq!(st.scenario.calibration, k);
        st.apply(Action::SetGpu("a100-sxm4-80gb".into()));
        assert!(st.scenario.calibration.is_default());
        let undo = st.undo.clone().expect("the removal is announced");
        assert!(
            undo.text
                .starts_with("Calibration removed: it was measured on Custom (NVIDIA H100"),
            "{}",
            undo.text
        );
        assert!(undo.text.contains("A100"), "{}", undo.text);
        // Undo brings the plan back with its calibration.
        st.apply(Action::Undo);
        assert_eq!(st.scenario.calibration, k);
    }

    #[test]
    fn every_numeric_field_reads_back_what_it_sets() {
        let mut st = State::default();
        st.apply(Action::SetMoe(true));
        st.apply(Action::SetGpu("custom".into()));
        for f in crate::scenario::FIELDS
            .iter()
            .filter(|f| f.range().is_some())
        {
            // 2.5 where the range allows it, else the middle of the range (calibration factors).
            let (lo, hi, _) = f.range().unwrap_or((0.0, 0.0, false));
            let v = if f.whole() {
                3.0
            } else if (lo..=hi).contains(&2.5) {
                2.5
            } else {
                (lo + hi) / 2.0
            };
            st.apply(Action::SetNum(f.id, Some(v)));
            assert_eq!(f.number(&st.scenario), Some(v), "{}", f.path);
            assert!(!f.help.is_empty(), "{}", f.path);
        }
    }

    #[test]
    fn layout_edits_keep_the_gpu_count() {
        // llama3-8b preset: check its layout, then tp 1 → 2 on the same GPUs halves dp.
        let mut st = State::default();
        let gpus = st.scenario.cluster.num_gpus;
        let tp = st.scenario.parallel.tp;
        st.apply(Action::SetNum(FieldId::Tp, Some((tp * 2) as f64)));
        assert_eq!(st.scenario.cluster.num_gpus, gpus);
        assert_eq!(layout_gpus(&st.scenario), gpus);
        // dp drives the GPU count: dp 3 → tp·pp·3·cp GPUs.
        st.apply(Action::SetNum(FieldId::Dp, Some(3.0)));
        let p = &st.scenario.parallel;
        assert_eq!(st.scenario.cluster.num_gpus, p.tp * p.pp * 3 * p.cp);
        // GPUs that do not split evenly leave dp alone; FixGpus repairs.
        st.apply(Action::SetNum(FieldId::NumGpus, Some(7.0)));
        assert_eq!(st.scenario.parallel.dp, 3);
        assert!(st.scenario.validate().is_err());
        st.apply(Action::FixGpus);
        assert_eq!(st.scenario.cluster.num_gpus, layout_gpus(&st.scenario));
    }

    #[test]
    fn pin_edit_and_the_link_carries_both() {
        let mut st = State::from_query("v=1&model=llama3-70b");
        st.apply(Action::Pin);
        st.apply(Action::SetNum(FieldId::MicroBatch, Some(2.0)));
        st.apply(Action::SelectChart(ChartKind::Time));
        let q = st.to_query();
        assert_eq!(
            q,
            "v=1&model=llama3-70b&mbs=2&a.model=llama3-70b&chart=time"
        );
        let back = State::from_query(&q);
        assert_eq!(back.scenario, st.scenario);
        assert_eq!(back.pinned, st.pinned);
        assert_eq!(back.chart, Some(ChartKind::Time));
        assert!(back.notices.is_empty());
        // The embed query keeps everything and adds embed=.
        assert_eq!(
            st.query_with(Some(ChartKind::Memory)),
            format!("{q}&embed=memory")
        );
        let mut swapped = back.clone();
        swapped.apply(Action::Swap);
        assert_eq!(swapped.scenario.training.micro_batch, 1);
        assert_eq!(
            swapped.pinned.map(|p| p.scenario.training.micro_batch),
            Some(2)
        );
    }

    #[test]
    fn bad_links_give_notices_and_a_working_state() {
        let st = State::from_query("?model=nope&tp=abc&zzz=1&name=%3Cb%3Ehi%3C%2Fb%3E");
        assert_eq!(st.scenario.model.name, "<b>hi</b>");
        let keys: Vec<&str> = st.notices.iter().map(|n| n.key.as_str()).collect();
        assert_eq!(keys, ["model", "tp", "zzz"]);
        let long = format!("tp={}", "9".repeat(5000));
        let st = State::from_query(&long);
        assert_eq!(st.notices.len(), 1);
        assert!(st.notices[0].message.contains("4096"));
        assert_eq!(st.scenario, State::default().scenario);
    }

    #[test]
    fn global_batch_is_rounded_to_whole_micro_batches() {
        // gpt3-175b: mbs 1, dp 8. dp 16 (tp 4) keeps 1536 = 96 × 16; mbs 5 → step 80:
        // 1536 / 80 = 19.2 → 19 × 80 = 1520.
        let mut st = State::from_query("v=1&model=gpt3-175b&tp=4&dp=16&mbs=5");
        assert!(st.scenario.validate().is_err());
        st.apply(Action::FixGlobalBatch);
        assert_eq!(st.scenario.training.global_batch, 1520);
        assert_eq!(st.scenario.validate(), Ok(()));
        // Never below one multiple.
        st.apply(Action::SetNum(FieldId::GlobalBatch, Some(3.0)));
        st.apply(Action::FixGlobalBatch);
        assert_eq!(st.scenario.training.global_batch, 80);
    }

    #[test]
    fn stage_list_and_layout_actions() {
        let mut st = State::from_query("v=1&model=gpt3-175b");
        let lps = FieldId::LayersPerStage;
        st.apply(Action::Set(lps, Value::List(vec![0, 6].into())));
        assert_eq!(st.scenario.parallel.layers_per_stage, None);
        st.apply(Action::Set(lps, Value::List(vec![5, 7].into())));
        assert_eq!(st.scenario.parallel.layers_per_stage, Some(vec![5, 7]));
        st.apply(Action::SetNum(FieldId::Pp, Some(4.0)));
        assert_eq!(st.scenario.parallel.layers_per_stage, None);
        let mut layout = Layout::of(&st.scenario);
        layout.tp = 4;
        layout.dp = 2;
        st.apply(Action::ApplyLayout(layout));
        assert_eq!(st.scenario.parallel.tp, 4);
        assert_eq!(st.scenario.cluster.num_gpus, 4 * 4 * 2);
    }

    #[test]
    fn custom_gpu_starts_from_the_current_one() {
        let mut st = State::default();
        let spec = st.scenario.gpu().unwrap();
        st.apply(Action::SetGpu("custom".into()));
        assert_eq!(st.scenario.gpu().unwrap().hbm_gib, spec.hbm_gib);
        st.apply(Action::SetNum(FieldId::GpuHbm, Some(96.0)));
        assert_eq!(st.scenario.gpu().unwrap().hbm_gib, 96.0);
        assert_eq!(st.scenario.validate(), Ok(()));
        let back = State::from_query(&st.to_query());
        assert_eq!(back.scenario, st.scenario);
        st.apply(Action::SetGpu("h100-sxm5-80gb".into()));
        assert_eq!(
            st.scenario.cluster.gpu,
            GpuChoice::Preset("h100-sxm5-80gb".into())
        );
    }

    #[test]
    fn automatic_changes_are_announced_with_an_undo() {
        // gpt3-175b: tp 8, pp 16, dp 8 on 1024 GPUs. tp 8 → 4 moves dp 8 → 16.
        let mut st = State::from_query("v=1&model=gpt3-175b");
        let before = st.scenario.clone();
        st.apply(Action::SetNum(FieldId::Tp, Some(4.0)));
        let u = st.undo.clone().expect("dp change announced");
        assert_eq!(
            u.text,
            "Tensor parallel (tp) 8 → 4 set dp 8 → 16 to keep 1024 GPUs (tp × pp × dp × cp)."
        );
        assert!(!u.tried);
        assert_eq!(*u.before, before);
        st.apply(Action::Undo);
        assert_eq!(st.scenario, before);
        assert_eq!(st.undo, None);
        // dp drives the GPU count.
        st.apply(Action::SetNum(FieldId::Dp, Some(4.0)));
        assert!(st
            .undo
            .as_ref()
            .unwrap()
            .text
            .contains("GPU count 1024 → 512"));
        // An edit that changes nothing else ends the announcement.
        st.apply(Action::SetNum(FieldId::MicroBatch, Some(2.0)));
        assert_eq!(st.undo, None);
        // A custom split cleared by a new pp is announced.
        let mut st = State::from_query("v=1&model=gpt3-175b");
        st.apply(Action::Set(
            FieldId::LayersPerStage,
            Value::List(vec![5, 7, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6].into()),
        ));
        st.apply(Action::SetNum(FieldId::Pp, Some(8.0)));
        let text = &st.undo.as_ref().unwrap().text;
        assert!(
            text.contains("set dp 8 → 16") && text.contains("cleared layers per stage 5,7,6"),
            "{text}"
        );
        st.apply(Action::KeepChange);
        assert_eq!(st.undo, None);
        assert_eq!(st.scenario.parallel.pp, 8);
    }

    #[test]
    fn invalid_text_marks_the_state_stale_until_fixed() {
        let mut st = State::default();
        let q = st.to_query();
        st.apply(Action::Draft(FieldId::Tp, Some("Not a number.".into())));
        assert_eq!(st.drafts.len(), 1);
        assert_eq!(st.to_query(), q, "the scenario is the last valid plan");
        // Typing again replaces the reason; a valid value clears it.
        st.apply(Action::Draft(FieldId::Tp, Some("Enter a value.".into())));
        assert_eq!(st.drafts.len(), 1);
        assert_eq!(st.drafts[0].why, "Enter a value.");
        st.apply(Action::SetNum(FieldId::Tp, Some(1.0)));
        assert!(st.drafts.is_empty());
        // Stage lists: a draft until a list is set.
        let lps = FieldId::LayersPerStage;
        st.apply(Action::Draft(lps, Some("Not a list.".into())));
        assert_eq!(st.drafts.len(), 1);
        assert_eq!(st.drafts[0].label(), lps.def().label);
        st.apply(Action::Set(lps, Value::List(vec![16].into())));
        assert!(st.drafts.is_empty());
        // A field that goes away clears its mark.
        st.apply(Action::Draft(
            FieldId::Experts,
            Some("Not a number.".into()),
        ));
        st.apply(Action::Draft(FieldId::Experts, None));
        assert!(st.drafts.is_empty());
    }

    #[test]
    fn a_tried_suggestion_applies_and_undoes() {
        let mut st = State::from_query("v=1&model=gpt3-175b");
        let before = st.scenario.clone();
        let e = crate::engine::estimate(&before).unwrap();
        let v = crate::engine::advice::verdict(&before, &e);
        let sug = v.suggestions[0].clone();
        st.apply(Action::Try(Box::new(sug.clone())));
        let mut expected = before.clone();
        sug.apply(&mut expected);
        assert_eq!(st.scenario, expected);
        let u = st.undo.clone().unwrap();
        assert!(u.tried && u.text.starts_with("Applied: "));
        assert_eq!(
            crate::engine::estimate(&st.scenario).unwrap().time.step_s,
            sug.step_s
        );
        st.apply(Action::Undo);
        assert_eq!(st.scenario, before);
    }
}
