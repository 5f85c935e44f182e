//! Which published runs are like a plan: the parallel [`Style`], the similarity sets
//! ([`Basis`], most alike first) a band relaxes through, and the fewest runs ([`MIN_RUNS`]) a
//! set must hold before it is relaxed. The in-sample band ([`super::band`]) and the
//! out-of-sample one ([`super::interval`]) pick their runs with the same sets.

use crate::engine::time::compute::Generation;
use crate::scenario::{Framework, Scenario};

/// Fewest runs a band is computed from before the similarity is relaxed.
pub const MIN_RUNS: usize = 5;

/// The parallel style of a plan, as far as errors are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// ZeRO-3 / FSDP sharding.
    Fsdp,
    /// Pipeline parallel (with or without TP).
    Pipeline,
    /// Tensor (or context) parallel without a pipeline.
    Tensor,
    /// Data parallel only (ZeRO 0-2).
    Data,
}

impl Style {
    /// The style of `s`, and whether it is a mixture of experts.
    pub fn of(s: &Scenario) -> (Style, bool) {
        let p = &s.parallel;
        let style = if p.zero_stage >= 3 {
            Style::Fsdp
        } else if p.pp > 1 {
            Style::Pipeline
        } else if p.tp > 1 || p.cp > 1 {
            Style::Tensor
        } else {
            Style::Data
        };
        (style, s.model.moe.is_some())
    }
}

fn generation(s: &Scenario) -> Option<Generation> {
    s.gpu().map(|g| Generation::of(&g))
}

fn framework(s: &Scenario) -> Framework {
    s.training.framework()
}

/// Context-length class of a plan: up to 8K tokens, up to 32K, longer. Errors grow with the
/// sequence (attention kernels, context parallelism), so a long-context plan's band comes from
/// long-context runs where there are enough of them.
fn length_class(s: &Scenario) -> u8 {
    match s.model.seq_len {
        0..=8192 => 0,
        8193..=32768 => 1,
        _ => 2,
    }
}

/// How alike the runs behind a band are to the plan, most alike first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Same GPU generation, framework, parallel style and context-length class.
    SimilarLength,
    /// Same GPU generation, framework and parallel style.
    Similar,
    /// Same GPU generation and framework.
    SameStack,
    /// Same GPU generation.
    SameGeneration,
    /// Every published run.
    All,
}

impl Basis {
    /// Every basis, the most alike first: the order a band relaxes its similarity in.
    pub const MOST_ALIKE_FIRST: [Basis; 5] = [
        Basis::SimilarLength,
        Basis::Similar,
        Basis::SameStack,
        Basis::SameGeneration,
        Basis::All,
    ];

    /// Words for the band text ("31 similar published runs").
    pub fn words(self) -> &'static str {
        match self {
            Basis::SimilarLength => "similar published runs at this context length",
            Basis::Similar => "similar published runs",
            Basis::SameStack => "published runs, same GPU generation and framework",
            Basis::SameGeneration => "published runs on the same GPU generation",
            Basis::All => "published runs",
        }
    }

    pub(crate) fn admits(self, s: &Scenario, c: &Scenario) -> bool {
        let gen = || generation(s) == generation(c);
        let fw = || framework(s) == framework(c);
        match self {
            Basis::SimilarLength => {
                Basis::Similar.admits(s, c) && length_class(s) == length_class(c)
            }
            Basis::Similar => gen() && fw() && Style::of(s) == Style::of(c),
            Basis::SameStack => gen() && fw(),
            Basis::SameGeneration => gen(),
            Basis::All => true,
        }
    }
}
