//! A set of names from a fixed list, kept as the bits of one byte: Megatron-LM's recomputed
//! modules ([`super::RecomputeModules`]) and JAX's saved checkpoint names
//! ([`super::RematSaved`]) are both one.

use std::marker::PhantomData;

/// The fixed list of names a [`NameSet`] draws from: bit `i` of a set is `IDS[i]` (at most 8).
pub trait Names: Copy {
    /// The names, in bit order (the field's choices, the order of the canonical text).
    const IDS: &'static [&'static str];
    /// How an empty set reads in [`NameSet::list`].
    const NONE: &'static str;
}

/// A set of names from `N::IDS`, one bit each. `Copy`, compared and hashed by its bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NameSet<N>(u8, PhantomData<N>);

impl<N: Names> NameSet<N> {
    /// The names, bit `i` of the set being `IDS[i]`.
    pub const IDS: &'static [&'static str] = N::IDS;

    /// The set of the one name `IDS[i]`.
    pub const fn bit(i: u32) -> Self {
        NameSet(1 << i, PhantomData)
    }

    /// The set of bits `bits` (bit `i` is `IDS[i]`; bits past the list dropped).
    pub fn from_bits(bits: u8) -> Self {
        NameSet(bits & set_mask(N::IDS), PhantomData)
    }

    /// The bits of the set.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// Whether every name of `other` is in the set (and `other` is not empty).
    pub fn has(self, other: Self) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    /// The set with `other` added.
    pub const fn with(self, other: Self) -> Self {
        NameSet(self.0 | other.0, PhantomData)
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The names in the set, in `IDS` order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        set_names(self.0, N::IDS)
    }

    /// The names, comma-separated ("mla_up_proj, layernorm"; `N::NONE` when empty).
    pub fn list(self) -> String {
        if self.is_empty() {
            N::NONE.to_string()
        } else {
            self.names().collect::<Vec<_>>().join(", ")
        }
    }
}

/// The bits a set over the names `all` can hold (one per name, at most 8).
pub const fn set_mask(all: &[&str]) -> u8 {
    ((1u16 << if all.len() < 8 { all.len() } else { 8 }) - 1) as u8
}

/// The ids of `all` whose bits are set in `bits`, in `all`'s order.
pub fn set_names(bits: u8, all: &'static [&'static str]) -> impl Iterator<Item = &'static str> {
    all.iter()
        .enumerate()
        .filter(move |(i, _)| *i < 8 && bits & (1 << i) != 0)
        .map(|(_, x)| *x)
}
