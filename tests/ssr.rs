//! The app rendered to HTML natively (Yew server-side rendering): the four form groups with
//! units and help, the key numbers, notices from a bad link (as text), A/B comparison, and the
//! embed shell without any form. Effects (drawing, URL writes, postMessage) do not run here;
//! tests/web.rs covers them in a browser.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::app::{App, AppProps, EmbedApp, EmbedAppProps, State};
use paracalc::engine::estimate;
use paracalc::presets::model_preset;

fn render(query: &str) -> String {
    let props = AppProps {
        initial: State::from_query(query),
    };
    futures::executor::block_on(yew::LocalServerRenderer::<App>::with_props(props).render())
}

fn render_embed(query: &str) -> String {
    let props = EmbedAppProps {
        state: State::from_query(query),
    };
    futures::executor::block_on(yew::LocalServerRenderer::<EmbedApp>::with_props(props).render())
}

/// The element (start tag) with this id.
fn tag<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!(r#"id="{id}""#))
        .unwrap_or_else(|| panic!("no #{id} in {html}"));
    let start = html[..at].rfind('<').unwrap();
    let end = at + html[at..].find('>').unwrap();
    &html[start..=end]
}

/// The text after the element with this id, up to the next `</div>` (a field's whole block).
fn block<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html.find(&format!(r#"id="{id}""#)).unwrap();
    let end = at + html[at..].find("</div></div>").unwrap_or(html.len() - at);
    &html[at..end]
}

#[test]
fn four_groups_with_units_help_and_values() {
    let html = render("?v=1&model=gpt3-175b");
    for (group, legend) in [
        ("group-model", "Model"),
        ("group-training", "Training"),
        ("group-parallel", "Parallel layout"),
        ("group-cluster", "Cluster"),
    ] {
        assert!(html.contains(&format!(r#"id="{group}""#)), "{group}");
        assert!(
            html.contains(&format!("<legend>{legend}</legend>")),
            "{legend}"
        );
    }
    // GPT-3 175B (Brown et al. 2020 Table 2.1): 96 layers, hidden 12288, 96 heads.
    let layers = tag(&html, "model-layers");
    assert!(
        layers.starts_with("<input") && layers.contains(r#"value="96""#),
        "{layers}"
    );
    assert!(tag(&html, "model-hidden").contains(r#"value="12288""#));
    // Each number field has its unit and a help line.
    for (id, unit) in [
        ("model-layers", "layers"),
        ("model-seq_len", "tokens"),
        ("training-global_batch", "sequences"),
        ("parallel-tp", "GPUs"),
        ("parallel-pp", "stages"),
        ("cluster-num_gpus", "GPUs"),
        ("cluster-inter_node_gbps", "GB/s"),
        ("cluster-price_per_gpu_hour", "$/GPU·h"),
        ("training-train_tokens", "tokens"),
    ] {
        let b = block(&html, id);
        assert!(
            b.contains(&format!(r#"class="unit">{unit}</span>"#)),
            "{id}: {b}"
        );
        assert!(
            html.contains(&format!(r#"id="{id}-hint" class="hint">"#)),
            "{id} help"
        );
    }
    // Choices and toggles exist.
    for id in [
        "model-ffn_act",
        "model-tied_embeddings",
        "model-moe",
        "training-precision",
        "training-recompute",
        "training-flash_attention",
        "parallel-sp",
        "parallel-zero_stage",
        "parallel-schedule",
        "parallel-layers_per_stage",
        "parallel-tp_comm_overlap",
        "parallel-dp_comm_overlap",
        "cluster-gpu",
        "cluster-network",
        "overhead-cuda_context_gib",
        "preset",
        "copy-link",
        "open-embed",
        "pin",
    ] {
        assert!(html.contains(&format!(r#"id="{id}""#)), "no #{id}");
    }
    // The layout uses exactly the cluster: 8·16·8·1 = 1024 GPUs.
    assert!(
        html.contains("tp 8 × pp 16 × dp 8 × cp 1 = 1024 GPUs ✓"),
        "{html}"
    );
}

#[test]
fn key_numbers_match_the_engine() {
    let html = render("?v=1&model=gpt3-175b&tokens=3e11&price=2");
    let s = model_preset("gpt3-175b").unwrap().scenario();
    let mut s2 = s.clone();
    s2.training.train_tokens = Some(3e11);
    s2.cluster.price_per_gpu_hour = Some(2.0);
    let e = estimate(&s2).unwrap();
    let mfu = format!("{:.1} %", e.throughput.mfu * 100.0);
    assert!(block(&html, "key-mfu").contains(&mfu), "{mfu}");
    for id in [
        "key-step",
        "key-tokens",
        "key-hfu",
        "key-memory",
        "key-fits",
        "key-train-time",
        "key-gpu-hours",
        "key-cost",
    ] {
        assert!(html.contains(&format!(r#"id="{id}""#)), "no #{id}");
    }
    assert!(block(&html, "key-tokens").contains("tokens/s"));
    assert!(
        block(&html, "key-memory").contains("GiB of 80.0 GiB"),
        "{}",
        block(&html, "key-memory")
    );
    assert!(block(&html, "key-cost").contains("$\u{a0}"));
}

#[test]
fn out_of_memory_is_red() {
    // GPT-3 175B on one pipeline stage and tp 1: ~175e9 params × 18 B/param ≫ 80 GiB.
    let html = render("?v=1&model=gpt3-175b&tp=1&pp=1&dp=512&gpus=512&zero=0&recompute=full");
    assert!(
        tag(&html, "key-fits").contains("oom"),
        "{}",
        tag(&html, "key-fits")
    );
    assert!(block(&html, "key-fits").contains("OOM:"));
    assert!(tag(&html, "key-memory").contains("oom"));
}

#[test]
fn errors_are_shown_at_their_field() {
    // tp 7 divides neither 96 heads nor the GPU count.
    let html = render("?v=1&model=gpt3-175b&tp=7");
    let tp = block(&html, "parallel-tp");
    assert!(tag(&html, "parallel-tp").contains(r#"aria-invalid="true""#));
    assert!(
        tp.contains(r#"class="error""#) && tp.contains("does not divide"),
        "{tp}"
    );
    assert!(html.contains(r#"id="issues""#));
    assert!(html.contains(r##"href="#parallel-tp""##));
    // The layout helper offers the fixes: 7·16·8 = 896 GPUs ≠ 1024.
    assert!(
        html.contains(r#"id="fix-gpus""#) && html.contains("Use 896 GPUs"),
        "{html}"
    );
    assert!(html.contains("problems in the inputs"));
}

#[test]
fn a_batch_that_does_not_split_offers_the_nearest_one() {
    // mbs 5 × dp 16 = 80 sequences per micro-batch round; 1536 / 80 = 19.2 → 19 × 80 = 1520.
    let html = render("?v=1&model=gpt3-175b&tp=4&dp=16&mbs=5");
    assert!(tag(&html, "training-global_batch").contains(r#"aria-invalid="true""#));
    assert!(
        block(&html, "fix-gbs").contains("Set global batch = 1520"),
        "{html}"
    );
}

#[test]
fn hostile_link_shows_notices_as_text() {
    let html = render("?v=1&model=%3Cimg%20src=x%3E&name=%3Cscript%3Ealert(1)%3C/script%3E&tp=99999999999999999999999&zz%3Cb%3E=1");
    assert!(html.contains(r#"id="link-notices""#), "{html}");
    assert!(!html.contains("<script>") && !html.contains("<img src=x>") && !html.contains("<b>"));
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "name as text"
    );
    assert!(html.contains("unknown model preset"));
    assert!(html.contains("<code>tp</code>"));
    // The page is all there.
    assert!(html.contains(r#"id="summary""#) && html.contains(r#"id="group-cluster""#));
}

#[test]
fn pinned_a_shows_the_comparison() {
    let html = render("?v=1&model=llama3-70b&mbs=2&a.model=llama3-70b");
    assert!(html.contains(r#"id="compare""#), "{html}");
    assert!(html.contains("A (pinned)") && html.contains("B (current)"));
    assert!(html.contains(r#"id="cmp-step""#) && html.contains(r#"id="cmp-mfu""#));
    // The one difference, highlighted.
    let diffs = block(&html, "compare-diffs");
    assert!(
        diffs.contains("training.micro_batch") && diffs.contains(r#"class="changed""#),
        "{diffs}"
    );
    // Named as in the form, with the field path beside it.
    assert!(diffs.contains("Micro-batch<br>"), "{diffs}");
    assert!(html.contains("1 input differs"));
}

#[test]
fn embed_shows_one_chart_a_summary_and_no_form() {
    let html = render_embed("?v=1&model=llama3-70b&embed=memory");
    assert!(html.contains(r#"id="embed""#), "{html}");
    assert!(!html.contains("<form") && !html.contains("<input") && !html.contains("<select"));
    assert!(!html.contains("site-header") && !html.contains("toolbar"));
    assert_eq!(html.matches("<canvas").count(), 1, "{html}");
    let line = block(&html, "summary");
    assert!(line.contains("tokens/s") && line.contains("MFU"), "{line}");
    // "open in paracalc": the same link without embed.
    let open = tag(&html, "open-full");
    assert!(
        open.contains(r#"href="./?v=1&amp;model=llama3-70b""#),
        "{open}"
    );
    assert!(!open.contains("embed="));
}

#[test]
fn embed_of_a_bad_link_still_renders() {
    let html = render_embed("?embed=time&tp=abc&gpus=-1");
    assert!(html.contains(r#"id="embed""#));
    assert!(html.contains("part(s) of this link were ignored"), "{html}");
}

#[test]
fn the_verdict_and_the_fixes_render_from_the_engine() {
    use paracalc::engine::advice::{closest_fitting, verdict};
    // A fitting plan: the verdict line and a Try it per suggestion, no fixes card.
    let q = "?v=1&model=gpt3-175b";
    let s = State::from_query(q).scenario;
    let v = verdict(&s, &estimate(&s).unwrap());
    let html = render(q);
    assert!(html.contains(r#"id="verdict-line""#) && html.contains("Verdict: "));
    assert_eq!(html.matches(r#"class="try""#).count(), v.suggestions.len());
    assert!(!html.contains(r#"id="fixes""#));
    // Defined terms: a help link per tile and the definitions card.
    assert!(html.contains(r##"href="#help-mfu""##) && html.contains(r#"id="help-flops""#));
    // A plan that does not fit: greyed speed tiles, the overflow and the fitting layouts.
    let q = "?v=1&model=llama3-70b&tp=4&pp=1&dp=16&cp=1&vp=1";
    let s = State::from_query(q).scenario;
    let html = render(q);
    assert!(html.contains("If it fit: ") && html.contains(r#"id="if-fit-note""#));
    assert!(tag(&html, "key-step").contains("if-fit"));
    let near = closest_fitting(&s, 3);
    assert_eq!(html.matches(r#"id="fix-"#).count(), near.len());
    assert!(
        html.contains(&near[0].describe(&s).replace('>', "&gt;"))
            || html.contains(&near[0].describe(&s))
    );
}

#[test]
fn every_field_of_the_table_has_a_form_input() {
    // Every optional section on: MoE, MLA, FP8, flash attention (its kernel), ZeRO, a custom GPU.
    let html = render(
        "?v=1&model=gpt3-175b&experts=8&ep=8&mla.kv=512&prec=fp8&flash=1&zero=1&gpu=h100-sxm5-80gb&gpu.mem=96&recompute=selective",
    );
    // Fields a form does not edit: the optimizer has a fixed select; a custom GPU's id, name and
    // PCIe figure are carried by links and JSON only.
    let not_in_form = [
        "cluster.gpu.id",
        "cluster.gpu.name",
        "cluster.gpu.pcie_gbps",
    ];
    for f in paracalc::scenario::FIELDS {
        if not_in_form.contains(&f.path) {
            continue;
        }
        let id = f.input_id();
        assert!(
            html.contains(&format!(r#"id="{id}""#)),
            "no form input for {} (#{id})",
            f.path
        );
    }
}
