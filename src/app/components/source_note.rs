//! A folded "Where … comes from" panel: a preset's sources, fetched when it is first unfolded.

use yew::prelude::*;

use crate::app::hooks::use_fetched::{use_sources, Fetched};
use crate::sources::Sources;

/// Whose sources a [`SourceNote`] shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Whose {
    /// A model preset's, by id: the model's shape and the run's setup.
    Preset(AttrValue),
    /// A GPU preset's, by id: its figures and their caveats.
    Gpu(AttrValue),
}

/// Props of [`SourceNote`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct SourceNoteProps {
    /// The `<details>` element's id.
    pub id: AttrValue,
    /// Its classes.
    pub class: AttrValue,
    /// Its summary line.
    pub summary: AttrValue,
    /// Whose sources it shows.
    pub whose: Whose,
}

/// A `<details>` whose body, the sources of `whose`, is fetched from `sources.json`
/// ([`crate::sources`]) when it is first unfolded: the page's first load carries none of them.
#[component]
pub fn SourceNote(props: &SourceNoteProps) -> Html {
    let opened = use_state(bool::default);
    let sources = use_sources(*opened);
    let ontoggle = {
        let opened = opened.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::Element = e.target_unchecked_into();
            if el.has_attribute("open") {
                opened.set(true);
            }
        })
    };
    let body = match &sources {
        Fetched::Ready(s) => texts(s, &props.whose),
        Fetched::Failed(e) => {
            html! { <p class="error">{ format!("The sources could not be loaded ({e}).") }</p> }
        }
        Fetched::Idle | Fetched::Loading => {
            html! { <p class="muted">{ "Loading the sources…" }</p> }
        }
    };
    html! {
        <details class={props.class.clone()} id={props.id.clone()} {ontoggle}>
            <summary>{ props.summary.clone() }</summary>
            { body }
        </details>
    }
}

/// The paragraphs of `whose` sources.
fn texts(s: &Sources, whose: &Whose) -> Html {
    let missing = || html! { <p class="muted">{ "No sources are recorded for it." }</p> };
    match whose {
        Whose::Preset(id) => s.preset(id).map_or_else(missing, |p| {
            html! {
                <>
                    <p>{ "Model: " }{ p.model.to_string() }</p>
                    <p>{ "Run: " }{ p.run.to_string() }</p>
                </>
            }
        }),
        Whose::Gpu(id) => s.gpu(id).map_or_else(missing, |g| {
            html! {
                <>
                    <p>{ g.source.to_string() }</p>
                    if !g.notes.is_empty() {
                        <p>{ g.notes.to_string() }</p>
                    }
                </>
            }
        }),
    }
}
