//! The published runs (`evidence.json`, next to index.html), fetched once per page when first
//! needed and shared by every component that asks (the trust panel, the search table).

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use crate::evidence::{self, Case};

/// The evidence file, next to index.html (a relative URL: works under any sub-path).
pub const EVIDENCE_URL: &str = "evidence.json";

/// Loading state of the evidence file.
#[derive(Clone, Debug, PartialEq)]
pub enum Evidence {
    /// Not asked for yet.
    Idle,
    /// Being fetched.
    Loading,
    /// The published runs.
    Ready(Rc<Vec<Case>>),
    /// Why they could not be loaded.
    Failed(String),
}

impl Evidence {
    /// The runs, once loaded.
    pub fn cases(&self) -> Option<Rc<Vec<Case>>> {
        match self {
            Evidence::Ready(c) => Some(c.clone()),
            _ => None,
        }
    }
}

thread_local! {
    /// The page's one copy, and the components waiting for it.
    static CACHE: RefCell<(Evidence, Vec<Callback<Evidence>>)> = const { RefCell::new((Evidence::Idle, Vec::new())) };
}

/// The published runs, fetched when `wanted` first becomes true (by this or any other
/// component), then kept for the page's life.
#[hook]
pub fn use_evidence(wanted: bool) -> Evidence {
    let state = use_state(|| CACHE.with(|c| c.borrow().0.clone()));
    {
        let state = state.clone();
        use_effect_with(wanted, move |wanted| {
            let now = CACHE.with(|c| c.borrow().0.clone());
            if now != *state {
                state.set(now.clone());
            }
            if *wanted && now == Evidence::Idle {
                fetch();
            }
            if matches!(now, Evidence::Idle | Evidence::Loading) {
                let notify = Callback::from(move |e: Evidence| state.set(e));
                CACHE.with(|c| c.borrow_mut().1.push(notify));
            }
        });
    }
    (*state).clone()
}

fn fetch() {
    CACHE.with(|c| c.borrow_mut().0 = Evidence::Loading);
    wasm_bindgen_futures::spawn_local(async move {
        let result = async {
            let resp = gloo::net::http::Request::get(EVIDENCE_URL)
                .send()
                .await
                .map_err(|e| e.to_string())?;
            if !resp.ok() {
                return Err(format!("HTTP {}", resp.status()));
            }
            let text = resp.text().await.map_err(|e| e.to_string())?;
            evidence::parse(&text)
        }
        .await;
        let done = match result {
            Ok(cases) => Evidence::Ready(Rc::new(cases)),
            Err(e) => Evidence::Failed(e),
        };
        let waiting = CACHE.with(|c| {
            let mut c = c.borrow_mut();
            c.0 = done.clone();
            std::mem::take(&mut c.1)
        });
        for w in waiting {
            w.emit(done.clone());
        }
    });
}
