//! Runs the best-layout search in the page without freezing it: the incremental
//! [`Searcher`] evaluates candidates for about [`SLICE_MS`] at a time, then yields to the event
//! loop (a 0 ms timeout) so the page can paint and take input; progress is published after each
//! slice. A change of model, training setup or cluster restarts the search; a change of the
//! layout alone (which the search varies anyway) does not.

use std::cell::Cell;
use std::rc::Rc;

use yew::prelude::*;

use crate::engine::search::{Layout, SearchReport, SearchSpace, Searcher};
use crate::scenario::{Recompute, Scenario};

/// Work per slice before yielding, ms (well under a 16 ms frame with the render that follows).
pub const SLICE_MS: f64 = 12.0;
/// Fastest fitting layouts kept: the table shows [`SHOWN`] of them, those like published runs
/// first, so it keeps more than it shows.
pub const KEPT: usize = 40;
/// Rows of the best-layouts table.
pub const SHOWN: usize = 10;
/// Candidates evaluated between clock reads.
const CHUNK: u64 = 256;

/// Where the search is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStatus {
    /// Candidates evaluated so far.
    pub done: u64,
    /// Candidates to evaluate in all.
    pub total: u64,
    /// A search is under way.
    pub running: bool,
    /// The last search was cancelled before the end.
    pub cancelled: bool,
    /// The finished search's report.
    pub report: Option<Rc<SearchReport>>,
    /// Wall time from start to the end (or to now), ms.
    pub elapsed_ms: f64,
    /// Slices run (each one followed by a yield to the event loop).
    pub slices: u32,
}

impl SearchStatus {
    /// Fraction done, 0..=1.
    pub fn fraction(&self) -> f64 {
        if self.total == 0 {
            if self.report.is_some() {
                1.0
            } else {
                0.0
            }
        } else {
            (self.done as f64 / self.total as f64).clamp(0.0, 1.0)
        }
    }
}

/// What [`use_search`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct UseSearchHandle {
    /// Progress and result.
    pub status: Rc<SearchStatus>,
    /// Stops the running search (the partial work is dropped).
    pub cancel: Callback<()>,
    /// Runs the search again from the start.
    pub restart: Callback<()>,
}

/// The part of a scenario the search depends on: everything but the layout it varies
/// (so `search_key(a) == search_key(b)` when `a` and `b` differ only in layout).
pub fn search_key(s: &Scenario) -> Scenario {
    let mut k = s.clone();
    Layout {
        tp: 1,
        pp: 1,
        dp: 1,
        cp: 1,
        ep: 1,
        etp: 1,
        vp: 1,
        micro_batch: 1,
        recompute: Recompute::None,
        zero_stage: 0,
        sp: false,
        schedule: None,
        first_last: None,
    }
    .apply(&mut k);
    k
}

/// Searches the layouts of `scenario`'s model, training setup and cluster while `enabled`,
/// in slices (see the module docs).
///
/// ```text
/// let search = use_search(scenario.clone(), visible);
/// html! { <progress value={search.status.done.to_string()} max={search.status.total.to_string()} /> }
/// ```
#[hook]
pub fn use_search(scenario: Rc<Scenario>, enabled: bool) -> UseSearchHandle {
    let status = use_state(SearchStatus::default);
    let generation = use_state_eq(|| 0u32);
    // The job in flight (its flag turns false to stop it) and the key of the last finished one.
    let alive = use_mut_ref(|| Rc::new(Cell::new(false)));
    let finished = use_mut_ref(|| None::<(Scenario, u32)>);
    let key = use_memo(scenario, |s| search_key(s));

    {
        let (status, alive, finished) = (status.clone(), alive.clone(), finished.clone());
        use_effect_with(
            (key.clone(), enabled, *generation),
            move |(key, enabled, generation)| {
                let stop = {
                    let alive = alive.clone();
                    move || alive.borrow().set(false)
                };
                let already = finished
                    .borrow()
                    .as_ref()
                    .is_some_and(|(k, g)| k == &**key && g == generation);
                if *enabled && !already {
                    alive.borrow().set(false);
                    let flag = Rc::new(Cell::new(true));
                    *alive.borrow_mut() = flag.clone();
                    start(
                        (**key).clone(),
                        *generation,
                        flag,
                        status.setter(),
                        finished.clone(),
                    );
                } else if !*enabled {
                    // Hidden: stop, and start over when shown again.
                    if alive.borrow().get() {
                        alive.borrow().set(false);
                        let mut s = (*status).clone();
                        s.running = false;
                        status.set(s);
                    }
                }
                stop
            },
        );
    }

    let cancel = {
        let (status, alive) = (status.clone(), alive.clone());
        Callback::from(move |()| {
            if alive.borrow().get() {
                alive.borrow().set(false);
                let mut s = (*status).clone();
                s.running = false;
                s.cancelled = true;
                status.set(s);
            }
        })
    };
    let restart = {
        let (generation, finished) = (generation.clone(), finished.clone());
        Callback::from(move |()| {
            *finished.borrow_mut() = None;
            generation.set(generation.wrapping_add(1));
        })
    };
    UseSearchHandle {
        status: Rc::new((*status).clone()),
        cancel,
        restart,
    }
}

/// Milliseconds from a monotonic clock (`performance.now()`; 0 where there is none).
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Resolves after one turn of the event loop: the browser paints and runs input handlers first.
/// A message to a fresh `MessageChannel` port is a task of its own without the 4 ms floor that
/// browsers put on nested zero-delay timeouts (HTML, timers: nesting level ≥ 5), which cost the
/// sliced search ~4 ms per slice; a 0 ms timeout where there is no `MessageChannel`.
async fn yield_to_event_loop() {
    // Held until the message arrives, so the ports outlive the round trip.
    let channel = web_sys::MessageChannel::new().ok();
    let promise = js_sys::Promise::new(&mut |resolve, _reject| match &channel {
        Some(ch) => {
            ch.port1().set_onmessage(Some(&resolve));
            if ch
                .port2()
                .post_message(&wasm_bindgen::JsValue::NULL)
                .is_err()
            {
                let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
            }
        }
        None => {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
            }
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Spawns the sliced search of `key`.
fn start(
    key: Scenario,
    generation: u32,
    alive: Rc<Cell<bool>>,
    set: UseStateSetter<SearchStatus>,
    finished: Rc<std::cell::RefCell<Option<(Scenario, u32)>>>,
) {
    wasm_bindgen_futures::spawn_local(async move {
        let t0 = now_ms();
        let space = SearchSpace {
            top: KEPT,
            ..SearchSpace::default()
        };
        let mut searcher = Searcher::new(&key, &space);
        let mut st = SearchStatus {
            total: searcher.total(),
            running: true,
            ..SearchStatus::default()
        };
        set.set(st.clone());
        loop {
            // Yield first: the page paints the progress and handles input between slices.
            yield_to_event_loop().await;
            if !alive.get() {
                return;
            }
            let slice_start = now_ms();
            let mut complete = false;
            while now_ms() - slice_start < SLICE_MS {
                if searcher.step(CHUNK) {
                    complete = true;
                    break;
                }
            }
            st.slices += 1;
            st.done = searcher.done();
            if complete {
                st.report = Some(Rc::new(searcher.report()));
                st.running = false;
                st.done = st.total.max(st.done);
                st.elapsed_ms = now_ms() - t0;
                alive.set(false);
                *finished.borrow_mut() = Some((key, generation));
                set.set(st);
                return;
            }
            st.elapsed_ms = now_ms() - t0;
            set.set(st.clone());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ignores_the_layout_but_not_the_model() {
        let s = crate::scenario::parse(include_str!("../../../tests/data/gpt3-175b-1024.json"))
            .expect("bench scenario parses");
        let mut other = s.clone();
        other.parallel.tp = 4;
        other.parallel.dp = 16;
        other.training.micro_batch = 2;
        assert_eq!(search_key(&s), search_key(&other));
        other.model.layers = 48;
        assert_ne!(search_key(&s), search_key(&other));
        other = s.clone();
        other.cluster.num_gpus = 512;
        assert_ne!(search_key(&s), search_key(&other));
    }

    #[test]
    fn fraction_is_bounded() {
        let mut st = SearchStatus {
            done: 50,
            total: 200,
            ..SearchStatus::default()
        };
        assert_eq!(st.fraction(), 0.25);
        st.done = 300;
        assert_eq!(st.fraction(), 1.0);
        st.total = 0;
        assert_eq!(st.fraction(), 0.0);
    }
}
