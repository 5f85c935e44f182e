//! Megatron-LM launch arguments for the current plan.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::components::tool_card::tool_card;
use crate::app::hooks::use_copy;
use crate::megatron;
use crate::scenario::Scenario;

/// Props of [`MegatronPanel`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct MegatronPanelProps {
    /// The current scenario.
    pub scenario: Rc<Scenario>,
}

/// The arguments in a copyable block.
#[component]
pub fn MegatronPanel(props: &MegatronPanelProps) -> Html {
    let args = megatron::launch_args(&props.scenario);
    let (copied, copy) = use_copy(args.clone());
    tool_card(
        "megatron",
        "Megatron-LM arguments",
        "Model, batch and layout flags for pretrain_gpt.py; add data, tokenizer and schedule flags.",
        html! {
            <>
                <pre id="megatron-args" tabindex="0">{ args }</pre>
                <div class="buttons">
                    <button type="button" id="megatron-copy" onclick={copy}>{ if *copied { "Copied ✓" } else { "Copy arguments" } }</button>
                </div>
            </>
        },
    )
}
