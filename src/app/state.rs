//! The app state: one [`Scenario`], changed only through [`Action`]s, and its URL query form.
//!
//! The query holds only the values that differ from [`State::default`], so the bare page URL
//! means the default scenario. Keys are the scenario's field names (`layers`, `pp`). Unknown keys
//! and values that are not valid are ignored, so any link still opens a working page. (The
//! versioned share-link format of `DESIGN.md` will replace this small codec.)

use std::rc::Rc;

use yew::Reducible;

use crate::engine::layout;
use crate::scenario::{
    Cluster, FfnAct, GpuChoice, Model, Optimizer, Overhead, Parallel, Precision, Recompute,
    Scenario, Training,
};

/// Largest layer count the form accepts.
pub const MAX_LAYERS: u64 = 1024;
/// Largest pipeline-parallel degree the form accepts (one bar per stage in the chart).
pub const MAX_PP: u64 = 256;

/// Everything the page shows is derived from this.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The scenario being planned.
    pub scenario: Scenario,
}

/// A change to the [`State`], dispatched by the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Set `model.layers`.
    SetLayers(u64),
    /// Set `parallel.pp`; `cluster.num_gpus` follows so that it stays `tp·pp·dp·cp`.
    SetPp(u64),
}

impl Default for State {
    /// GPT-3 175B on 1024 A100s (tp 8, pp 16, dp 8), the example of `DESIGN.md`.
    fn default() -> State {
        State {
            scenario: Scenario {
                model: Model {
                    name: "GPT-3 175B".into(),
                    layers: 96,
                    hidden: 12288,
                    heads: 96,
                    kv_heads: None,
                    ffn_hidden: None,
                    ffn_act: FfnAct::Gelu,
                    vocab: 51200,
                    seq_len: 2048,
                    tied_embeddings: true,
                    moe: None,
                },
                training: Training {
                    global_batch: 1536,
                    micro_batch: 1,
                    precision: Precision::Bf16,
                    optimizer: Optimizer::default(),
                    recompute: Recompute::Selective,
                    flash_attention: false,
                    train_tokens: None,
                },
                parallel: Parallel {
                    tp: 8,
                    pp: 16,
                    dp: 8,
                    cp: 1,
                    ep: 1,
                    vp: 1,
                    sp: true,
                    zero_stage: 1,
                    schedule: None,
                    layers_per_stage: None,
                    bucket_mb: None,
                    tp_comm_overlap: None,
                    dp_comm_overlap: None,
                },
                cluster: Cluster {
                    gpu: GpuChoice::Preset("a100-sxm4-80gb".into()),
                    num_gpus: 1024,
                    gpus_per_node: 8,
                    intra_node_gbps: None,
                    inter_node_gbps: None,
                    price_per_gpu_hour: None,
                },
                overhead: Overhead::default(),
            },
        }
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.apply(action);
        Rc::new(next)
    }
}

impl State {
    /// Applies one action in place. Out-of-range values are clamped to what the form accepts.
    pub fn apply(&mut self, action: Action) {
        let s = &mut self.scenario;
        match action {
            Action::SetLayers(layers) => s.model.layers = layers.clamp(1, MAX_LAYERS),
            Action::SetPp(pp) => {
                let p = &mut s.parallel;
                p.pp = pp.clamp(1, MAX_PP);
                s.cluster.num_gpus =
                    p.tp.saturating_mul(p.pp)
                        .saturating_mul(p.dp)
                        .saturating_mul(p.cp);
            }
        }
    }

    /// The state a URL query describes (with or without the leading `?`): the default scenario
    /// with each recognised `key=value` pair applied in order. Anything else is ignored.
    pub fn from_query(query: &str) -> State {
        let mut state = State::default();
        let query = query.strip_prefix('?').unwrap_or(query);
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let number = value.parse::<u64>().ok().filter(|v| *v >= 1);
            match (key, number) {
                ("layers", Some(v)) if v <= MAX_LAYERS => state.apply(Action::SetLayers(v)),
                ("pp", Some(v)) if v <= MAX_PP => state.apply(Action::SetPp(v)),
                _ => {}
            }
        }
        state
    }

    /// The URL query (without `?`) for this state: only the values that differ from the
    /// default, so the default state gives `""`. `State::from_query(&s.to_query()) == s`.
    pub fn to_query(&self) -> String {
        let here = &self.scenario;
        let base = State::default().scenario;
        let mut pairs = Vec::new();
        if here.model.layers != base.model.layers {
            pairs.push(format!("layers={}", here.model.layers));
        }
        if here.parallel.pp != base.parallel.pp {
            pairs.push(format!("pp={}", here.parallel.pp));
        }
        pairs.join("&")
    }

    /// Layers held by each pipeline stage, from the engine's split
    /// ([`layout::stage_layers`]).
    pub fn stage_layers(&self) -> Vec<u64> {
        let m = &self.scenario.model;
        let p = &self.scenario.parallel;
        let custom = p.layers_per_stage.as_deref();
        (0..p.pp)
            .map(|stage| layout::stage_layers(m.layers, p.pp, p.vp, custom, stage))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_has_an_empty_query() {
        let s = State::default();
        assert_eq!(s.scenario.validate(), Ok(()));
        assert_eq!(s.to_query(), "");
        assert_eq!(State::from_query(""), s);
        assert_eq!(State::from_query("?"), s);
    }

    #[test]
    fn query_round_trips_and_ignores_junk() {
        let s = State::from_query("?layers=30&pp=4&embed=memory&pp=x&layers=0&zzz");
        assert_eq!(s.scenario.model.layers, 30);
        assert_eq!(s.scenario.parallel.pp, 4);
        // num_gpus follows pp: tp 8 · pp 4 · dp 8 · cp 1 = 256.
        assert_eq!(s.scenario.cluster.num_gpus, 256);
        assert_eq!(s.to_query(), "layers=30&pp=4");
        assert_eq!(State::from_query(&s.to_query()), s);
        // Out of range: ignored, not clamped.
        assert_eq!(State::from_query("pp=100000").scenario.parallel.pp, 16);
    }

    #[test]
    fn stage_layers_add_up() {
        // 30 layers on 4 stages: 7 each and the 2 extra in the middle (engine::layout rule 3).
        let s = State::from_query("layers=30&pp=4");
        assert_eq!(s.stage_layers(), vec![7, 8, 8, 7]);
        // Default: 96 layers on 16 stages, 6 each.
        assert_eq!(State::default().stage_layers(), vec![6; 16]);
    }
}
