//! Runs of consecutive pipeline ranks that hold the same things: the same layers by kind
//! ([`LayerMix`]) and the same ends of the model (the input embedding, the output layer).
//!
//! A rank's parameters, model states and per-micro-batch time follow from what it holds, not from
//! its place in the pipeline ([`crate::engine::memory`], [`crate::engine::time::stage`]), so both
//! models work them out once per run rather than once per rank.
//!
//! Only ranks 0 and `pp − 1` ever hold an end ([`holds_embedding`], [`holds_output`]: rank 0
//! always holds the embedding; the last rank, or rank 0 again for the V-shaped schedules, the
//! output layer; DualPipe puts both on both). When every rank that holds no end holds the same
//! layers (a dense model split evenly, [`StageMixer::uniform`]), the ranks between the two ends
//! form one run without looking at each: an even split of `pp` ranks is at most three runs in
//! O(1). Otherwise neighbours are compared, O(pp), jumping over the stretches of ranks whose
//! layers cannot change ([`StageMixer::next_change`]: an every-layer MoE model's default split,
//! past its dense layers, is at most a few runs too). No allocation.

use super::layers::{LayerMix, StageMixer};
use super::layout::{holds_embedding, holds_output};
use crate::scenario::Schedule;
use std::ops::Range;

/// What one pipeline rank holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Holds {
    /// Its layers by kind (all its chunks, MTP modules included).
    pub mix: LayerMix,
    /// Whether it holds the input embedding.
    pub embedding: bool,
    /// Whether it holds the output layer and the loss.
    pub output: bool,
    /// Under DualPipe, the part of `mix` that is model stage `r` of rank `r` (the rest is stage
    /// `pp − 1 − r`; [`StageMixer::dualpipe_near`]): the two hold different numbers of
    /// micro-batches in flight. Empty for other schedules.
    pub near: LayerMix,
}

/// Consecutive ranks that hold the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The ranks, in pipeline order.
    pub ranks: Range<u64>,
    /// What each of them holds.
    pub holds: Holds,
}

/// The runs of one scenario's pipeline, in rank order ([`Runs::new`]).
#[derive(Clone, Debug)]
pub struct Runs<'a, F> {
    /// Where a rank's layers may change ([`StageMixer::next_change`]).
    mixer: &'a StageMixer<'a>,
    pp: u64,
    schedule: Schedule,
    uniform: bool,
    /// The layers of a rank.
    mix: F,
    /// The first rank of the next run.
    next: u64,
    /// What rank `next` holds, when already looked at.
    pending: Option<Holds>,
}

impl<'a, F: Fn(u64) -> LayerMix> Runs<'a, F> {
    /// The runs of `mixer`'s pipeline, reading a rank's layers from `mix` (the mixer itself, or
    /// the layers an earlier step of the same estimate worked out).
    pub fn new(mixer: &'a StageMixer<'a>, mix: F) -> Runs<'a, F> {
        Runs {
            mixer,
            pp: mixer.pp(),
            schedule: mixer.schedule(),
            uniform: mixer.uniform(),
            mix,
            next: 0,
            pending: None,
        }
    }

    /// The same runs from rank `first` on (the first rank of a run; `pp` for none).
    pub fn starting_at(mut self, first: u64) -> Self {
        self.next = first;
        self
    }

    /// What rank `r` holds.
    #[inline(always)]
    fn holds(&self, r: u64) -> Holds {
        Holds {
            mix: (self.mix)(r),
            embedding: holds_embedding(self.pp, self.schedule, r),
            output: holds_output(self.pp, self.schedule, r),
            near: self.mixer.dualpipe_near(r),
        }
    }

    /// The first rank after `r` that may hold something else than `r`: the next rank after the
    /// ranks that may hold an end of the model (0, `pp − 1`), else where its layers may change
    /// ([`StageMixer::next_change`]) but no further than the last rank.
    #[inline]
    fn next_change(&self, r: u64) -> u64 {
        let last = self.pp - 1;
        if r == 0 || r >= last {
            r + 1
        } else {
            self.mixer.next_change(r).min(last)
        }
    }

    /// The end of the run that starts at `first`, a rank holding no end in a uniform pipeline:
    /// the last rank when it holds an end, else the end of the pipeline.
    fn uniform_end(&self, first: u64) -> u64 {
        let last = self.pp - 1;
        let last_holds_end = holds_embedding(self.pp, self.schedule, last)
            || holds_output(self.pp, self.schedule, last);
        if last_holds_end && last > first {
            last
        } else {
            self.pp
        }
    }
}

impl<F: Fn(u64) -> LayerMix> Iterator for Runs<'_, F> {
    type Item = Run;

    #[inline]
    fn next(&mut self) -> Option<Run> {
        let first = self.next;
        if first >= self.pp {
            return None;
        }
        let holds = self.pending.take().unwrap_or_else(|| self.holds(first));
        let mut end;
        if self.uniform && !holds.embedding && !holds.output {
            end = self.uniform_end(first);
        } else {
            end = self.next_change(first);
            while end < self.pp {
                let h = self.holds(end);
                if h != holds {
                    self.pending = Some(h);
                    break;
                }
                end = self.next_change(end);
            }
        }
        self.next = end;
        Some(Run {
            ranks: first..end,
            holds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::layers::stage_mix;
    use crate::scenario::Scenario;

    fn scen(layers: u64, pp: u64, vp: u64, schedule: &str, moe: bool) -> Scenario {
        let moe = if moe {
            serde_json::json!({"experts": 8, "top_k": 2, "expert_ffn_hidden": 64, "dense_layers": 1})
        } else {
            serde_json::Value::Null
        };
        let mut parallel = serde_json::json!({"tp": 1, "pp": pp, "dp": 1, "vp": vp});
        if !schedule.is_empty() {
            parallel["schedule"] = schedule.into();
        }
        crate::scenario::from_value(&serde_json::json!({
            "model": {"layers": layers, "hidden": 1024, "heads": 8, "vocab": 1000, "seq_len": 128,
                      "ffn_act": "swiglu", "moe": moe},
            "training": {"global_batch": 64, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
            "parallel": parallel,
            "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": pp}
        }))
        .unwrap()
    }

    /// Rank by rank, what the runs say each rank holds.
    fn unrolled(s: &Scenario) -> Vec<Holds> {
        let mixer = StageMixer::new(s);
        let mut out = Vec::new();
        let mut next = 0;
        for run in Runs::new(&mixer, |r| mixer.mix(r)) {
            assert_eq!(run.ranks.start, next, "runs are consecutive");
            assert!(!run.ranks.is_empty());
            next = run.ranks.end;
            out.extend(run.ranks.map(|_| run.holds));
        }
        out
    }

    /// Rank by rank, from the definitions.
    fn each(s: &Scenario) -> Vec<Holds> {
        let (pp, sched) = (s.parallel.pp, s.parallel.schedule());
        (0..pp)
            .map(|r| Holds {
                mix: stage_mix(s, r),
                embedding: holds_embedding(pp, sched, r),
                output: holds_output(pp, sched, r),
                near: StageMixer::new(s).dualpipe_near(r),
            })
            .collect()
    }

    #[test]
    fn an_even_dense_split_is_three_runs() {
        // GPT-3's layout: 96 layers on 16 ranks, 6 each; rank 0 holds the embedding, rank 15
        // the output layer, ranks 1-14 the same.
        let s = scen(96, 16, 1, "", false);
        let mixer = StageMixer::new(&s);
        let runs: Vec<Run> = Runs::new(&mixer, |r| mixer.mix(r)).collect();
        let ranks: Vec<Range<u64>> = runs.iter().map(|r| r.ranks.clone()).collect();
        assert_eq!(ranks, vec![0..1, 1..15, 15..16]);
        assert_eq!(runs[1].holds.mix.dense, 6);
        assert!(runs[0].holds.embedding && !runs[0].holds.output);
        assert!(runs[2].holds.output && !runs[1].holds.embedding && !runs[1].holds.output);
    }

    #[test]
    fn an_every_layer_moe_split_looks_at_few_ranks() {
        // 61 layers (the first dense) on 16 ranks: chunks 2-14 hold 4 layers, 0, 1 and 15
        // hold 3 (the default split's centred extras). Past rank 1 every layer is an MoE layer,
        // so the runs look at ranks 0, 1, 2 and 15 only, and the last rank (the MTP module's
        // and the output layer's) is a run of its own.
        let s = scen(61, 16, 1, "", true);
        let mixer = StageMixer::new(&s);
        let looked = std::cell::Cell::new(0);
        let runs: Vec<Run> = Runs::new(&mixer, |r| {
            looked.set(looked.get() + 1);
            mixer.mix(r)
        })
        .collect();
        let ranks: Vec<Range<u64>> = runs.iter().map(|r| r.ranks.clone()).collect();
        assert_eq!(ranks, vec![0..1, 1..2, 2..15, 15..16]);
        assert_eq!((runs[2].holds.mix.moe, runs[2].holds.mix.dense), (4, 0));
        assert_eq!(looked.get(), 4);
    }

    const CASES: [(u64, u64, u64, &str, bool); 15] = [
        (64, 8, 1, "", true),
        (62, 8, 1, "", true),
        (30, 4, 1, "", true),
        (13, 8, 1, "", true),
        (96, 16, 1, "", false),
        (96, 2, 1, "", false),
        (96, 1, 1, "", false),
        (96, 8, 3, "interleaved", false),
        (64, 8, 2, "zb-v", false),
        (64, 8, 2, "dualpipev", false),
        (64, 8, 1, "dualpipe", false),
        (62, 8, 1, "", false),
        (61, 16, 1, "", true),
        (61, 16, 1, "dualpipe", true),
        (32, 4, 2, "zb-v", true),
    ];

    #[test]
    fn runs_agree_with_every_rank_on_every_schedule() {
        for (l, p, v, sched, moe) in CASES {
            let s = scen(l, p, v, sched, moe);
            assert_eq!(
                unrolled(&s),
                each(&s),
                "{l} layers, pp {p}, vp {v}, {sched}, moe {moe}"
            );
        }
    }

    #[test]
    fn the_time_model_finds_the_same_runs_without_the_memory_estimate() {
        for (l, p, v, sched, moe) in CASES {
            let s = scen(l, p, v, sched, moe);
            let e = crate::engine::estimate(&s).unwrap();
            let gpu = s.gpu().unwrap();
            let plan = crate::engine::plan::Plan::new(&s, &gpu);
            assert_eq!(plan.runs().last().map(|r| r.ranks.end), Some(p));
            let mut alone = e.clone();
            crate::engine::time::fill(
                &plan,
                &crate::engine::MemoryEstimate::default(),
                &mut alone.time,
                &mut alone.flops,
                &mut alone.throughput,
                &mut alone.comm,
            );
            assert_eq!(alone, e, "{l} layers, pp {p}, vp {v}, {sched}, moe {moe}");
        }
    }
}
