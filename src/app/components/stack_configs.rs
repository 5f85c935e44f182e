//! The plan as a torchtitan job config (TOML) and a DeepSpeed config (JSON), each with the
//! settings that have no equivalent there ([`crate::export`]).

use std::rc::Rc;

use yew::prelude::*;

use crate::app::browser;
use crate::app::components::tool_card::tool_card;
use crate::export::{deepspeed, torchtitan, Export};
use crate::scenario::Scenario;

/// Props of [`StackConfigs`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct StackConfigsProps {
    /// The current scenario.
    pub scenario: Rc<Scenario>,
}

/// One exported file in a copyable block, with its list of settings that have no equivalent.
fn block(
    id: &'static str,
    title: &'static str,
    e: Export,
    copied: UseStateHandle<Option<&'static str>>,
) -> Html {
    let copy = {
        let (text, copied) = (e.text.clone(), copied.clone());
        Callback::from(move |_| {
            let copied = copied.clone();
            browser::copy_text(text.clone(), move |ok| copied.set(ok.then_some(id)));
        })
    };
    html! {
        <div class="stack-config">
            <h3>{ title }</h3>
            <pre id={format!("{id}-text")} tabindex="0">{ e.text }</pre>
            <div class="buttons">
                <button type="button" id={format!("{id}-copy")} onclick={copy}>{ if *copied == Some(id) { "Copied ✓" } else { "Copy" } }</button>
            </div>
            <p class="small muted">{ "No equivalent there:" }</p>
            <ul class="small" id={format!("{id}-missing")}>
                { for e.no_equivalent.into_iter().map(|n| html! { <li>{ n }</li> }) }
            </ul>
        </div>
    }
}

/// The two configurations, each copyable.
#[component]
pub fn StackConfigs(props: &StackConfigsProps) -> Html {
    let copied = use_state(|| None::<&'static str>);
    tool_card(
        "stack-configs",
        "torchtitan and DeepSpeed configs",
        "The plan in each stack's own configuration file; settings the file cannot express are listed under it.",
        html! {
            <>
                { block("torchtitan", "torchtitan job config (TOML)", torchtitan::job_config(&props.scenario), copied.clone()) }
                { block("deepspeed", "DeepSpeed config (JSON)", deepspeed::config(&props.scenario), copied) }
            </>
        },
    )
}
