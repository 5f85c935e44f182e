//! How layers are split over pipeline stages and their virtual chunks.
//!
//! The pipeline has `S = pp·vp` chunks in model order; chunk `i` lives on stage `i mod pp`
//! (Megatron's interleaved assignment, Narayanan et al. SC21 §2.2.2). A stage's layers are the sum
//! of its `vp` chunks.
//!
//! Default split, without `parallel.layers_per_stage`:
//! 1. `L mod S = 0`: every chunk gets `L/S` layers.
//! 2. else if `(L + 2) mod S = 0`: NeMo/Megatron's `account_for_embedding_in_pipeline_split` and
//!    `account_for_loss_in_pipeline_split` — the embedding and the loss each count as one layer, so
//!    the first and the last chunk get `(L+2)/S − 1` layers and the others `(L+2)/S`.
//! 3. else: every chunk gets `⌊L/S⌋` and the `L mod S` extra layers go to the chunks in the middle
//!    of the pipeline, away from stage 0 (which holds the embedding and the most in-flight
//!    micro-batches) and from the last stage (output layer and loss).
//!
//! With `layers_per_stage` (one entry per stage), stage `r`'s layers are split over its `vp`
//! chunks as evenly as possible, earlier chunks taking the extra layers.
//!
//! Schedules place chunks differently ([`rank_layers`], [`holds_embedding`], [`holds_output`]):
//! the V-shaped ones (`zb-v`, `dualpipev`, `vp = 2`) put chunk `k < pp` on rank `k` and chunk
//! `k ≥ pp` on rank `2·pp − 1 − k`, so rank 0 holds the first and the last chunk (Qi et al. 2024,
//! ZB-V; deepseek-ai/DualPipe README, DualPipeV); DualPipe runs the pipeline in both directions,
//! so rank `r` holds stage `r` of one copy and stage `pp − 1 − r` of the other (DeepSeek-V3
//! technical report §3.2.1: "two copies of the model parameters"), and ranks 0 and `pp − 1`
//! both hold the embedding and the output layer. With `layers_per_stage`, the list gives each
//! rank's layers for V shapes and each stage's (model order) for DualPipe.
//!
//! Everything here is O(1) per query and allocation-free.

use crate::scenario::Schedule;

/// The default split of `layers` over `chunks` chunks (rules 1-3 of the module docs), worked
/// out once: each chunk's layers and first layer are then O(1) without a division.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultSplit {
    chunks: u64,
    /// Rule 2 (embedding and loss counted as layers): the first and last chunk hold one less.
    ends_short: bool,
    /// Layers of every chunk before the extras (rule 2: of the middle chunks).
    base: u64,
    /// Chunks `start..start + extra` hold one more (rule 3).
    start: u64,
    extra: u64,
}

impl DefaultSplit {
    /// The split of `layers` over `pp·vp` chunks.
    pub fn new(layers: u64, pp: u64, vp: u64) -> DefaultSplit {
        let chunks = pp.saturating_mul(vp);
        let mut d = DefaultSplit {
            chunks,
            ends_short: false,
            base: 0,
            start: 0,
            extra: 0,
        };
        if chunks == 0 {
            return d;
        }
        if layers % chunks == 0 {
            d.base = layers / chunks;
        } else if (layers + 2) % chunks == 0 && chunks >= 2 && (layers + 2) / chunks >= 1 {
            d.base = (layers + 2) / chunks;
            d.ends_short = true;
        } else {
            d.base = layers / chunks;
            d.extra = layers % chunks;
            // Centre the extra layers, rounding towards the end so stage 0 is the last to get one.
            d.start = (chunks - d.extra).div_ceil(2);
        }
        d
    }

    /// Layers of chunk `chunk` (0 out of range).
    #[inline]
    pub fn layers(&self, chunk: u64) -> u64 {
        if chunk >= self.chunks {
            return 0;
        }
        if self.ends_short {
            return self.base - u64::from(chunk == 0 || chunk == self.chunks - 1);
        }
        self.base + u64::from(chunk >= self.start && chunk < self.start + self.extra)
    }

    /// The first chunk after `chunk` whose layer count may differ from `chunk`'s (the chunk
    /// count when none does): counts change only at the short ends (rule 2) or where the extra
    /// layers begin and end (rule 3).
    #[inline]
    pub fn next_change(&self, chunk: u64) -> u64 {
        let bounds = if self.ends_short {
            [1, self.chunks.saturating_sub(1)]
        } else {
            [self.start, self.start + self.extra]
        };
        bounds
            .into_iter()
            .filter(|&b| b > chunk)
            .min()
            .unwrap_or(self.chunks)
            .min(self.chunks)
    }

    /// First layer of chunk `chunk`: the layers of all earlier chunks.
    #[inline]
    pub fn start(&self, chunk: u64) -> u64 {
        if self.chunks == 0 || chunk == 0 {
            return 0;
        }
        let chunk = chunk.min(self.chunks);
        if self.ends_short {
            return chunk * self.base - 1;
        }
        chunk * self.base + chunk.saturating_sub(self.start).min(self.extra)
    }
}

/// Layers of chunk `chunk` (0-based, model order, `0..pp·vp`). Returns 0 for out-of-range input.
#[inline]
pub fn chunk_layers(layers: u64, pp: u64, vp: u64, custom: Option<&[u64]>, chunk: u64) -> u64 {
    let chunks = pp.saturating_mul(vp);
    if chunks == 0 || chunk >= chunks {
        return 0;
    }
    if let Some(list) = custom {
        let stage = (chunk % pp) as usize;
        let k = chunk / pp; // which of the stage's vp chunks
        let total = list.get(stage).copied().unwrap_or(0);
        let base = total / vp;
        let rem = total % vp;
        return base + u64::from(k < rem);
    }
    DefaultSplit::new(layers, pp, vp).layers(chunk)
}

/// Index of the first layer of chunk `chunk` (model order): the layers of all earlier chunks.
/// O(1) for the default split, O(pp) with `layers_per_stage`; 0 for out-of-range input.
#[inline]
pub fn chunk_start(layers: u64, pp: u64, vp: u64, custom: Option<&[u64]>, chunk: u64) -> u64 {
    let chunks = pp.saturating_mul(vp);
    if chunks == 0 || chunk == 0 {
        return 0;
    }
    let chunk = chunk.min(chunks);
    if let Some(list) = custom {
        // Earlier rounds `k' < k` take every stage's k'-th chunk, round `k` the stages before.
        let (k, stage) = (chunk / pp, chunk % pp);
        let vp = vp.max(1);
        return (0..pp)
            .map(|r| {
                let total = list.get(r as usize).copied().unwrap_or(0);
                let (base, rem) = (total / vp, total % vp);
                let rounds = k + u64::from(r < stage);
                rounds * base + rounds.min(rem)
            })
            .sum();
    }
    DefaultSplit::new(layers, pp, vp).start(chunk)
}

/// Layers held by pipeline stage `stage` (all its `vp` chunks together).
#[inline]
pub fn stage_layers(layers: u64, pp: u64, vp: u64, custom: Option<&[u64]>, stage: u64) -> u64 {
    if let Some(list) = custom {
        return list.get(stage as usize).copied().unwrap_or(0);
    }
    let split = DefaultSplit::new(layers, pp, vp);
    (0..vp).map(|k| split.layers(stage + k * pp)).sum()
}

/// Layers held by rank `stage` under `schedule` (both copies for DualPipe).
#[inline]
pub fn rank_layers(
    layers: u64,
    pp: u64,
    vp: u64,
    custom: Option<&[u64]>,
    schedule: Schedule,
    stage: u64,
) -> u64 {
    let pp = pp.max(1);
    match schedule {
        Schedule::DualPipe => {
            let mirror = pp - 1 - stage.min(pp - 1);
            let one = stage_layers(layers, pp, 1, custom, stage);
            if mirror == stage {
                one
            } else {
                one + stage_layers(layers, pp, 1, custom, mirror)
            }
        }
        s if s.v_shape() && custom.is_none() => {
            let chunks = 2 * pp;
            chunk_layers(layers, pp, 2, None, stage)
                + chunk_layers(layers, pp, 2, None, chunks - 1 - stage.min(pp - 1))
        }
        _ => stage_layers(layers, pp, vp, custom, stage),
    }
}

/// Whether rank `stage` holds the input embedding under `schedule`.
#[inline]
pub fn holds_embedding(pp: u64, schedule: Schedule, stage: u64) -> bool {
    stage == 0 || (schedule == Schedule::DualPipe && stage + 1 == pp)
}

/// Whether rank `stage` holds the output layer and the loss under `schedule`.
#[inline]
pub fn holds_output(pp: u64, schedule: Schedule, stage: u64) -> bool {
    if schedule.v_shape() {
        stage == 0
    } else {
        stage + 1 == pp.max(1) || (schedule == Schedule::DualPipe && stage == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stages(l: u64, p: u64, v: u64) -> Vec<u64> {
        (0..p).map(|r| stage_layers(l, p, v, None, r)).collect()
    }

    #[test]
    fn even_split() {
        assert_eq!(stages(96, 8, 1), vec![12; 8]);
        assert_eq!(stages(96, 8, 3), vec![12; 8]);
    }

    #[test]
    fn nemo_embedding_and_loss_count_as_layers() {
        // Llama 3.1 405B: 126 layers, pp 8 (126 + 2 = 128 = 8 × 16).
        let s = stages(126, 8, 1);
        assert_eq!(s, vec![15, 16, 16, 16, 16, 16, 16, 15]);
        // Interleaved pp 8 × vp 8 = 64 chunks of 2, first and last chunk 1.
        let s = stages(126, 8, 8);
        assert_eq!(s.iter().sum::<u64>(), 126);
        assert_eq!(s[0], 15);
        assert_eq!(s[7], 15);
    }

    #[test]
    fn remainder_goes_to_the_middle() {
        // 30 layers on 4 stages: 7 each + 2 extra in the middle.
        assert_eq!(stages(30, 4, 1), vec![7, 8, 8, 7]);
        assert_eq!(stages(31, 4, 1), vec![7, 8, 8, 8]);
        for (l, p, v) in [(70, 8, 1), (81, 6, 2), (5, 4, 1), (97, 16, 3)] {
            assert_eq!(stages(l, p, v).iter().sum::<u64>(), l, "{l} {p} {v}");
        }
    }

    #[test]
    fn custom_split() {
        let list = [10, 12, 12, 14];
        assert_eq!(stage_layers(48, 4, 2, Some(&list), 3), 14);
        assert_eq!(chunk_layers(48, 4, 2, Some(&list), 3), 7);
        assert_eq!(chunk_layers(48, 4, 2, Some(&[11, 12, 12, 13]), 0), 6);
        assert_eq!(chunk_layers(48, 4, 2, Some(&[11, 12, 12, 13]), 4), 5);
    }

    /// Layers on each of 8 ranks of a 126-layer model with `vp` chunks under `schedule`.
    fn ranks_126_on_8(vp: u64, schedule: Schedule) -> Vec<u64> {
        (0..8)
            .map(|k| rank_layers(126, 8, vp, None, schedule, k))
            .collect()
    }

    #[test]
    fn v_shape_puts_the_first_and_last_chunk_on_rank_0() {
        // Llama 3.1 405B, 126 layers, pp 8 × 2 chunks: (126 + 2)/16 = 8 per chunk, the first and
        // the last chunk 7; both on rank 0 in a V.
        assert_eq!(
            ranks_126_on_8(2, Schedule::ZbV),
            vec![14, 16, 16, 16, 16, 16, 16, 16]
        );
        assert!(holds_embedding(8, Schedule::ZbV, 0) && holds_output(8, Schedule::ZbV, 0));
        assert!(!holds_output(8, Schedule::DualPipeV, 7));
    }

    #[test]
    fn dualpipe_ranks_hold_two_mirrored_stages() {
        // 126 layers, pp 8: stages 15,16,…,16,15; rank r holds stage r and stage 7 − r.
        assert_eq!(
            ranks_126_on_8(1, Schedule::DualPipe),
            vec![30, 32, 32, 32, 32, 32, 32, 30]
        );
        assert!(
            holds_embedding(8, Schedule::DualPipe, 7) && holds_output(8, Schedule::DualPipe, 0)
        );
        let list = [10, 12, 14, 12];
        assert_eq!(
            rank_layers(48, 4, 1, Some(&list), Schedule::DualPipe, 1),
            26
        );
    }

    #[test]
    fn chunk_start_is_the_running_sum() {
        let custom = [10u64, 12, 12, 14];
        for (l, p, v, c) in [
            (96, 8, 3, None),
            (126, 8, 8, None),
            (30, 4, 1, None),
            (97, 16, 3, None),
            (61, 16, 1, None),
            (48, 4, 2, Some(&custom[..])),
            (48, 4, 3, Some(&custom[..])),
        ] {
            let mut sum = 0;
            for i in 0..p * v {
                assert_eq!(chunk_start(l, p, v, c, i), sum, "{l} {p} {v} chunk {i}");
                sum += chunk_layers(l, p, v, c, i);
            }
            assert_eq!(sum, l);
        }
    }

    #[test]
    fn out_of_range_is_zero() {
        assert_eq!(chunk_layers(10, 0, 1, None, 0), 0);
        assert_eq!(chunk_layers(10, 2, 1, None, 5), 0);
    }
}
