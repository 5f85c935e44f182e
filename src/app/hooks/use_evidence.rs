//! Loads the evidence file (`static/evidence.json`: the published runs) once, when the page
//! starts, for the error bands next to the key numbers and the evidence panel.

use std::rc::Rc;

use yew::prelude::*;

use crate::evidence::{self, Case};

/// The evidence file, next to index.html (a relative URL: works under any sub-path).
pub const EVIDENCE_URL: &str = "evidence.json";

/// Loading state of the evidence file.
#[derive(Clone, Debug, PartialEq)]
pub enum Evidence {
    /// Being fetched.
    Loading,
    /// The published runs.
    Ready(Rc<Vec<Case>>),
    /// Could not be loaded (the message says why).
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

/// Fetches [`EVIDENCE_URL`] once per mounted component.
#[hook]
pub fn use_evidence() -> Evidence {
    let state = use_state(|| Evidence::Loading);
    {
        let state = state.clone();
        use_effect_with((), move |_| {
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
                state.set(match result {
                    Ok(cases) => Evidence::Ready(Rc::new(cases)),
                    Err(e) => Evidence::Failed(e),
                });
            });
        });
    }
    (*state).clone()
}
