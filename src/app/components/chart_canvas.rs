//! A `<canvas>` that draws a [`Chart`] with plotters-canvas.

use std::rc::Rc;

use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::app::charts::stage_layers::{self, Chart};
use crate::app::charts::ChartError;

/// Props of [`ChartCanvas`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct ChartCanvasProps {
    /// Element id of the canvas.
    pub id: AttrValue,
    /// What to draw; the canvas redraws whenever this changes.
    pub chart: Rc<Chart>,
    /// Text alternative for screen readers.
    pub label: AttrValue,
    /// Drawing width in CSS pixels (the canvas scales down to its container).
    #[prop_or(720)]
    pub width: u32,
    /// Drawing height in CSS pixels.
    #[prop_or(320)]
    pub height: u32,
}

/// Owns the canvas element and redraws it after each render in which the chart changed.
/// A chart that cannot be drawn shows its error as text instead.
#[component]
pub fn ChartCanvas(props: &ChartCanvasProps) -> Html {
    let canvas = use_node_ref();
    let error = use_state_eq(|| None::<String>);
    {
        let (canvas, error) = (canvas.clone(), error.clone());
        use_effect_with(props.chart.clone(), move |chart| {
            let result = match canvas
                .cast::<HtmlCanvasElement>()
                .and_then(CanvasBackend::with_canvas_object)
            {
                Some(backend) => stage_layers::draw_chart(chart, &backend.into_drawing_area()),
                None => Err(ChartError::new("no canvas to draw on")),
            };
            error.set(result.err().map(|e| e.to_string()));
        });
    }
    html! {
        <figure class="chart">
            <canvas
                ref={canvas}
                id={props.id.clone()}
                width={props.width.to_string()}
                height={props.height.to_string()}
                role="img"
                aria-label={props.label.clone()}
            />
            if let Some(message) = &*error {
                <figcaption class="chart-error" role="alert">{ message.clone() }</figcaption>
            }
        </figure>
    }
}
