//! The hot path does not allocate: once an `Estimate` has been filled, filling it again for a
//! valid scenario (what the search does hundreds of thousands of times) allocates nothing.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::Ordering;

struct Counting;

thread_local! {
    static COUNT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Allocations made by the current thread (tests run on parallel threads).
struct Allocs;
static ALLOCS: Allocs = Allocs;
impl Allocs {
    fn load(&self, _: Ordering) -> u64 {
        COUNT.with(|c| c.get())
    }
}

fn count() {
    // `try_with`: the thread-local may be gone while a thread shuts down.
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
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

#[test]
fn time_fill_does_not_allocate() {
    let s = paracalc::scenario::parse(include_str!("data/gpt3-175b-1024.json")).unwrap();
    let mut out = paracalc::engine::Estimate::default();
    paracalc::engine::estimate_into(&s, &mut out).unwrap();
    let gpu = s.gpu().unwrap();
    let plan = paracalc::engine::plan::Plan::new(&s, &gpu);
    let memory = out.memory.clone();
    let before = ALLOCS.load(Ordering::Relaxed);
    for _ in 0..100 {
        paracalc::engine::time::fill(
            &plan,
            &memory,
            &mut out.time,
            &mut out.flops,
            &mut out.throughput,
            &mut out.comm,
        );
    }
    assert_eq!(
        ALLOCS.load(Ordering::Relaxed) - before,
        0,
        "time::fill allocated"
    );
}
