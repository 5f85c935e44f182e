//! Small browser helpers for event handlers (never called while rendering, so components still
//! render natively).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// Copies `text` to the clipboard; `done` gets whether it worked.
pub fn copy_text(text: String, done: impl FnOnce(bool) + 'static) {
    copy_then(text, Box::new(done));
}

/// [`copy_text`] behind one `dyn` callback: every caller shares one compiled copy of the
/// awaiting task instead of one per caller's closure type.
fn copy_then(text: String, done: Box<dyn FnOnce(bool)>) {
    let Some(window) = web_sys::window() else {
        done(false);
        return;
    };
    let promise = window.navigator().clipboard().write_text(&text);
    wasm_bindgen_futures::spawn_local(async move {
        done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
}

/// A `ResizeObserver` watching one element ([`watch_resize`]); dropping it ends the watch.
pub struct ResizeWatch {
    observer: web_sys::ResizeObserver,
    _callback: Closure<dyn FnMut()>,
}

impl Drop for ResizeWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// Calls `on_resize` whenever `el` changes size, until the returned watch is dropped (`None`
/// where the browser has no `ResizeObserver`).
pub fn watch_resize(
    el: &web_sys::Element,
    on_resize: impl FnMut() + 'static,
) -> Option<ResizeWatch> {
    let callback = Closure::<dyn FnMut()>::new(on_resize);
    let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
    observer.observe(el);
    Some(ResizeWatch {
        observer,
        _callback: callback,
    })
}

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, text: &str, mime: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    save_url(&url, name)?;
    web_sys::Url::revoke_object_url(&url)?;
    Ok(())
}

/// Saves what `url` points at (an object or `data:` URL) as `name`, through a temporary
/// `<a download>`.
pub fn save_url(url: &str, name: &str) -> Result<(), JsValue> {
    use wasm_bindgen::JsCast;
    let doc = gloo::utils::document();
    let a: web_sys::HtmlAnchorElement = doc.create_element("a")?.dyn_into()?;
    a.set_href(url);
    a.set_download(name);
    a.click();
    Ok(())
}

/// The page's address without query or fragment (`https://host/path/`), for links to copy.
pub fn page_base() -> String {
    web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        })
        .unwrap_or_default()
}
