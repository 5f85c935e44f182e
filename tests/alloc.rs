//! The hot path does not allocate: once an `Estimate` has been filled, filling it again for a
//! valid scenario (what the search does hundreds of thousands of times) allocates nothing.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn estimate_into_does_not_allocate_when_warm() {
    let s = paracalc::scenario::parse(include_str!("data/gpt3-175b-1024.json")).unwrap();
    let mut est = paracalc::engine::Estimate::default();
    paracalc::engine::estimate_into(&s, &mut est).unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    for _ in 0..100 {
        paracalc::engine::estimate_into(&s, &mut est).unwrap();
    }
    let after = ALLOCS.load(Ordering::Relaxed);
    assert_eq!(
        after - before,
        0,
        "estimate_into allocated {} times in 100 calls",
        after - before
    );
}
