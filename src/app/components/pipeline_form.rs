//! The form section: the model's depth and the pipeline-parallel degree.

use yew::prelude::*;

use crate::app::components::number_field::NumberField;
use crate::app::state::{MAX_LAYERS, MAX_PP};

/// Props of [`PipelineForm`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct PipelineFormProps {
    /// `model.layers`.
    pub layers: u64,
    /// `parallel.pp`.
    pub pp: u64,
    /// A new valid layer count.
    pub on_layers: Callback<u64>,
    /// A new valid pipeline-parallel degree.
    pub on_pp: Callback<u64>,
}

/// Inputs for how the model's layers are split over pipeline stages.
#[component]
pub fn PipelineForm(props: &PipelineFormProps) -> Html {
    html! {
        <section class="card form" aria-labelledby="form-title">
            <h2 id="form-title">{ "Model and pipeline" }</h2>
            <form onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
                <NumberField
                    id="layers"
                    label="Transformer layers"
                    hint="Number of Transformer blocks in the model."
                    value={props.layers}
                    min={1}
                    max={MAX_LAYERS}
                    on_change={props.on_layers.clone()}
                />
                <NumberField
                    id="pp"
                    label="Pipeline stages (pp)"
                    hint="GPUs one micro-batch passes through in turn; each holds a slice of the layers."
                    value={props.pp}
                    min={1}
                    max={MAX_PP}
                    on_change={props.on_pp.clone()}
                />
            </form>
        </section>
    }
}
