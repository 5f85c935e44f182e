//! The WebAssembly build's memory allocator: free lists of power-of-two blocks.
//!
//! The standard library's allocator for `wasm32-unknown-unknown` is dlmalloc (about 8 KB of
//! code, 3.5 KB of the gzipped bundle). The app's allocations are small and short-lived (virtual
//! DOM nodes, strings, the estimate's vectors), so this one is enough:
//!
//! - every request is rounded up to a power of two of at least 8 bytes (its *class*), and at
//!   least its alignment;
//! - a freed block goes on its class's free list (linked through its first word) and is what the
//!   next request of that class gets;
//! - otherwise a block is cut from the top of the heap, aligned to its own size (to a 64 KiB page
//!   at most), so any block of a class meets any alignment a request of that class can ask for;
//!   the bytes skipped to align it go on the free lists of smaller classes;
//! - the heap grows with `memory.grow`; WebAssembly memory never shrinks, so, as with dlmalloc,
//!   nothing is returned.
//!
//! The price is memory, not time: a block is up to twice its request, and freed blocks are not
//! merged (a class's list holds at most its peak number of live blocks).
//!
//! # Why it is sound
//! `GlobalAlloc` asks for blocks that are at least `layout.size()` bytes, aligned to
//! `layout.align()`, and that nothing else uses until they are freed. Here:
//! - *Exclusive memory*: blocks are cut from pages this heap grew itself (`memory.grow` hands out
//!   fresh pages past everything that exists; WebAssembly memory never shrinks) and never below
//!   the last top it knew, so no block overlaps the program's data, stack or another block. If
//!   someone else grew memory in between, the rest of the old top is skipped, not reused.
//! - *One owner*: a block is either handed out (one owner, until `dealloc`) or on exactly one
//!   free list; `dealloc` and `realloc` receive the layout the block was allocated with, so the
//!   block goes back to the class it came from.
//! - *Size and alignment*: a block of class k is `2^k ≥ max(size, align)` bytes and starts at a
//!   multiple of `min(2^k, PAGE)` (cut aligned, or a skipped piece aligned to its own size), so
//!   it meets every alignment up to a page. Larger alignments are refused (null), which
//!   `GlobalAlloc` allows; Rust's collections never ask for them.
//! - *No overflow*: address arithmetic near the top of the 4 GiB address space is checked; a
//!   request that would wrap gets null, never a block below the top.
//! - *One thread*: `wasm32-unknown-unknown` without the atomics feature has no threads, and
//!   nothing the allocator calls allocates, so `&mut` to the lists is never aliased.
//! - Zero-size layouts are the caller's to avoid (`GlobalAlloc::alloc`'s contract); they would
//!   get an 8-byte block anyway.
//!
//! The address arithmetic is generic over where pages come from ([`Pages`]), so native tests
//! (`tests` below) run the same code on a fake memory; the browser tests (`tests/web.rs`) run
//! it as the global allocator.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// A WebAssembly page, the unit `memory.grow` counts in.
const PAGE: usize = 65536;

/// Where the heap's pages come from: `memory.grow` in the browser, a fake memory in tests.
pub trait Pages {
    /// Grows memory by `pages` pages; the number of pages before, or `usize::MAX` when refused
    /// (`memory.grow`'s contract).
    fn grow(&mut self, pages: usize) -> usize;
}

/// WebAssembly's own linear memory (its pages only exist in the browser build).
pub struct Wasm;

#[cfg(target_arch = "wasm32")]
impl Pages for Wasm {
    fn grow(&mut self, pages: usize) -> usize {
        core::arch::wasm32::memory_grow(0, pages)
    }
}

/// Heads of the free lists (0: empty) and the part of the heap not yet cut into blocks.
struct Lists<M> {
    /// Where new pages come from.
    memory: M,
    /// `free[k]`: the address of a free block of `1 << k` bytes, or 0.
    free: [usize; usize::BITS as usize],
    /// First byte not yet handed out.
    next: usize,
    /// End of the memory this allocator grew (0 before its first request).
    end: usize,
}

/// The allocator (see the module docs) over the pages of `M`.
pub struct PowerOfTwoHeap<M = Wasm>(UnsafeCell<Lists<M>>);

// SAFETY: `wasm32-unknown-unknown` without the atomics feature runs one thread, so the lists
// are never touched by two threads.
#[cfg(target_arch = "wasm32")]
unsafe impl Sync for PowerOfTwoHeap<Wasm> {}

impl<M> PowerOfTwoHeap<M> {
    /// An empty heap taking its pages from `memory`.
    pub const fn over(memory: M) -> Self {
        PowerOfTwoHeap(UnsafeCell::new(Lists {
            memory,
            free: [0; usize::BITS as usize],
            next: 0,
            end: 0,
        }))
    }
}

#[cfg(target_arch = "wasm32")]
impl PowerOfTwoHeap<Wasm> {
    /// An empty heap over WebAssembly's memory.
    pub const fn new() -> Self {
        Self::over(Wasm)
    }
}

#[cfg(target_arch = "wasm32")]
impl Default for PowerOfTwoHeap<Wasm> {
    fn default() -> Self {
        Self::new()
    }
}

/// The class of `layout`: `log2` of its block size.
fn class(layout: Layout) -> usize {
    let size = layout.size().max(layout.align()).max(8);
    size.next_power_of_two().trailing_zeros() as usize
}

impl<M: Pages> Lists<M> {
    /// Puts the block at `at` of class `k` on its free list.
    ///
    /// # Safety
    /// `at` is 8-aligned and owns `1 << k` bytes (k ≥ 3) that nothing else uses.
    unsafe fn push(&mut self, at: usize, k: usize) {
        // SAFETY: the caller hands over the block, big enough and aligned for one `usize`.
        unsafe { (at as *mut usize).write(self.free[k]) };
        self.free[k] = at;
    }

    /// A new block of class `k` from the top of the heap, growing memory when needed; null
    /// when memory cannot grow or the block would pass the end of the address space.
    fn cut(&mut self, k: usize) -> *mut u8 {
        let size = 1usize << k;
        let align = size.min(PAGE);
        let Some(mut start) = self.next.checked_add(align - 1).map(|a| a & !(align - 1)) else {
            return ptr::null_mut();
        };
        if start.checked_add(size).is_none_or(|top| top > self.end) {
            let want = start.saturating_add(size).saturating_sub(self.end).max(1);
            let pages = want.div_ceil(PAGE);
            let before = self.memory.grow(pages);
            if before == usize::MAX {
                return ptr::null_mut();
            }
            if before * PAGE != self.end {
                // First use, or memory grown by someone else: start after what exists (a page
                // boundary, so aligned for every class).
                self.next = before * PAGE;
                start = self.next;
            }
            // 4 GiB of pages ends one past the last address: keep `end` representable.
            self.end = (before + pages).saturating_mul(PAGE);
            if start.checked_add(size).is_none_or(|top| top > self.end) {
                // A fresh start needed more than the pages asked for: ask again.
                return self.cut(k);
            }
        }
        // The skipped bytes become smaller free blocks, each aligned to its size.
        while self.next < start {
            let fit = (start - self.next).ilog2();
            let k = (self.next.trailing_zeros()).min(fit) as usize;
            // SAFETY: [next, next + 2^k) lies below `start`, inside memory this heap grew, and
            // was never handed out; `next` is 8-aligned, so k ≥ 3.
            unsafe { self.push(self.next, k) };
            self.next += 1 << k;
        }
        self.next = start + size;
        start as *mut u8
    }
}

// SAFETY: see "Why it is sound" in the module docs.
unsafe impl<M: Pages> GlobalAlloc for PowerOfTwoHeap<M> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() > PAGE {
            // Blocks are aligned to a page at most.
            return ptr::null_mut();
        }
        // SAFETY: one thread (see `Sync`; the native tests use one heap per test), and no
        // call below re-enters the allocator.
        let lists = unsafe { &mut *self.0.get() };
        let k = class(layout);
        match lists.free[k] {
            0 => lists.cut(k),
            head => {
                // SAFETY: `head` is a free block of class k; its first word links the next one.
                lists.free[k] = unsafe { (head as *const usize).read() };
                head as *mut u8
            }
        }
    }

    unsafe fn dealloc(&self, at: *mut u8, layout: Layout) {
        // SAFETY: as in `alloc`; `at` was handed out for `layout`, so it is a block of its class.
        unsafe { (*self.0.get()).push(at as usize, class(layout)) };
    }

    unsafe fn realloc(&self, at: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller passes a valid alignment with a size that does not overflow.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if class(new) == class(layout) {
            return at;
        }
        // SAFETY: as `GlobalAlloc::realloc`'s default: a new block, the bytes both have, the old
        // block freed.
        unsafe {
            let moved = self.alloc(new);
            if !moved.is_null() {
                ptr::copy_nonoverlapping(at, moved, layout.size().min(new_size));
                self.dealloc(at, layout);
            }
            moved
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake memory: `pages` real pages, page-aligned, handed out from page `first` on;
    /// `foreign` pages are taken by "someone else" before each grow.
    struct Fake {
        first: usize,
        used: usize,
        pages: usize,
        foreign: usize,
    }

    impl Pages for Fake {
        fn grow(&mut self, pages: usize) -> usize {
            self.used += self.foreign;
            if self.used + pages > self.pages {
                return usize::MAX;
            }
            self.used += pages;
            self.first + self.used - pages
        }
    }

    /// A heap over `pages` fresh real pages (leaked: the blocks may outlive the heap).
    fn heap(pages: usize, foreign: usize) -> PowerOfTwoHeap<Fake> {
        let region = Layout::from_size_align(pages * PAGE, PAGE).unwrap();
        // SAFETY: a non-zero size.
        let base = unsafe { std::alloc::alloc(region) } as usize;
        assert!(base != 0);
        PowerOfTwoHeap::over(Fake {
            first: base / PAGE,
            used: 0,
            pages,
            foreign,
        })
    }

    /// Random requests of every size class up to 70 KB and alignment up to a page, freed and
    /// grown at random: every block is aligned, lies inside the fake memory, overlaps no live
    /// block and keeps its bytes; a freed block is reused for the next request of its class.
    #[test]
    fn blocks_are_aligned_disjoint_and_keep_their_bytes() {
        for foreign in [0, 1] {
            let h = heap(1024, foreign);
            let (lo, hi) = (h_first(&h), h_first(&h) + 1024 * PAGE);
            let mut live: Vec<(usize, Layout, u8)> = Vec::new();
            let mut x: u32 = 0x9e37_79b9;
            for i in 0..1500u32 {
                crate::xorshift::next_u32(&mut x);
                let size = 1 + (x % [16, 300, 5000, 70_000][(i % 4) as usize]) as usize;
                let align = 1 << ((x >> 27) % 17); // 1 B to 64 KiB
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: non-zero sizes; every block is written within its size and freed or
                // grown once with the layout it has.
                unsafe {
                    let p = h.alloc(layout);
                    assert!(!p.is_null(), "{layout:?}");
                    let a = p as usize;
                    assert_eq!(a % align, 0, "{layout:?}");
                    assert!(a >= lo && a + size <= hi);
                    for &(q, l, _) in &live {
                        assert!(a + size <= q || q + l.size() <= a, "overlap");
                    }
                    p.write_bytes(i as u8, size);
                    live.push((a, layout, i as u8));
                    match x % 5 {
                        0 | 1 => {
                            let (q, l, v) = live.swap_remove((x as usize / 5) % live.len());
                            let bytes = std::slice::from_raw_parts(q as *const u8, l.size());
                            assert!(bytes.iter().all(|&b| b == v));
                            h.dealloc(q as *mut u8, l);
                            let again = h.alloc(l);
                            assert_eq!(again as usize, q, "a freed block serves its class first");
                            h.dealloc(again, l);
                        }
                        2 => {
                            let j = (x as usize / 5) % live.len();
                            let (q, l, v) = live[j];
                            let new_size = 1 + (x as usize >> 7) % 20_000;
                            let r = h.realloc(q as *mut u8, l, new_size);
                            assert!(!r.is_null() && r as usize % l.align() == 0);
                            let kept = l.size().min(new_size);
                            assert!(std::slice::from_raw_parts(r, kept).iter().all(|&b| b == v));
                            r.write_bytes(v, new_size);
                            live[j] = (
                                r as usize,
                                Layout::from_size_align(new_size, l.align()).unwrap(),
                                v,
                            );
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// The first page the fake memory hands out.
    fn h_first(h: &PowerOfTwoHeap<Fake>) -> usize {
        // SAFETY: no allocation is in progress.
        unsafe { (*h.0.get()).memory.first * PAGE }
    }

    /// Alignments above a page and exhausted memory give null (never a panic or a block
    /// outside the memory); a page-aligned request is met.
    #[test]
    fn refusals_are_null() {
        let h = heap(4, 0);
        // SAFETY: non-zero sizes; nothing is written.
        unsafe {
            let big = Layout::from_size_align(8, 2 * PAGE).unwrap();
            assert!(h.alloc(big).is_null());
            let page = Layout::from_size_align(8, PAGE).unwrap();
            let p = h.alloc(page);
            assert!(!p.is_null() && p as usize % PAGE == 0);
            let too_much = Layout::from_size_align(4 * PAGE, 8).unwrap();
            assert!(h.alloc(too_much).is_null());
            let rest = Layout::from_size_align(2 * PAGE, 8).unwrap();
            assert!(
                !h.alloc(rest).is_null(),
                "the pages that remain still serve"
            );
        }
    }

    /// At the top of the address space (here 2^64, as 2^32 is in the browser) a request whose
    /// aligned start would wrap around gets null, not a block at address 0.
    #[test]
    fn no_wrap_at_the_top_of_memory() {
        let last = usize::MAX / PAGE; // the last page; its end, 2^64, is not representable
        let h = PowerOfTwoHeap::over(Fake {
            first: last,
            used: 0,
            pages: 1,
            foreign: 0,
        });
        // SAFETY: the returned addresses are compared, never dereferenced (no block is freed
        // and page-aligned starts skip no bytes, so nothing is written to the fake pages).
        unsafe {
            let p = h.alloc(Layout::from_size_align(8, 8).unwrap());
            assert_eq!(p as usize, last * PAGE);
            assert!(h
                .alloc(Layout::from_size_align(2 * PAGE, 8).unwrap())
                .is_null());
            assert!(h
                .alloc(Layout::from_size_align(PAGE, PAGE).unwrap())
                .is_null());
        }
    }
}
