//! Where a token's routed copies go: how many of the expert-parallel group's GPUs (or nodes)
//! hold at least one of its `k` experts. DeepEP sends a token once per such GPU and once per
//! such node ([`super::comm::Group::node_forwarded_all_to_all_s`]), so its traffic follows this
//! reach, not the `k` routed copies an NCCL all-to-all moves.
//!
//! Routing is uniform over the experts a token may use: what learned routers give on average
//! and what Megatron-LM's `--moe-router-force-load-balancing` draws (random logits,
//! `moe_utils.py` `apply_random_logits` @d98e8a64). Group-limited routing narrows that set: the
//! experts form `G` equal groups of consecutive experts, a token first picks `L` groups, then
//! its `k` experts inside them (Megatron-Core `moe_utils.py` `group_limited_topk`; DeepSeek-V2's
//! device-limited and DeepSeek-V3's node-limited routing, "each token will be sent to at most
//! M = 4 nodes", DeepSeek-V3 technical report §2.1.2, arXiv 2412.19437). Experts are placed on
//! the expert-parallel ranks in order, `E/H` consecutive experts per holder, so a holder lies
//! inside one group or holds whole groups whenever one count divides the other.
//!
//! A benchmark's round-robin gate is not uniform: NVIDIA-NeMo/Automodel's `FakeBalancedGate`
//! (`nemo_automodel/components/moe/layers.py` @e45812012, with no noise: `indices =
//! arange(n_tokens·k).view(−1, k) % E`) gives token `t` the `k` consecutive experts
//! `t·k … t·k + k − 1 (mod E)`, so a token's copies land on one holder or two
//! ([`Routing::reach`]).

use crate::scenario::{Moe, MoeRouting};

/// A token's routing: `k` experts of `experts`, from `limit` of `groups` groups.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Routing {
    /// Experts per token `k`.
    pub k: f64,
    /// Experts `E`.
    pub experts: f64,
    /// Expert groups `G` (1: no groups).
    pub groups: u64,
    /// Groups a token draws from, `L ≤ G`.
    pub limit: u64,
    /// Token `t` takes the consecutive experts `t·k … t·k + k − 1 (mod E)` (a round-robin
    /// benchmark gate), not a uniform draw; groups do not apply.
    pub round_robin: bool,
}

impl Routing {
    /// `k` of `experts`, uniform over all of them.
    pub fn uniform(k: f64, experts: f64) -> Routing {
        Routing {
            k,
            experts,
            groups: 1,
            limit: 1,
            round_robin: false,
        }
    }

    /// The routing of `moe` with `k` experts per token (the shape's `min(top_k, E)`).
    pub fn of(moe: Option<&Moe>, k: f64, experts: f64) -> Routing {
        match moe {
            Some(m) => Routing {
                k,
                experts,
                groups: m.expert_groups(),
                limit: m.group_limit(),
                round_robin: m.routing() == MoeRouting::RoundRobin,
            },
            None => Routing::uniform(k, experts),
        }
    }

    /// Chance that one of `holders` equal shares of the experts (a node's, or a GPU's, `E/H`
    /// consecutive experts) holds at least one of a token's `k` experts. The expected number of
    /// other holders a token reaches is `(H−1)·reach`.
    /// - Uniform (`L = G`, or groups that do not line up with the holders): `1 − P₀(E, E/H)`,
    ///   with `P₀(M, s) = Π_{i<k} (M − s − i)/(M − i)` the chance that `k` draws without
    ///   replacement from `M` experts all miss the holder's `s`.
    /// - A holder inside one group (`G` divides `H`): its group is among the token's `L` with
    ///   chance `L/G`, then the `k` draws come from the `M = L·E/G` experts of those groups:
    ///   `(L/G)·(1 − P₀(M, E/H))`.
    /// - A holder of `h = G/H` whole groups (`H` divides `G`): `j` of them are picked with the
    ///   hypergeometric chance `C(h, j)·C(G − h, L − j)/C(G, L)`, and then it holds `j·E/G` of the
    ///   `M` experts: `Σ_j P(j)·(1 − P₀(M, j·E/G))`.
    /// - Round robin: [`round_robin_reach`].
    pub fn reach(&self, holders: f64) -> f64 {
        if holders <= 1.0 || self.experts <= 0.0 {
            return 1.0;
        }
        if self.round_robin {
            return round_robin_reach(self.k, self.experts, holders);
        }
        let (g, l) = (self.groups, self.limit.clamp(1, self.groups.max(1)));
        let h = holders as u64;
        let e = self.experts as u64;
        // Published routers draw from at most 8 groups (DeepSeek-V2 3, V3 4); beyond
        // MAX_GROUP_LIMIT the sums below would cost more than an estimate may, and a token that
        // may use that many groups is priced as uniform.
        let grouped = g > 1 && l < g && l <= MAX_GROUP_LIMIT && e % g == 0 && e % h == 0;
        if !grouped {
            return 1.0 - miss(self.k, self.experts, self.experts / holders);
        }
        let per_group = (e / g) as f64;
        let pool = l as f64 * per_group;
        if h % g == 0 {
            l as f64 / g as f64 * (1.0 - miss(self.k, pool, self.experts / holders))
        } else if g % h == 0 {
            let own = g / h;
            let all = ln_choose(g, l);
            (1..=own.min(l))
                .map(|j| {
                    let p_j = (ln_choose(own, j) + ln_choose(g - own, l - j) - all).exp();
                    p_j * (1.0 - miss(self.k, pool, j as f64 * per_group))
                })
                .sum()
        } else {
            1.0 - miss(self.k, self.experts, self.experts / holders)
        }
    }
}

/// Chance that one of `holders` equal shares of `S = E/H` consecutive experts holds one of a
/// token's `k` experts under a round-robin gate, `touched/H`, with `touched` the mean number of
/// shares a window of `k` consecutive experts (mod `E`) covers. Token `t`'s window starts at
/// `t·k mod E`, so over a micro-batch the starts are the multiples of `gcd(k, E)`, evenly; each
/// start's offset inside its share, `s mod S`, is then a multiple of `d = gcd(k, E, S)`, evenly.
/// With `k − 1 = q·S + r` (`0 ≤ r < S`) the window covers `q + 1` shares, one more when the
/// offset is at least `S − r`, which `⌊r/d⌋·d/S` of the starts are:
/// `touched = min(H, q + 1 + ⌊r/d⌋·d/S)`. Every GPU draws its tokens' windows the same way
/// (`t` counts the GPU's own tokens), so a holder's chance is the same from every source.
/// Uneven shares (`H` not dividing `E`) or non-integral counts are priced at the even
/// share's `touched`, rounded as integers.
pub fn round_robin_reach(k: f64, experts: f64, holders: f64) -> f64 {
    let (e, h) = (experts as u64, holders as u64);
    let k = (k as u64).max(1);
    if k >= e || h <= 1 {
        return 1.0;
    }
    let share = (e / h).max(1);
    let d = gcd(gcd(k, e), share);
    let (q, r) = ((k - 1) / share, (k - 1) % share);
    let touched = (q + 1) as f64 + ((r / d) * d) as f64 / share as f64;
    touched.min(holders) / holders
}

/// Greatest common divisor (Euclid).
fn gcd(a: u64, b: u64) -> u64 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Largest group limit priced as group-limited routing ([`Routing::reach`]).
const MAX_GROUP_LIMIT: u64 = 64;

/// Largest product [`miss`] multiplies out term by term.
const MAX_MISS_TERMS: f64 = 4096.0;

/// `P₀(M, s)`: the chance that `k` distinct experts drawn uniformly from `pool` all miss a
/// given `share` of them, `C(M − s, k)/C(M, k) = Π_{i<a} (M − b − i)/(M − i)` with
/// `a = min(k, s)`, `b = max(k, s)` (the same hypergeometric zero either way round); beyond
/// [`MAX_MISS_TERMS`] terms the product is taken at its middle term, `((M − b − a/2)/(M − a/2))^a`.
fn miss(k: f64, pool: f64, share: f64) -> f64 {
    let (a, b) = (k.min(share), k.max(share));
    if a <= 0.0 {
        return 1.0;
    }
    if pool - b < a {
        return 0.0;
    }
    if a > MAX_MISS_TERMS {
        return ((pool - b - a / 2.0) / (pool - a / 2.0)).max(0.0).powf(a);
    }
    let mut p0 = 1.0;
    let mut i = 0.0;
    while i < a && p0 > 0.0 {
        p0 *= ((pool - b - i) / (pool - i)).max(0.0);
        i += 1.0;
    }
    p0
}

/// `ln C(n, r)` (0 for `r = 0`; `−∞` for `r > n`).
fn ln_choose(n: u64, r: u64) -> f64 {
    if r > n {
        return f64::NEG_INFINITY;
    }
    let r = r.min(n - r);
    (0..r)
        .map(|i| ((n - i) as f64).ln() - ((i + 1) as f64).ln())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(top: f64, bottom: f64) -> f64 {
        (0..8)
            .map(|i| (top - i as f64) / (bottom - i as f64))
            .product()
    }

    #[test]
    fn uniform_routing_by_hand() {
        // 256 experts over 8 nodes, top-8: a node misses a token with
        // P0 = (224·223·…·217)/(256·255·…·249) = 0.338, so 7·0.662 = 4.633 other nodes.
        let r = Routing::uniform(8.0, 256.0);
        assert!((product(224.0, 256.0) - 0.338).abs() < 5e-4);
        assert!((7.0 * r.reach(8.0) - 7.0 * (1.0 - product(224.0, 256.0))).abs() < 1e-12);
        assert!((7.0 * r.reach(8.0) - 4.633).abs() < 1e-3);
        // The same experts over 64 GPUs (4 each): a GPU misses a token with
        // P0 = (252·251·…·245)/(256·255·…·249) = 0.88007, so 56·0.11993 = 6.716 of 56 others.
        assert!((product(252.0, 256.0) - 0.88007).abs() < 1e-5);
        assert!((56.0 * r.reach(64.0) - 56.0 * (1.0 - product(252.0, 256.0))).abs() < 1e-12);
        // 128 experts over 8 GPUs (Qwen3-235B-A22B at EP 8), top-8:
        // P0 = (112·111·…·105)/(128·127·…·121) = 0.33258, so 7·0.66742 = 4.672 other GPUs.
        let q = Routing::uniform(8.0, 128.0);
        assert!((product(112.0, 128.0) - 0.33258).abs() < 1e-5);
        assert!((7.0 * q.reach(8.0) - 7.0 * (1.0 - product(112.0, 128.0))).abs() < 1e-12);
        // One holder, or more experts per token than elsewhere: always reached.
        assert_eq!(r.reach(1.0), 1.0);
        assert!((Routing::uniform(8.0, 8.0).reach(8.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn node_limited_routing_reaches_at_most_its_groups() {
        // DeepSeek-V3: 256 experts in 8 groups, top-8 from 4 groups, EP 64 over 8 nodes (one
        // group per node). A node's group is picked with chance 4/8, then the 8 draws come from
        // the 128 experts of the 4 groups and miss its 32 with
        // P0 = (96·95·…·89)/(128·127·…·121) = 0.0927: 0.5·0.9073 = 0.4536, so 7·0.4536 = 3.175
        // other nodes (at most 4 nodes in all, as the report says) instead of 4.633.
        let r = Routing {
            k: 8.0,
            experts: 256.0,
            groups: 8,
            limit: 4,
            round_robin: false,
        };
        let p0 = product(96.0, 128.0);
        assert!((p0 - 0.0927).abs() < 5e-5, "{p0}");
        assert!((r.reach(8.0) - 0.5 * (1.0 - p0)).abs() < 1e-12);
        assert!(
            (7.0 * r.reach(8.0) - 3.175).abs() < 1e-3,
            "{}",
            7.0 * r.reach(8.0)
        );
        // A GPU (4 experts, inside one group): 0.5·(1 − (124·…·117)/(128·…·121)) = 0.1150.
        let gpu = 0.5 * (1.0 - product(124.0, 128.0));
        assert!((r.reach(64.0) - gpu).abs() < 1e-12);
        assert!((r.reach(64.0) - 0.1150).abs() < 5e-5, "{}", r.reach(64.0));
        // Over 4 nodes (two groups each): j = 1 or 2 of a node's groups among the 4 picked,
        // C(2,1)·C(6,3)/C(8,4) = 40/70 and C(2,2)·C(6,2)/C(8,4) = 15/70; then 32 or 64 of 128.
        let want =
            40.0 / 70.0 * (1.0 - product(96.0, 128.0)) + 15.0 / 70.0 * (1.0 - product(64.0, 128.0));
        assert!((r.reach(4.0) - want).abs() < 1e-12, "{}", r.reach(4.0));
    }

    #[test]
    fn no_limit_or_misaligned_groups_are_uniform() {
        let u = Routing::uniform(8.0, 256.0);
        let all = Routing {
            groups: 8,
            limit: 8,
            ..u
        };
        for h in [2.0, 4.0, 8.0, 16.0, 64.0] {
            assert!((all.reach(h) - u.reach(h)).abs() < 1e-12);
        }
        // 12 holders of 256 experts: no even placement to line groups up with.
        let odd = Routing {
            groups: 8,
            limit: 4,
            ..u
        };
        assert!((odd.reach(12.0) - u.reach(12.0)).abs() < 1e-12);
    }

    #[test]
    fn the_product_either_way_round_and_extremes_stay_cheap() {
        // C(M − s, k)/C(M, k) = C(M − k, s)/C(M, s): 128 experts, a GPU's 4, top-8.
        let by_k: f64 = (0..8)
            .map(|i| (124.0 - i as f64) / (128.0 - i as f64))
            .product();
        assert!((miss(8.0, 128.0, 4.0) - by_k).abs() < 1e-12);
        assert!((miss(4.0, 128.0, 8.0) - by_k).abs() < 1e-12);
        assert_eq!(miss(8.0, 10.0, 4.0), 0.0);
        // A million experts in a million groups, half of them allowed, top-k half a million:
        // uniform (limit above MAX_GROUP_LIMIT), finite, in range.
        let r = Routing {
            k: 5e5,
            experts: 1e6,
            groups: 1_000_000,
            limit: 500_000,
            round_robin: false,
        };
        for h in [2.0, 8.0, 1e6] {
            let x = r.reach(h);
            assert!((0.0..=1.0).contains(&x), "{h}: {x}");
        }
        let wide = Routing {
            k: 64.0,
            experts: 1e6,
            groups: 1000,
            limit: 64,
            round_robin: false,
        };
        assert!((0.0..=1.0).contains(&wide.reach(2.0)));
    }

    #[test]
    fn limiting_groups_never_widens_the_reach() {
        for (e, k, g) in [
            (256u64, 8.0, 8u64),
            (160, 6.0, 8),
            (64, 6.0, 8),
            (384, 8.0, 4),
        ] {
            let u = Routing::uniform(k, e as f64);
            for l in 1..=g {
                if k > (l * (e / g)) as f64 {
                    continue;
                }
                let r = Routing {
                    groups: g,
                    limit: l,
                    ..u
                };
                for h in [2u64, 4, 8, 16, 32, 64] {
                    if e % h != 0 {
                        continue;
                    }
                    let (a, b) = (r.reach(h as f64), u.reach(h as f64));
                    assert!(
                        a <= b + 1e-12 && a > 0.0,
                        "E {e} k {k} G {g} L {l} H {h}: {a} > {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn round_robin_gate_by_hand() {
        // Automodel's DeepSeek-V3 benchmark: 256 experts, top-8, EP 64 over 8 nodes. Windows
        // start at multiples of 8; a GPU holds 4 experts (k − 1 = 7 = 1·4 + 3, d = 4): every
        // window covers exactly 2 GPUs; a node holds 32 (7 = 0·32 + 7, d = 8): 1 node.
        let rr = Routing {
            round_robin: true,
            ..Routing::uniform(8.0, 256.0)
        };
        assert!((rr.reach(64.0) - 2.0 / 64.0).abs() < 1e-15);
        assert!((rr.reach(8.0) - 1.0 / 8.0).abs() < 1e-15);
        // Groups do not apply to a fixed gate.
        let grouped = Routing {
            groups: 8,
            limit: 4,
            ..rr
        };
        assert_eq!(grouped.reach(64.0), rr.reach(64.0));
        // gpt-oss: 32 experts, top-4, EP 8 (4 per GPU): windows start at multiples of 4, each
        // exactly one GPU's experts.
        assert!((round_robin_reach(4.0, 32.0, 8.0) - 1.0 / 8.0).abs() < 1e-15);
        // Kimi K2: 384 experts, top-8, EP 32 (12 per GPU): starts at multiples of 8, offsets
        // 0, 4 or 8 in a share (d = gcd(8, 384, 12) = 4); 7 = 0·12 + 7, one more share for the
        // offsets ≥ 5, ⌊7/4⌋·4/12 = 1/3 of them: 4/3 GPUs.
        assert!((round_robin_reach(8.0, 384.0, 32.0) - 4.0 / 3.0 / 32.0).abs() < 1e-15);
        // Brute force over the starts for a few shapes.
        for (k, e, h) in [
            (8u64, 256u64, 64u64),
            (8, 384, 32),
            (6, 160, 8),
            (3, 64, 16),
            (5, 60, 6),
        ] {
            let s = e / h;
            let starts: Vec<u64> = (0..e).map(|t| t * k % e).collect();
            let mean = starts
                .iter()
                .map(|&b| {
                    let mut seen = vec![false; h as usize];
                    (0..k).for_each(|i| seen[(((b + i) % e) / s) as usize] = true);
                    seen.iter().filter(|&&x| x).count() as f64
                })
                .sum::<f64>()
                / starts.len() as f64;
            let got = round_robin_reach(k as f64, e as f64, h as f64) * h as f64;
            assert!(
                (got - mean).abs() < 1e-12,
                "k {k} E {e} H {h}: {got} vs {mean}"
            );
        }
        // As many experts per token as there are: every holder.
        assert_eq!(round_robin_reach(8.0, 8.0, 4.0), 1.0);
    }
}
