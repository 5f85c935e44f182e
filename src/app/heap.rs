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
//! merged (a class's list holds at most its peak number of live blocks). The browser tests run on
//! this allocator.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// A WebAssembly page, the unit `memory.grow` counts in.
const PAGE: usize = 65536;

/// Heads of the free lists (0: empty) and the part of the heap not yet cut into blocks.
struct Lists {
    /// `free[k]`: the address of a free block of `1 << k` bytes, or 0.
    free: [usize; usize::BITS as usize],
    /// First byte not yet handed out.
    next: usize,
    /// End of the memory this allocator grew (0 before its first request).
    end: usize,
}

/// The allocator (see the module docs).
pub struct PowerOfTwoHeap(UnsafeCell<Lists>);

// SAFETY: `wasm32-unknown-unknown` without the atomics feature runs one thread, so the lists
// are never touched by two threads.
unsafe impl Sync for PowerOfTwoHeap {}

impl PowerOfTwoHeap {
    /// An empty heap.
    pub const fn new() -> Self {
        PowerOfTwoHeap(UnsafeCell::new(Lists {
            free: [0; usize::BITS as usize],
            next: 0,
            end: 0,
        }))
    }
}

impl Default for PowerOfTwoHeap {
    fn default() -> Self {
        Self::new()
    }
}

/// The class of `layout`: `log2` of its block size.
fn class(layout: Layout) -> usize {
    let size = layout.size().max(layout.align()).max(8);
    size.next_power_of_two().trailing_zeros() as usize
}

impl Lists {
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
    /// when the browser gives no more memory.
    fn cut(&mut self, k: usize) -> *mut u8 {
        let size = 1usize << k;
        let align = size.min(PAGE);
        let mut start = (self.next + align - 1) & !(align - 1);
        if start.checked_add(size).is_none_or(|top| top > self.end) {
            let want = start.saturating_add(size).saturating_sub(self.end).max(1);
            let pages = want.div_ceil(PAGE);
            let before = core::arch::wasm32::memory_grow(0, pages);
            if before == usize::MAX {
                return ptr::null_mut();
            }
            if before * PAGE != self.end {
                // First use, or memory grown by someone else: start after what exists.
                self.next = before * PAGE;
                start = (self.next + align - 1) & !(align - 1);
            }
            self.end = (before + pages) * PAGE;
            if start + size > self.end {
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

// SAFETY: blocks come from memory only this heap hands out (grown by it, never shrunk); a
// block is on at most one free list or with at most one owner; it is at least `layout.size()`
// bytes and aligned to its class's size (or a page), hence to `layout.align()`.
unsafe impl GlobalAlloc for PowerOfTwoHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: one thread (see `Sync`), and no call below re-enters the allocator.
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
