//! Embed mode: tells the parent page how tall the content is.

use wasm_bindgen::JsValue;
use yew::prelude::*;

/// Posts `{paracalcHeight: h}` (only that number, in CSS pixels) to the parent window whenever
/// the element's height changes, so a documentation page can size its iframe. Does nothing when
/// the page is not in a frame.
#[hook]
pub fn use_post_height(node: NodeRef) {
    use_effect_with((), move |_| {
        let watch = (|| {
            let window = web_sys::window()?;
            let parent = window.parent().ok()??;
            if JsValue::from(&parent) == JsValue::from(&window) {
                return None;
            }
            let el = node.cast::<web_sys::Element>()?;
            let post = move || {
                let h = el_height(&node);
                let msg = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&msg, &"paracalcHeight".into(), &JsValue::from_f64(h));
                let _ = parent.post_message(&msg, "*");
            };
            post();
            crate::app::browser::watch_resize(&el, post)
        })();
        move || drop(watch)
    });
}

fn el_height(node: &NodeRef) -> f64 {
    node.cast::<web_sys::Element>()
        .map(|el| el.get_bounding_client_rect().height().ceil())
        .unwrap_or(0.0)
}
