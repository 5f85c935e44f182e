//! A data file next to index.html, fetched once per page when a component first needs it and
//! shared by every component that asks: the published runs ([`use_evidence`]) and the presets'
//! sources ([`use_sources`]). Data that the first screen does not show stays out of the bundle.

use std::cell::RefCell;
use std::rc::Rc;
use std::thread::LocalKey;

use yew::prelude::*;

use crate::evidence::{self, Case};
use crate::sources::{self, Sources};

/// Loading state of a fetched file.
#[derive(Debug)]
pub enum Fetched<T> {
    /// Not asked for yet.
    Idle,
    /// Being fetched.
    Loading,
    /// The file, read.
    Ready(Rc<T>),
    /// Why it could not be loaded.
    Failed(String),
}

// By hand: the derives would ask `T: Clone + PartialEq`, and `Rc<T>` needs neither.
impl<T> Clone for Fetched<T> {
    fn clone(&self) -> Self {
        match self {
            Fetched::Idle => Fetched::Idle,
            Fetched::Loading => Fetched::Loading,
            Fetched::Ready(x) => Fetched::Ready(x.clone()),
            Fetched::Failed(e) => Fetched::Failed(e.clone()),
        }
    }
}

impl<T> PartialEq for Fetched<T> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Fetched::Idle, Fetched::Idle) | (Fetched::Loading, Fetched::Loading) => true,
            (Fetched::Ready(a), Fetched::Ready(b)) => Rc::ptr_eq(a, b),
            (Fetched::Failed(a), Fetched::Failed(b)) => a == b,
            _ => false,
        }
    }
}

impl<T> Fetched<T> {
    /// The file's content, once loaded.
    pub fn ready(&self) -> Option<Rc<T>> {
        match self {
            Fetched::Ready(x) => Some(x.clone()),
            _ => None,
        }
    }
}

/// One file's page-wide state, and the components waiting for it.
pub struct Slot<T> {
    now: Fetched<T>,
    waiting: Vec<Callback<Fetched<T>>>,
}

impl<T> Slot<T> {
    /// Not asked for yet, nobody waiting.
    pub const fn empty() -> Self {
        Slot {
            now: Fetched::Idle,
            waiting: Vec::new(),
        }
    }
}

/// A file next to index.html: its relative URL (works under any sub-path), how its text is
/// read, and its page-wide slot.
pub struct DataFile<T: 'static> {
    /// The relative URL.
    pub url: &'static str,
    /// Reads the text (the error names the file).
    pub read: fn(&str) -> Result<T, String>,
    /// The page's one copy.
    pub slot: &'static LocalKey<RefCell<Slot<T>>>,
}

thread_local! {
    static EVIDENCE: RefCell<Slot<Vec<Case>>> = const { RefCell::new(Slot::empty()) };
    static SOURCES: RefCell<Slot<Sources>> = const { RefCell::new(Slot::empty()) };
}

/// The published runs, as loaded.
pub type Evidence = Fetched<Vec<Case>>;

/// The published runs (`evidence.json`).
pub static EVIDENCE_FILE: DataFile<Vec<Case>> = DataFile {
    url: "evidence.json",
    read: evidence::parse,
    slot: &EVIDENCE,
};

/// The presets' sources (`sources.json`).
pub static SOURCES_FILE: DataFile<Sources> = DataFile {
    url: sources::SOURCES_URL,
    read: sources::parse,
    slot: &SOURCES,
};

/// The published runs, fetched when `wanted` first becomes true (by this or any other
/// component), then kept for the page's life.
#[hook]
pub fn use_evidence(wanted: bool) -> Evidence {
    use_fetched(&EVIDENCE_FILE, wanted)
}

/// The presets' sources, fetched when `wanted` first becomes true (a "Where … comes from" fold
/// opened), then kept for the page's life.
#[hook]
pub fn use_sources(wanted: bool) -> Fetched<Sources> {
    use_fetched(&SOURCES_FILE, wanted)
}

/// `file`'s state, fetched when `wanted` first becomes true (by this or any other component),
/// then kept for the page's life.
#[hook]
fn use_fetched<T: 'static>(file: &'static DataFile<T>, wanted: bool) -> Fetched<T> {
    let slot = file.slot;
    let state = use_state(|| slot.with(|c| c.borrow().now.clone()));
    {
        let state = state.clone();
        use_effect_with(wanted, move |wanted| {
            let now = slot.with(|c| c.borrow().now.clone());
            if now != *state {
                state.set(now.clone());
            }
            if *wanted && now == Fetched::Idle {
                fetch(file);
            }
            if matches!(now, Fetched::Idle | Fetched::Loading) {
                let notify = Callback::from(move |e: Fetched<T>| state.set(e));
                slot.with(|c| c.borrow_mut().waiting.push(notify));
            }
        });
    }
    (*state).clone()
}

fn fetch<T: 'static>(file: &'static DataFile<T>) {
    file.slot.with(|c| c.borrow_mut().now = Fetched::Loading);
    wasm_bindgen_futures::spawn_local(async move {
        let done = match get_text(file.url).await.and_then(|t| (file.read)(&t)) {
            Ok(x) => Fetched::Ready(Rc::new(x)),
            Err(e) => Fetched::Failed(e),
        };
        let waiting = file.slot.with(|c| {
            let mut c = c.borrow_mut();
            c.now = done.clone();
            std::mem::take(&mut c.waiting)
        });
        for w in waiting {
            w.emit(done.clone());
        }
    });
}

/// The text at `url`, or why not: the browser's `fetch` straight through web-sys (gloo's
/// request builder cost about 2 KB of the bundle for this one GET).
async fn get_text(url: &str) -> Result<String, String> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let why = |e: wasm_bindgen::JsValue| {
        e.as_string()
            .or_else(|| {
                e.dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
            })
            .unwrap_or_else(|| "the request failed".into())
    };
    let window = web_sys::window().ok_or("no window")?;
    let resp: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(why)?
        .unchecked_into();
    if !resp.ok() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(why)?)
        .await
        .map_err(why)?;
    text.as_string().ok_or_else(|| "not text".into())
}
