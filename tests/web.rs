//! Browser tests: the app mounted in headless Chromium (wasm-bindgen-test; run with
//! `cargo test --target wasm32-unknown-unknown --test web`, runner set in .cargo/config.toml).
#![cfg(target_arch = "wasm32")]

use paracalc::app::{App, AppProps, State};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{
    CanvasRenderingContext2d, Element, HtmlCanvasElement, HtmlInputElement, InputEvent,
    InputEventInit,
};

wasm_bindgen_test_configure!(run_in_browser);

/// Mounts the app in a fresh element, as `start()` would for a page opened with `query`.
async fn mount(query: &str) -> Element {
    set_query("");
    let doc = gloo::utils::document();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    let initial = State::from_query(query);
    yew::Renderer::<App>::with_root_and_props(root.clone(), AppProps { initial }).render();
    yew::scheduler::flush().await;
    root
}

fn find<T: JsCast>(root: &Element, selector: &str) -> T {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"))
        .dyn_into::<T>()
        .unwrap()
}

fn text(root: &Element, selector: &str) -> String {
    find::<Element>(root, selector)
        .text_content()
        .unwrap_or_default()
}

fn search() -> String {
    gloo::utils::window().location().search().unwrap()
}

fn set_query(query: &str) {
    let path = gloo::utils::window().location().pathname().unwrap();
    let url = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    gloo::utils::window()
        .history()
        .unwrap()
        .replace_state_with_url(&JsValue::NULL, "", Some(&url))
        .unwrap();
}

/// Types `value` into the input as a user would: set it, then fire a bubbling `input` event
/// (Yew listens on the root, so the event must bubble).
async fn type_into(input: &HtmlInputElement, value: &str) {
    input.set_value(value);
    let init = InputEventInit::new();
    init.set_bubbles(true);
    let event = InputEvent::new_with_event_init_dict("input", &init).unwrap();
    input.dispatch_event(&event).unwrap();
    yew::scheduler::flush().await;
}

/// (pixels that are not white, pixels in the bar colour #2563eb) on the canvas.
fn ink(canvas: &HtmlCanvasElement) -> (usize, usize) {
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    let (w, h) = (canvas.width(), canvas.height());
    let data = ctx
        .get_image_data(0.0, 0.0, w as f64, h as f64)
        .unwrap()
        .data();
    let mut non_white = 0;
    let mut bar = 0;
    for px in data.chunks_exact(4) {
        if px[3] > 0 && (px[0] < 245 || px[1] < 245 || px[2] < 245) {
            non_white += 1;
        }
        if px[0].abs_diff(37) < 8 && px[1].abs_diff(99) < 8 && px[2].abs_diff(235) < 8 {
            bar += 1;
        }
    }
    (non_white, bar)
}

/// Number of separate bars crossing the row 240 px from the top (near the bottom of the plot,
/// where every bar of at least half the tallest bar's height is present).
fn bars_on_row(canvas: &HtmlCanvasElement) -> usize {
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    let w = canvas.width();
    let row = ctx
        .get_image_data(0.0, 240.0, w as f64, 1.0)
        .unwrap()
        .data();
    let mut runs = 0;
    let mut inside = false;
    for px in row.chunks_exact(4) {
        let is_bar = px[0].abs_diff(37) < 8 && px[1].abs_diff(99) < 8 && px[2].abs_diff(235) < 8;
        if is_bar && !inside {
            runs += 1;
        }
        inside = is_bar;
    }
    runs
}

#[wasm_bindgen_test]
async fn app_mounts_and_the_chart_has_ink() {
    let root = mount("?layers=30&pp=4").await;
    assert_eq!(text(&root, "h1"), "paracalc");
    assert_eq!(find::<HtmlInputElement>(&root, "#layers").value(), "30");
    assert_eq!(find::<HtmlInputElement>(&root, "#pp").value(), "4");
    assert_eq!(
        text(&root, "#summary"),
        "30 layers on 4 stages: 7 to 8 per stage"
    );

    let canvas: HtmlCanvasElement = find(&root, "canvas#chart-stage-layers");
    assert_eq!((canvas.width(), canvas.height()), (720, 320));
    let (non_white, bar) = ink(&canvas);
    // 4 bars of 7-8 layers on an 8.6-layer axis, each 0.76 of a stage wide, fill about
    // 0.76 × 650 px × 0.87 × 230 px ≈ 99,000 px; axes, labels and the caption add a few
    // thousand non-white pixels. Measured in Chromium 156: bar 89,544, non-white 96,625.
    assert!(bar > 60_000, "bar-coloured pixels: {bar}");
    assert!(
        non_white > bar + 2_000,
        "non-white pixels: {non_white}, bars: {bar}"
    );
    assert!(root.query_selector(".chart-error").unwrap().is_none());
    assert_eq!(bars_on_row(&canvas), 4);
    root.remove();
}

#[wasm_bindgen_test]
async fn typing_updates_the_chart_and_the_url() {
    let root = mount("layers=30&pp=4").await;
    // On mount the URL takes the state's canonical query (here the page URL had none).
    assert_eq!(search(), "?layers=30&pp=4");
    let canvas: HtmlCanvasElement = find(&root, "canvas#chart-stage-layers");
    assert_eq!(bars_on_row(&canvas), 4);

    let pp: HtmlInputElement = find(&root, "#pp");
    type_into(&pp, "8").await;
    // 30 layers on 8 stages: 3 each and 6 extra in the middle: 3 4 4 4 4 4 4 3.
    assert_eq!(
        text(&root, "#summary"),
        "30 layers on 8 stages: 3 to 4 per stage"
    );
    assert_eq!(search(), "?layers=30&pp=8");
    // The chart was redrawn with one bar per stage.
    assert_eq!(bars_on_row(&canvas), 8);

    // Not a number: the field says so, the state and the URL keep the last valid value.
    type_into(&pp, "").await;
    assert_eq!(pp.get_attribute("aria-invalid").as_deref(), Some("true"));
    assert_eq!(text(&root, "#pp-hint"), "Enter a value.");
    assert_eq!(search(), "?layers=30&pp=8");
    type_into(&pp, "999").await;
    assert_eq!(
        text(&root, "#pp-hint"),
        "Enter a whole number from 1 to 256."
    );
    assert_eq!(search(), "?layers=30&pp=8");

    // Back to the defaults: the query disappears.
    type_into(&find(&root, "#layers"), "96").await;
    type_into(&pp, "16").await;
    assert_eq!(pp.get_attribute("aria-invalid").as_deref(), Some("false"));
    assert_eq!(
        text(&root, "#summary"),
        "96 layers on 16 stages: 6 per stage"
    );
    assert_eq!(search(), "");
    root.remove();
}
