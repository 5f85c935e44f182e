//! Browser tests: the app mounted in headless Chromium (wasm-bindgen-test; run with
//! `cargo test --target wasm32-unknown-unknown --test web`, runner set in .cargo/config.toml).
#![cfg(target_arch = "wasm32")]

use paracalc::app::hooks::use_url_sync::DEBOUNCE;
use paracalc::app::{App, AppProps, EmbedApp, EmbedAppProps, State};
use paracalc::xorshift::{next_u32, next_u64};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlCanvasElement, HtmlInputElement, InputEvent, InputEventInit};

wasm_bindgen_test_configure!(run_in_browser);

/// Mounts the app in a fresh element, as `start()` would for a page opened with `query`.
async fn mount(query: &str) -> Element {
    set_query("");
    let root = new_root();
    let initial = State::from_query(query);
    yew::Renderer::<App>::with_root_and_props(root.clone(), AppProps { initial }).render();
    yew::scheduler::flush().await;
    root
}

async fn mount_embed(query: &str) -> Element {
    set_query("");
    let root = new_root();
    let state = State::from_query(query);
    yew::Renderer::<EmbedApp>::with_root_and_props(root.clone(), EmbedAppProps { state }).render();
    yew::scheduler::flush().await;
    root
}

fn new_root() -> Element {
    let doc = gloo::utils::document();
    let root = doc.create_element("div").unwrap();
    root.set_attribute("style", "width: 1000px").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    root
}

fn find<T: JsCast>(root: &Element, selector: &str) -> T {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"))
        .dyn_into::<T>()
        .unwrap()
}

fn exists(root: &Element, selector: &str) -> bool {
    root.query_selector(selector).unwrap().is_some()
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

/// Waits longer than the URL debounce.
async fn after_debounce() {
    let ms = (DEBOUNCE.as_millis() * 2) as i32;
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        gloo::utils::window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
    yew::scheduler::flush().await;
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

/// Canvas pixels that are not fully transparent.
fn ink(canvas: &HtmlCanvasElement) -> usize {
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    let (w, h) = (canvas.width(), canvas.height());
    if w == 0 || h == 0 {
        return 0;
    }
    let data = ctx
        .get_image_data(0.0, 0.0, w as f64, h as f64)
        .unwrap()
        .data();
    data.chunks_exact(4).filter(|px| px[3] > 0).count()
}

#[wasm_bindgen_test]
async fn app_mounts_with_forms_summary_and_a_chart() {
    let root = mount("?v=1&model=gpt3-175b").await;
    assert_eq!(text(&root, "h1").trim(), "paracalc");
    assert_eq!(
        find::<HtmlInputElement>(&root, "#model-layers").value(),
        "96"
    );
    assert_eq!(find::<HtmlInputElement>(&root, "#parallel-tp").value(), "8");
    for id in [
        "#key-step",
        "#key-tokens",
        "#key-mfu",
        "#key-hfu",
        "#key-memory",
        "#key-fits",
    ] {
        assert!(exists(&root, id), "{id}");
    }
    assert!(text(&root, "#key-mfu").contains('%'));
    // The placeholder memory chart drew something.
    let canvas: HtmlCanvasElement = find(&root, "canvas");
    assert!(ink(&canvas) > 10_000, "ink {}", ink(&canvas));
    root.remove();
}

#[wasm_bindgen_test]
async fn a_field_edit_changes_the_estimate_and_the_url() {
    let root = mount("?v=1&model=gpt3-175b").await;
    after_debounce().await;
    assert_eq!(search(), "?v=1&model=gpt3-175b");
    let before = text(&root, "#key-memory");

    // tp 8 → 4 on the same 1024 GPUs: dp follows (8 → 16), the URL names only what changed.
    let tp: HtmlInputElement = find(&root, "#parallel-tp");
    type_into(&tp, "4").await;
    assert_eq!(
        find::<HtmlInputElement>(&root, "#parallel-dp").value(),
        "16"
    );
    assert_ne!(text(&root, "#key-memory"), before, "memory changes with tp");
    after_debounce().await;
    assert_eq!(search(), "?v=1&model=gpt3-175b&tp=4&dp=16");

    // Not a number: the field says so; the state and the URL keep the last valid value.
    type_into(&tp, "four").await;
    assert_eq!(tp.get_attribute("aria-invalid").as_deref(), Some("true"));
    assert_eq!(text(&root, "#parallel-tp-hint"), "Not a number.");
    after_debounce().await;
    assert_eq!(search(), "?v=1&model=gpt3-175b&tp=4&dp=16");

    // A value the engine rejects is marked at the field with the engine's sentence.
    type_into(&tp, "7").await;
    assert!(text(&root, "#parallel-tp-hint").contains("does not divide"));
    assert!(exists(&root, "#fix-gpus"));

    // Back to 8: dp 8 again, and the link is the bare preset.
    type_into(&tp, "8").await;
    after_debounce().await;
    assert_eq!(find::<HtmlInputElement>(&root, "#parallel-dp").value(), "8");
    assert_eq!(search(), "?v=1&model=gpt3-175b");
    root.remove();
}

#[wasm_bindgen_test]
async fn pin_then_edit_shows_a_and_b() {
    let root = mount("?v=1&model=llama3-8b").await;
    find::<web_sys::HtmlElement>(&root, "#pin").click();
    yew::scheduler::flush().await;
    assert!(exists(&root, "#compare"));
    type_into(&find(&root, "#training-micro_batch"), "2").await;
    let diffs = text(&root, "#compare-diffs");
    assert!(diffs.contains("training.micro_batch"), "{diffs}");
    after_debounce().await;
    assert!(
        search().contains("&mbs=2&a.model=llama3-8b"),
        "{}",
        search()
    );
    root.remove();
}

#[wasm_bindgen_test]
async fn embed_memory_shows_one_chart_and_no_form() {
    let root = mount_embed("?v=1&model=llama3-70b&embed=memory").await;
    assert_eq!(root.query_selector_all("canvas").unwrap().length(), 1);
    assert!(!exists(&root, "form") && !exists(&root, "input") && !exists(&root, "select"));
    assert!(text(&root, "#summary").contains("tokens/s"));
    let href = find::<Element>(&root, "#open-full")
        .get_attribute("href")
        .unwrap();
    assert_eq!(href, "./?v=1&model=llama3-70b");
    let canvas: HtmlCanvasElement = find(&root, "canvas");
    assert!(ink(&canvas) > 10_000);
    root.remove();
}

#[wasm_bindgen_test]
async fn hostile_link_keeps_the_page_up_with_a_notice_in_plain_text() {
    let root = mount(
        "?v=1&name=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%3Cb%3Ebold%3C%2Fb%3E&tp=999999999999999999999999&gbs=1e400&zzz=%3Cscript%3E&model=%3Ciframe%3E&%%%&=&gpu=%00",
    )
    .await;
    // The page is all there.
    assert!(exists(&root, "#summary") && exists(&root, "#group-cluster"));
    // The notice names what was ignored.
    let notices = text(&root, "#link-notices");
    for key in ["tp", "gbs", "zzz", "model", "gpu"] {
        assert!(notices.contains(key), "{key} in {notices}");
    }
    // Markup stayed text: no element was created from it.
    assert!(
        !exists(&root, "img")
            && !exists(&root, "iframe")
            && !exists(&root, "b")
            && !exists(&root, "script")
    );
    let name = find::<HtmlInputElement>(&root, "#model-name").value();
    assert_eq!(name, "<img src=x onerror=alert(1)><b>bold</b>");
    // Dismiss hides the notices.
    find::<web_sys::HtmlElement>(&root, "#dismiss-notices").click();
    yew::scheduler::flush().await;
    assert!(!exists(&root, "#link-notices"));
    root.remove();
}

#[wasm_bindgen_test]
fn a_panic_message_shows_in_the_fatal_box_as_text() {
    // index.html's hidden box; show_fatal is what the panic hook calls.
    let doc = gloo::utils::document();
    let fatal = doc.create_element("div").unwrap();
    fatal.set_id("fatal");
    fatal.set_attribute("hidden", "").unwrap();
    fatal
        .set_inner_html(r#"<pre id="fatal-message"></pre><a id="fatal-reset" href="./">Reset</a>"#);
    doc.body().unwrap().append_child(&fatal).unwrap();
    paracalc::app::show_fatal("panicked at <b>src/x.rs</b>: index out of bounds");
    assert!(!fatal.has_attribute("hidden"));
    let pre = doc.get_element_by_id("fatal-message").unwrap();
    assert_eq!(
        pre.text_content().unwrap(),
        "panicked at <b>src/x.rs</b>: index out of bounds"
    );
    assert_eq!(pre.child_element_count(), 0, "the message stays text");
    assert_eq!(
        doc.get_element_by_id("fatal-reset")
            .unwrap()
            .get_attribute("href")
            .as_deref(),
        Some("./")
    );
    fatal.remove();
}

#[wasm_bindgen_test]
async fn pasting_a_hugging_face_config_fills_the_model() {
    let root = mount("?v=1&model=gpt3-175b").await;
    let area: web_sys::HtmlTextAreaElement = find(&root, "#hf-text");
    area.set_value(
        r#"{"model_type": "qwen2", "hidden_size": 8192, "intermediate_size": 29568,
            "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
            "vocab_size": 152064, "max_position_embeddings": 131072, "new_knob": 1}"#,
    );
    let init = InputEventInit::new();
    init.set_bubbles(true);
    area.dispatch_event(&InputEvent::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    yew::scheduler::flush().await;
    find::<web_sys::HtmlElement>(&root, "#hf-apply").click();
    yew::scheduler::flush().await;
    assert_eq!(
        find::<HtmlInputElement>(&root, "#model-layers").value(),
        "80"
    );
    assert_eq!(
        find::<HtmlInputElement>(&root, "#model-kv_heads").value(),
        "8"
    );
    let msg = text(&root, "#import-message");
    assert!(
        msg.contains("Imported Qwen2") && msg.contains("new_knob"),
        "{msg}"
    );
    root.remove();
}

/// Sets `value` and fires a bubbling `change` event (what a user's Enter or blur does).
async fn change_to(input: &HtmlInputElement, value: &str) {
    input.set_value(value);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict("change", &init).unwrap();
    input.dispatch_event(&event).unwrap();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn a_measured_step_time_calibrates_the_key_numbers_and_the_link() {
    let root = mount("?v=1&model=llama3-8b").await;
    let before = text(&root, "#key-step dd");
    // 1 ms per step is faster than 8 GPUs can run Llama 3 8B: the box says so, nothing changes.
    let value: HtmlInputElement = find(&root, "#measured-value");
    change_to(&value, "0.001").await;
    assert!(
        text(&root, "#measured-note").contains("faster than this hardware allows"),
        "{}",
        text(&root, "#measured-note")
    );
    assert_eq!(text(&root, "#key-step dd"), before);
    // 20 % slower than predicted, in seconds (the tile shows seconds for this plan).
    let secs: f64 = before
        .trim_end_matches(" s")
        .parse()
        .expect("step in seconds");
    change_to(&value, &format!("{:.3}", 1.2 * secs)).await;
    assert_ne!(
        text(&root, "#key-step dd"),
        before,
        "the step follows the measurement"
    );
    assert!(text(&root, "#calibration-words").contains("Calibrated: GPU kernels run at"));
    after_debounce().await;
    assert!(search().contains("&cal.compute="), "{}", search());
    // Reset: back to the plain preset.
    find::<web_sys::HtmlElement>(&root, "#calibration-reset").click();
    yew::scheduler::flush().await;
    assert_eq!(text(&root, "#key-step dd"), before);
    after_debounce().await;
    assert_eq!(search(), "?v=1&model=llama3-8b");
    root.remove();
}

fn click(root: &Element, selector: &str) {
    find::<web_sys::HtmlElement>(root, selector).click();
}

fn has_class(root: &Element, selector: &str, class: &str) -> bool {
    find::<Element>(root, selector)
        .get_attribute("class")
        .unwrap_or_default()
        .split_whitespace()
        .any(|c| c == class)
}

#[wasm_bindgen_test]
async fn an_invalid_field_marks_the_results_stale_and_copy_link_refuses() {
    let root = mount("?v=1&model=gpt3-175b").await;
    assert!(!exists(&root, "#stale-banner"));
    let step = text(&root, "#key-step");
    let pp: HtmlInputElement = find(&root, "#parallel-pp");
    type_into(&pp, "abc").await;
    // The numbers stay (they are the last valid plan's), marked as such, greyed, and named.
    let banner = text(&root, "#stale-banner");
    assert!(
        banner.contains("Results of the last valid plan"),
        "{banner}"
    );
    assert!(banner.contains("Pipeline parallel (pp)"), "{banner}");
    assert_eq!(text(&root, "#key-step"), step);
    assert!(has_class(&root, "#summary", "stale"));
    assert!(has_class(&root, "#charts-zone", "stale"));
    assert!(has_class(&root, "#results-zone", "stale"));
    // Copy link refuses and says why; the Embed dialog warns.
    click(&root, "#copy-link");
    yew::scheduler::flush().await;
    let status = text(&root, "#copy-status");
    assert!(
        status.starts_with("Not copied") && status.contains("Pipeline parallel (pp)"),
        "{status}"
    );
    click(&root, "#open-embed");
    yew::scheduler::flush().await;
    assert!(text(&root, "#embed-stale").contains("last valid plan"));
    click(&root, "#embed-close");
    yew::scheduler::flush().await;
    // Unparseable layers per stage is a field error and stale too.
    let lps: HtmlInputElement = find(&root, "#parallel-layers_per_stage");
    type_into(&lps, "6,6,x").await;
    assert_eq!(lps.get_attribute("aria-invalid").as_deref(), Some("true"));
    assert!(text(&root, "#parallel-layers_per_stage-hint").contains("whole numbers"));
    assert!(text(&root, "#stale-banner").contains("Layers per stage"));
    // Fixing both clears the state.
    type_into(&lps, "").await;
    type_into(&pp, "16").await;
    assert!(!exists(&root, "#stale-banner"));
    assert!(!has_class(&root, "#summary", "stale"));
    assert_eq!(text(&root, "#copy-status"), "");
    root.remove();
}

#[wasm_bindgen_test]
async fn an_oom_plan_greys_speed_and_applies_a_fitting_layout_in_one_click() {
    // Llama 3 70B with tp 4 and no pipeline on 64 H100s: 17.6 B parameters per GPU do not fit.
    let root = mount("?v=1&model=llama3-70b&tp=4&pp=1&dp=16&cp=1&vp=1").await;
    assert!(has_class(&root, "#key-fits", "oom"));
    for id in ["#key-step", "#key-tokens", "#key-mfu", "#key-tflops"] {
        assert!(has_class(&root, id, "if-fit"), "{id} greyed");
        assert!(text(&root, id).contains("(if it fit)"), "{id}");
    }
    assert!(text(&root, "#verdict-line").starts_with("If it fit:"));
    assert!(text(&root, "#fixes-overflow").contains("Stage 0:"));
    assert!(text(&root, "#fixes-overflow").contains("optimizer states"));
    let layouts = root
        .query_selector_all("#fixes-layouts li")
        .unwrap()
        .length();
    assert!(layouts >= 1, "{layouts} fitting layouts");
    click(&root, "#fix-0");
    yew::scheduler::flush().await;
    assert!(
        has_class(&root, "#key-fits", "ok"),
        "{}",
        text(&root, "#key-fits")
    );
    assert!(!exists(&root, "#fixes"));
    assert!(!has_class(&root, "#key-step", "if-fit"));
    let diff = text(&root, "#change-diff");
    assert!(diff.contains("(OOM) →"), "{diff}");
    // Focus moved to the notice's undo (the clicked button is gone); undo restores the plan.
    let active = gloo::utils::document().active_element().unwrap();
    assert_eq!(active.id(), "change-undo");
    click(&root, "#change-undo");
    yew::scheduler::flush().await;
    assert!(has_class(&root, "#key-fits", "oom"));
    assert_eq!(find::<HtmlInputElement>(&root, "#parallel-pp").value(), "1");
    root.remove();
}

#[wasm_bindgen_test]
async fn the_verdict_names_the_largest_exposed_cost_and_try_it_changes_the_plan() {
    let query = "?v=1&model=gpt3-175b";
    let s = State::from_query(query).scenario;
    let e = paracalc::engine::estimate(&s).unwrap();
    let v = paracalc::engine::advice::verdict(&s, &e);
    let (part, _, _) = v.largest_exposed.unwrap();
    let root = mount(query).await;
    let line = text(&root, "#verdict-line");
    assert!(line.contains(part.label()), "{line} names {}", part.label());
    let first = v.suggestions[0].describe(&s);
    assert!(text(&root, "#verdict-suggestions").contains(&first));
    let (step, mfu) = (text(&root, "#key-step"), text(&root, "#key-mfu"));
    click(&root, "#try-0");
    yew::scheduler::flush().await;
    assert_ne!(text(&root, "#key-step"), step);
    assert_ne!(text(&root, "#key-mfu"), mfu);
    assert_eq!(text(&root, "#change-text"), format!("Applied: {first}."));
    assert!(text(&root, "#change-diff").starts_with("step "));
    after_debounce().await;
    assert_ne!(search(), query, "the plan (and its link) changed");
    root.remove();
}

#[wasm_bindgen_test]
async fn dp_following_tp_is_announced_with_an_undo() {
    let root = mount("?v=1&model=gpt3-175b").await;
    type_into(&find(&root, "#parallel-tp"), "4").await;
    let notice = text(&root, "#change-text");
    assert!(notice.contains("set dp 8 → 16"), "{notice}");
    click(&root, "#change-undo");
    yew::scheduler::flush().await;
    assert_eq!(find::<HtmlInputElement>(&root, "#parallel-tp").value(), "8");
    assert_eq!(find::<HtmlInputElement>(&root, "#parallel-dp").value(), "8");
    assert!(!exists(&root, "#change-notice"));
    root.remove();
}

#[wasm_bindgen_test]
async fn mfu_is_defined_where_shown_and_the_causal_value_appears_for_long_sequences() {
    let root = mount("?v=1&model=llama3-70b&seq=131072&gbs=16&cp=4&dp=1&recompute=full").await;
    let tile = find::<Element>(&root, "#key-mfu");
    assert!(tile
        .get_attribute("title")
        .unwrap()
        .starts_with("Model FLOPs utilisation"));
    let link = find::<Element>(&root, "#key-mfu .help-link");
    assert_eq!(link.get_attribute("href").as_deref(), Some("#help-mfu"));
    assert!(exists(&root, "#help-mfu") && exists(&root, "#help-flops"));
    assert!(text(&root, "#key-mfu").contains("causal"));
    // 8K tokens: no causal value beside it.
    root.remove();
    let root = mount("?v=1&model=llama3-70b").await;
    assert!(!text(&root, "#key-mfu").contains("causal"));
    root.remove();
}

/// In the browser a scenario file is parsed by `JSON.parse` (scenario::json::parse): every preset
/// reads back as written, `8.0` is the whole number 8 as natively, and errors still name the
/// field (a syntax error: where the text broke off; a wrong type: the field itself).
#[wasm_bindgen_test]
fn scenario_json_reads_in_the_browser_as_natively() {
    use paracalc::scenario;
    for p in paracalc::presets::MODEL_PRESETS {
        let s = p.scenario();
        assert_eq!(
            scenario::parse(&s.to_json_pretty()).as_ref(),
            Ok(&s),
            "{}",
            p.id
        );
    }
    let s = paracalc::presets::default_model_preset().scenario();
    let text = s.to_json_pretty();
    let whole = text.replace(
        &format!("\"tp\": {}", s.parallel.tp),
        &format!("\"tp\": {}.0", s.parallel.tp),
    );
    assert_eq!(
        scenario::parse(&whole).map(|x| x.parallel.tp),
        Ok(s.parallel.tp)
    );
    let wrong = text.replace(&format!("\"tp\": {}", s.parallel.tp), "\"tp\": \"8\"");
    let e = scenario::parse(&wrong).unwrap_err();
    assert_eq!(e.issues[0].field, "parallel.tp");
    assert!(e.issues[0].message.contains("invalid type: string"), "{e}");
    let cut = &text[..text.find("\"tp\"").unwrap() + 8];
    let e = scenario::parse(cut).unwrap_err();
    assert!(e.issues[0].field.starts_with("parallel"), "{e}");
}

/// The browser's number parsing (`text::parse_f64`: the shape checked in Rust, the digits read by
/// `parseFloat`) gives exactly the bits of Rust's `f64::from_str` on the same texts: everyday
/// inputs, rounding edges, extremes and a stream of pseudo-random decimals of every length.
#[wasm_bindgen_test]
fn numbers_parse_in_the_browser_as_natively() {
    let mut texts: Vec<String> = [
        "0",
        "-0",
        "+0",
        "1",
        "0.1",
        ".5",
        "5.",
        "1.e5",
        "2.5e1",
        "1e-7",
        "1E+21",
        "1e400",
        "-1e400",
        "1e-400",
        "4.9e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "9007199254740993",
        "0.30000000000000004",
        "123456789012345678901234567890",
        "00012.50",
        "inf",
        "-Infinity",
        "NaN",
        "",
        ".",
        "e5",
        "1e",
        "1e+",
        "--1",
        "1,5",
        " 1",
        "1 ",
        "0x10",
        "1_0",
        "١",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..4000 {
        next_u64(&mut x);
        let digits = 1 + (x % 25) as usize;
        let mut s = String::new();
        let mut y = x;
        for i in 0..digits {
            if i == (x >> 40) as usize % (digits + 1) {
                s.push('.');
            }
            s.push(char::from(b'0' + (y % 10) as u8));
            y = y / 10 ^ (y << 3);
        }
        if x % 3 == 0 {
            s.push_str(&format!("e{}", ((x >> 20) % 660) as i64 - 330));
        }
        texts.push(s);
    }
    for s in &texts {
        let want = s.parse::<f64>().ok().map(f64::to_bits);
        let got = paracalc::text::parse_f64(s).map(f64::to_bits);
        if s.to_ascii_lowercase().contains("nan") {
            assert_eq!(
                got.is_some_and(|b| f64::from_bits(b).is_nan()),
                want.is_some(),
                "{s:?}"
            );
        } else {
            assert_eq!(got, want, "{s:?}");
        }
    }
}

/// The browser's number printing (`text::num`: the shortest digits from JavaScript's `String(x)`,
/// laid out in Rust) writes exactly what `format!` writes: `{x}`, `{x:e}` and `{x:.n$}` on
/// everyday values, exact ties between two shortest spellings (which V8 breaks to even and
/// core upwards), signs, extremes and a stream of pseudo-random bit patterns.
#[wasm_bindgen_test]
fn numbers_print_in_the_browser_as_natively() {
    use paracalc::text::num::{Exp, ExpFixed, Fixed, Plain};
    let mut xs = vec![
        0.0,
        -0.0,
        0.1,
        0.5,
        2.5,
        -1.5,
        1e21,
        1e-7,
        123_456_789_012_345_680.0,
        0.1 + 0.2,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    xs.extend((0..40).map(|k| 1_125_899_906_842_624.0 + f64::from(k) / 4.0));
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        xs.push(f64::from_bits(x));
        xs.push((x % 1_000_000) as f64 / 10f64.powi((x >> 40) as i32 % 9));
    }
    for x in xs {
        assert_eq!(Plain(x).to_string(), format!("{x}"), "{x:e}");
        assert_eq!(Exp(x).to_string(), format!("{x:e}"), "{x:e}");
        assert_eq!(Fixed(x, 2).to_string(), format!("{x:.2}"), "{x:e}");
        assert_eq!(ExpFixed(x, 3).to_string(), format!("{x:.3e}"), "{x:e}");
    }
}

/// The browser build's allocator (`app::heap`, the global allocator of this test binary too):
/// blocks of every size and alignment are aligned, do not overlap, keep their bytes through a
/// `realloc`, and a freed block is handed out again for the next request of its size.
#[wasm_bindgen_test]
fn the_heap_hands_out_aligned_disjoint_blocks() {
    use std::alloc::{alloc, dealloc, realloc, Layout};
    let mut live: Vec<(usize, Layout)> = Vec::new();
    let mut x: u32 = 0x2545_f491;
    for i in 0..1500u32 {
        next_u32(&mut x);
        let size = 1 + (x % [24, 300, 5000, 70_000][(i % 4) as usize]) as usize;
        let layout = Layout::from_size_align(size, 1 << ((x >> 28) % 7)).unwrap();
        // SAFETY: a non-zero size; every block is written only within its own size and freed
        // once with the layout it was allocated with.
        unsafe {
            let p = alloc(layout);
            assert!(
                !p.is_null() && p as usize % layout.align() == 0,
                "{layout:?}"
            );
            p.write_bytes(i as u8, size);
            for &(q, l) in &live {
                assert!(
                    p as usize + size <= q || q + l.size() <= p as usize,
                    "overlap"
                );
            }
            live.push((p as usize, layout));
            if x % 3 == 0 {
                let (q, l) = live.swap_remove((x as usize / 3) % live.len());
                dealloc(q as *mut u8, l);
            }
        }
    }
    // SAFETY: as above.
    unsafe {
        for (q, l) in live.drain(..) {
            dealloc(q as *mut u8, l);
        }
        let l = Layout::from_size_align(100, 8).unwrap();
        let p = alloc(l);
        p.write_bytes(7, 100);
        let grown = realloc(p, l, 10_000);
        assert!((0..100).all(|i| *grown.add(i) == 7));
        let l2 = Layout::from_size_align(10_000, 8).unwrap();
        dealloc(grown, l2);
        assert_eq!(
            alloc(l2),
            grown,
            "a freed block serves the next request of its size"
        );
        dealloc(grown, l2);
    }
}
