//! The app rendered to HTML natively (Yew server-side rendering): the shell, the form values
//! taken from the URL query, and the chart canvas. Effects (drawing, URL writes) do not run here;
//! tests/web.rs covers them in a browser.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::app::{App, AppProps, State};

fn render(query: &str) -> String {
    let props = AppProps {
        initial: State::from_query(query),
    };
    futures::executor::block_on(yew::LocalServerRenderer::<App>::with_props(props).render())
}

/// The `<input>` element with this id, as rendered.
fn input<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!(r#"id="{id}""#))
        .unwrap_or_else(|| panic!("no #{id} in {html}"));
    let start = html[..at].rfind('<').unwrap();
    let end = at + html[at..].find('>').unwrap();
    &html[start..=end]
}

#[test]
fn renders_header_form_and_chart_from_the_query() {
    let html = render("?layers=30&pp=4");
    assert!(html.contains("<h1>paracalc</h1>"), "{html}");
    assert!(html.contains("Model and pipeline"), "{html}");

    let layers = input(&html, "layers");
    assert!(layers.starts_with("<input"), "{layers}");
    assert!(layers.contains(r#"value="30""#), "{layers}");
    assert!(input(&html, "pp").contains(r#"value="4""#), "{html}");

    // 30 layers on 4 stages: 7 + 8 + 8 + 7 (engine::layout puts the 2 extra in the middle).
    assert!(
        html.contains("30 layers on 4 stages: 7 to 8 per stage"),
        "{html}"
    );
    let canvas = input(&html, "chart-stage-layers");
    assert!(canvas.starts_with("<canvas"), "{canvas}");
    assert!(canvas.contains(r#"width="720""#) && canvas.contains(r#"height="320""#));
    // The default scenario with pp 4 (256 GPUs) is valid: no issue list.
    assert!(!html.contains(r#"class="issues""#), "{html}");
}

#[test]
fn bare_url_renders_the_default_scenario() {
    let html = render("");
    assert!(input(&html, "layers").contains(r#"value="96""#), "{html}");
    assert!(input(&html, "pp").contains(r#"value="16""#), "{html}");
    assert!(
        html.contains("96 layers on 16 stages: 6 per stage"),
        "{html}"
    );
}

#[test]
fn invalid_scenario_lists_the_problem_by_field() {
    // 3 layers on 4 stages leaves a stage without layers (and 3 + 2 = 5 is no multiple of 4,
    // so the NeMo embedding/loss rule does not apply either).
    let html = render("layers=3&pp=4");
    assert!(
        html.contains("3 layers on 4 stages: 0 to 1 per stage"),
        "{html}"
    );
    assert!(html.contains(r#"class="issues""#), "{html}");
    assert!(
        html.contains("<code>parallel.pp</code>: 3 layers cannot fill 4 pipeline stages"),
        "{html}"
    );
}
