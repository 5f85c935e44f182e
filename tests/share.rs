//! Share links: round trip over random scenarios, golden links that must decode the same forever,
//! and hostile links that must give notices, never panics.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use paracalc::presets::{self, model_preset, MODEL_PRESETS};
use paracalc::scenario::{
    self, CustomGpu, FfnAct, GpuChoice, GpuSpec, Moe, PeakTflops, Precision, Recompute, Scenario,
    Schedule, GPU_PRESETS,
};
use paracalc::share::{self, Chart, Pinned, ShareError, View, MAX_LINK_BYTES, MAX_NOTICES};
use proptest::prelude::*;
use serde_json::{json, Value};

// ------------------------------------------------------------------------------------------------
// Random valid scenarios (every field inside its per-field limits)
// ------------------------------------------------------------------------------------------------

fn safe_char(c: &char) -> bool {
    !(c.is_control()
        || matches!(*c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
}

/// Any text without control characters, up to `n` chars (so at most 4n bytes ≤ 200 for n ≤ 50).
fn label(n: usize) -> BoxedStrategy<String> {
    prop_oneof![
        Just(String::new()),
        "[A-Za-z0-9 .+&=%#?/<>\"'-]{1,20}",
        proptest::collection::vec(any::<char>(), 0..n)
            .prop_map(|v| v.into_iter().filter(safe_char).collect::<String>()),
    ]
    .boxed()
}

/// Small values most of the time, the whole range sometimes.
fn count(max: u64) -> BoxedStrategy<u64> {
    prop_oneof![3 => 1..=64u64.min(max), 1 => 1..=max].boxed()
}

/// A positive finite number up to `max`, including awkward ones (tiny, non-round, huge).
fn pos(max: f64) -> BoxedStrategy<f64> {
    prop_oneof![
        (1u32..=1000).prop_map(move |x| f64::from(x).min(max)),
        (1e-6f64..max),
        Just(max),
        Just(f64::MIN_POSITIVE),
        (0.1f64..10.0).prop_map(|x| x / 3.0),
    ]
    .boxed()
}

fn opt<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    prop_oneof![Just(None), s.prop_map(Some)].boxed()
}

fn arb_custom_gpu() -> BoxedStrategy<CustomGpu> {
    (
        (label(12), label(12)),
        (
            opt(pos(1e7)),
            opt(pos(1e7)),
            opt(pos(1e7)),
            opt(pos(1e7)),
            opt(pos(1e7)),
            opt(pos(1e7)),
        ),
        (pos(1e6), opt(pos(1e6)), pos(1e6)),
        (
            opt(pos(1e6)),
            count(1_000_000),
            opt(pos(1e6)),
            opt(pos(1e6)),
        ),
    )
        .prop_map(
            |(
                (id, name),
                (fp32, tf32, fp16, bf16, fp8, fp4),
                (hbm, usable, hbm_bw),
                (nv, dom, nic, pcie),
            )| {
                CustomGpu {
                    id,
                    name,
                    spec: GpuSpec {
                        peak_tflops: PeakTflops {
                            fp32,
                            tf32,
                            fp16,
                            bf16,
                            fp8,
                            fp4,
                        },
                        hbm_gib: hbm,
                        usable_gib: usable,
                        hbm_gbps: hbm_bw,
                        nvlink_gbps: nv,
                        nvlink_domain_gpus: dom,
                        nic_gbps: nic,
                        pcie_gbps: pcie,
                        host_link_gbps: pcie,
                        sfu_exp_per_s: None,
                        attn_peak_tflops: None,
                        sms: None,
                    },
                }
            },
        )
        .boxed()
}

fn arb_scenario() -> BoxedStrategy<Scenario> {
    let model = (
        (
            label(12),
            count(100_000),
            count(10_000_000),
            count(10_000_000),
            opt(count(10_000_000)),
            opt(count(80_000_000)),
        ),
        (
            prop::sample::select(FfnAct::ALL.to_vec()),
            count(100_000_000),
            count(1_000_000_000),
            any::<bool>(),
            opt((count(1_000_000), count(1_000_000), count(80_000_000))),
        ),
    )
        .boxed();
    let training = (
        count(10_000_000_000),
        count(10_000_000_000),
        prop::sample::select(Precision::ALL.to_vec()),
        prop::sample::select(Recompute::ALL.to_vec()),
        any::<bool>(),
        opt(pos(1e18)),
    )
        .boxed();
    let parallel = (
        (count(100_000_000), count(100_000_000), count(100_000_000)),
        (count(100_000_000), count(100_000_000), count(100_000)),
        (
            any::<bool>(),
            0u8..=3,
            opt(prop::sample::select(Schedule::ALL.to_vec())),
        ),
        (
            opt(proptest::collection::vec(1..=100_000u64, 1..16)),
            opt(pos(1e7)),
            opt(any::<bool>()),
            opt(any::<bool>()),
        ),
    )
        .boxed();
    let cluster = (
        prop_oneof![
            3 => prop::sample::select(GPU_PRESETS.iter().map(|g| g.id).collect::<Vec<_>>())
                .prop_map(|id| GpuChoice::Preset(id.to_string())),
            1 => arb_custom_gpu().prop_map(GpuChoice::Custom),
        ],
        count(100_000_000),
        count(1_000_000),
        (
            opt(pos(1e6)),
            opt(pos(1e6)),
            opt(prop_oneof![Just(0.0), pos(1e6)]),
        ),
    )
        .boxed();
    let overhead = (
        opt(prop_oneof![Just(0.0), pos(1e4)]),
        opt(prop_oneof![Just(0.0), pos(1e4)]),
        opt(prop_oneof![Just(0.0), pos(100.0)]),
    )
        .boxed();
    // The calibration factors within their bounds (`scenario::Calibration`).
    let calibration = (
        opt(0.25f64..=1.35),
        opt(0.25f64..=2.0),
        opt(0.1f64..=1.2),
        opt(-16.0f64..=64.0),
    )
        .boxed();
    (
        0..MODEL_PRESETS.len(),
        model,
        training,
        parallel,
        cluster,
        overhead,
        calibration,
    )
        .prop_map(|(base, m, t, p, c, o, k)| {
            // Start from a preset so equal-to-preset values are common too.
            let mut s = MODEL_PRESETS[base].scenario();
            let ((name, layers, hidden, heads, kv, ffn), (act, vocab, seq, tied, moe)) = m;
            if base % 2 == 0 {
                s.model.name = name;
                s.model.layers = layers;
                s.model.hidden = hidden;
                s.model.heads = heads;
                s.model.kv_heads = kv;
                s.model.ffn_hidden = ffn;
                s.model.ffn_act = act;
                s.model.vocab = vocab;
                s.model.seq_len = seq;
                s.model.tied_embeddings = tied;
                s.model.moe = moe.map(|(experts, top_k, f)| Moe::new(experts, top_k, f));
            }
            let (gb, mb, prec, rc, flash, tokens) = t;
            s.training.global_batch = gb;
            s.training.micro_batch = mb;
            s.training.precision = prec;
            s.training.recompute = rc;
            s.training.flash_attention = flash;
            s.training.train_tokens = tokens;
            let ((tp, pp, dp), (cp, ep, vp), (sp, zero, sched), (lps, bucket, tpov, dpov)) = p;
            s.parallel.tp = tp;
            s.parallel.pp = pp;
            s.parallel.dp = dp;
            s.parallel.cp = cp;
            s.parallel.ep = ep;
            s.parallel.vp = vp;
            s.parallel.sp = sp;
            s.parallel.zero_stage = zero;
            s.parallel.schedule = sched;
            s.parallel.layers_per_stage = lps;
            s.parallel.bucket_mb = bucket;
            s.parallel.tp_comm_overlap = tpov;
            s.parallel.dp_comm_overlap = dpov;
            let (gpu, n, gpn, (intra, inter, price)) = c;
            s.cluster.gpu = gpu;
            s.cluster.num_gpus = n;
            s.cluster.gpus_per_node = gpn;
            s.cluster.intra_node_gbps = intra;
            s.cluster.inter_node_gbps = inter;
            s.cluster.price_per_gpu_hour = price;
            let (ctx, comm, reserve) = o;
            s.overhead.cuda_context_gib = ctx;
            s.overhead.comm_buffers_gib = comm;
            s.overhead.allocator_reserve_pct = reserve;
            let (compute, attention, network, memory_gib) = k;
            s.calibration.compute = compute;
            s.calibration.attention = attention;
            s.calibration.network = network;
            s.calibration.memory_gib = memory_gib;
            s
        })
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// decode(encode(s)) == s for every in-range scenario, from any preset, with no notices.
    #[test]
    fn round_trip(s in arb_scenario(), p in 0..MODEL_PRESETS.len()) {
        let preset = MODEL_PRESETS[p].id;
        let q = share::encode(&s, preset);
        prop_assert!(q.len() <= MAX_LINK_BYTES, "{} bytes: {q}", q.len());
        let d = share::decode(&q).unwrap();
        prop_assert!(d.notices.is_empty(), "{q}\n{:?}", d.notices);
        prop_assert_eq!(&d.scenario, &s, "{}", q);
        prop_assert_eq!(d.preset, preset);
        // Encoding is deterministic and canonical.
        prop_assert_eq!(share::encode(&d.scenario, preset), q);
    }

    /// With a pinned A and view keys, behind a whole URL with a fragment.
    #[test]
    fn round_trip_with_view(b in arb_scenario(), a in arb_scenario(), pb in 0..MODEL_PRESETS.len(),
                            pa in 0..MODEL_PRESETS.len(), chart in opt(prop::sample::select(Chart::ALL.to_vec())),
                            embed in opt(prop::sample::select(Chart::ALL.to_vec()))) {
        let view = View {
            chart,
            embed,
            pinned: Some(Pinned { scenario: a.clone(), preset: MODEL_PRESETS[pa].id }),
        };
        let q = share::encode_with_view(&b, MODEL_PRESETS[pb].id, &view);
        let url = format!("https://example.org/tools/paracalc/?{q}#results");
        prop_assume!(url.len() <= MAX_LINK_BYTES);
        let d = share::decode(&url).unwrap();
        prop_assert!(d.notices.is_empty(), "{:?}", d.notices);
        prop_assert_eq!(d.scenario, b);
        prop_assert_eq!(d.view, view);
    }

    /// A link lists only what differs: changing one field of a preset adds exactly one key.
    #[test]
    fn only_differences(p in 0..MODEL_PRESETS.len(), tp in 1..=1024u64, gbs in 1..=100_000u64) {
        let preset = &MODEL_PRESETS[p];
        let mut s = preset.scenario();
        prop_assert_eq!(share::encode(&s, preset.id), format!("v=1&model={}", preset.id));
        let mut expect = format!("v=1&model={}", preset.id);
        if gbs != s.training.global_batch {
            expect.push_str(&format!("&gbs={gbs}"));
        }
        if tp != s.parallel.tp {
            expect.push_str(&format!("&tp={tp}"));
        }
        s.parallel.tp = tp;
        s.training.global_batch = gbs;
        prop_assert_eq!(share::encode(&s, preset.id), expect);
    }

    /// Arbitrary text never panics; notices are bounded and printable; whatever was decoded is
    /// inside the per-field limits (only cross-field rules may fail validation).
    #[test]
    fn arbitrary_text_never_panics(text in prop_oneof![
        any::<String>(),
        proptest::collection::vec(any::<u8>(), 0..600).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        key_soup(),
    ]) {
        check_hostile(&text)?;
    }
}

/// Random `key=value` lists over the real keys and nasty values.
fn key_soup() -> impl Strategy<Value = String> {
    let keys = common::link_keys(&[
        "v",
        "model",
        "a.model",
        "chart",
        "embed",
        "a.tp",
        "a.gpu.mem",
        "amp;tp",
        "TP",
        "%74p",
    ]);
    let value = prop_oneof![
        "[0-9]{0,25}",
        "-?[0-9]{1,3}(\\.[0-9]{0,3})?(e[+-]?[0-9]{1,4})?",
        Just("NaN".to_string()),
        Just("inf".to_string()),
        Just("%FF%FE".to_string()),
        Just("%".to_string()),
        Just("%G0".to_string()),
        Just("<script>alert(1)</script>".to_string()),
        Just("%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E".to_string()),
        Just("%1B%5B31mred".to_string()),
        Just("custom".to_string()),
        Just("1,2,,3".to_string()),
        prop::sample::select(common::model_preset_ids()),
        prop::sample::select(common::gpu_preset_ids()),
        any::<String>(),
    ];
    proptest::collection::vec(
        (
            prop::sample::select(keys),
            value,
            prop_oneof![Just("="), Just(""), Just("==")],
        ),
        0..40,
    )
    .prop_map(|kv| {
        let parts: Vec<String> = kv
            .into_iter()
            .map(|(k, v, eq)| format!("{k}{eq}{v}"))
            .collect();
        format!("?{}", parts.join("&"))
    })
}

fn check_hostile(text: &str) -> Result<(), TestCaseError> {
    match share::decode(text) {
        Err(ShareError::TooLong { bytes }) => prop_assert!(bytes > MAX_LINK_BYTES),
        Ok(d) => {
            prop_assert!(d.notices.len() <= MAX_NOTICES);
            for n in &d.notices {
                prop_assert!(n.key.chars().count() <= 41, "{n}");
                prop_assert!(
                    !n.key
                        .chars()
                        .chain(n.message.chars())
                        .any(|c| c.is_control()),
                    "{n:?}"
                );
                prop_assert!(n.message.len() < 2000, "{n}");
            }
            for s in std::iter::once(&d.scenario).chain(d.view.pinned.as_ref().map(|p| &p.scenario))
            {
                if let Err(e) = s.validate() {
                    for i in &e.issues {
                        let per_field = i.message.contains("supported maximum")
                            || i.message.contains("must be")
                            || i.message.contains("control characters")
                            || i.message.contains("allowed")
                            || i.message.contains("unknown GPU");
                        prop_assert!(!per_field, "{text:?} decoded to an out-of-range value: {i}");
                    }
                }
                // Whatever was decoded encodes and decodes to itself.
                let q = share::encode(s, d.preset);
                if q.len() <= MAX_LINK_BYTES {
                    let again = share::decode(&q).unwrap();
                    prop_assert!(again.notices.is_empty(), "{q}: {:?}", again.notices);
                    prop_assert_eq!(&again.scenario, s);
                }
            }
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Golden links: these must decode to exactly these scenarios forever (see share.rs docs).
// ------------------------------------------------------------------------------------------------

fn golden() -> Vec<Value> {
    serde_json::from_str(include_str!("data/share_golden.json")).expect("share_golden.json is JSON")
}

#[test]
fn golden_links_decode_forever() {
    let cases = golden();
    assert!(
        cases.len() >= 40,
        "golden file lost entries: {}",
        cases.len()
    );
    for case in &cases {
        let link = case["link"].as_str().unwrap();
        let d = share::decode(link).unwrap_or_else(|e| panic!("{link}: {e}"));
        assert_eq!(
            Ok(&d.scenario),
            scenario::from_value(&case["scenario"]).as_ref(),
            "scenario of {link}"
        );
        assert_eq!(
            d.preset,
            case["preset"].as_str().unwrap(),
            "preset of {link}"
        );
        let keys: Vec<&str> = d.notices.iter().map(|n| n.key.as_str()).collect();
        let want: Vec<&str> = case["notices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        assert_eq!(keys, want, "notices of {link}: {:?}", d.notices);
        assert_eq!(
            d.view.chart.map(Chart::as_str),
            case["chart"].as_str(),
            "{link}"
        );
        assert_eq!(
            d.view.embed.map(Chart::as_str),
            case["embed"].as_str(),
            "{link}"
        );
        match (&d.view.pinned, &case["pinned"]) {
            (None, Value::Null) => {}
            (Some(p), want) => {
                assert_eq!(p.preset, want["preset"].as_str().unwrap(), "{link}");
                assert_eq!(
                    Ok(&p.scenario),
                    scenario::from_value(&want["scenario"]).as_ref(),
                    "{link}"
                );
            }
            (None, want) => panic!("{link}: expected a pinned A {want}"),
        }
    }
}

#[test]
fn golden_links_cover_every_preset() {
    let cases = golden();
    for p in MODEL_PRESETS {
        let link = format!("v=1&model={}", p.id);
        assert!(
            cases.iter().any(|c| c["link"] == link.as_str()),
            "no golden link pins preset {}; add `{link}` to tests/data/share_golden.json",
            p.id
        );
    }
}

/// The DESIGN.md example, with the expected scenario written out by hand from the Llama 3 paper
/// (Table 3: 80 layers, dim 8192, FFN 28672, 64 heads, 8 KV heads, vocab 128256) and the
/// dgxc-benchmarking 64-GPU layout (TP4 PP4 CP2 DP2 VP5, GBS 128) — then tp=8, pp=4 applied.
#[test]
fn design_example_link() {
    let d = share::decode("?v=1&model=llama3-70b&tp=8&pp=4").unwrap();
    assert!(d.notices.is_empty());
    let want = json!({
        "model": {"name": "Llama 3 70B", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
                  "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192,
                  "tied_embeddings": false, "moe": null},
        "training": {"global_batch": 128, "micro_batch": 1, "precision": "bf16", "optimizer": "adam",
                     "recompute": "none", "flash_attention": true, "train_tokens": 15e12,
                     "grad_reduce_in_fp32": false},
        "parallel": {"tp": 8, "pp": 4, "dp": 2, "cp": 2, "ep": 1, "vp": 5, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 64, "gpus_per_node": 8}
    });
    assert_eq!(Ok(&d.scenario), scenario::from_value(&want).as_ref());
    // tp 8 × pp 4 × dp 2 × cp 2 = 128 ≠ 64 GPUs: the link carries it, validation names the field.
    let e = d.scenario.validate().unwrap_err();
    assert_eq!(e.issues[0].field, "cluster.num_gpus");
}

// ------------------------------------------------------------------------------------------------
// Hostile and broken links
// ------------------------------------------------------------------------------------------------

fn notice_keys(link: &str) -> Vec<String> {
    share::decode(link)
        .unwrap()
        .notices
        .into_iter()
        .map(|n| n.key)
        .collect()
}

#[test]
fn markup_in_the_name_is_plain_text() {
    let d = share::decode("v=1&model=gpt3-175b&name=%3Cscript%3Ealert(%22x%22)%3C%2Fscript%3E")
        .unwrap();
    assert!(d.notices.is_empty());
    assert_eq!(d.scenario.model.name, "<script>alert(\"x\")</script>");
    // Re-encoding escapes every markup character.
    let q = share::encode(&d.scenario, "gpt3-175b");
    assert_eq!(
        q,
        "v=1&model=gpt3-175b&name=%3Cscript%3Ealert%28%22x%22%29%3C%2Fscript%3E"
    );
    assert!(!q.contains(['<', '>', '"', '\'']));
}

#[test]
fn control_characters_are_refused() {
    // An ANSI escape (ESC [ 31 m) and a right-to-left override in names fall back, with notices.
    let d = share::decode("model=llama2-7b&name=%1B%5B31mred&gpu.name=abc%E2%80%AEgnp").unwrap();
    assert_eq!(d.scenario.model.name, "Llama 2 7B");
    let keys: Vec<&str> = d.notices.iter().map(|n| n.key.as_str()).collect();
    assert_eq!(keys, ["name", "gpu.name"]);
    // gpu.name failed, so the GPU stayed the preset.
    assert_eq!(
        d.scenario.cluster.gpu,
        GpuChoice::Preset("h100-sxm5-80gb".into())
    );
}

#[test]
fn huge_numbers_fall_back_with_a_notice() {
    let d = share::decode(
        "v=1&model=llama3-8b&gpus=99999999999999999999999&seq=1e400&tokens=1e999&gbs=18446744073709551616&intra=1e7&tp=100000001",
    )
    .unwrap();
    let keys: Vec<&str> = d.notices.iter().map(|n| n.key.as_str()).collect();
    // Notices come in table order.
    assert_eq!(keys, ["seq", "gbs", "tokens", "tp", "gpus", "intra"]);
    assert_eq!(d.scenario, model_preset("llama3-8b").unwrap().scenario());
    let gbs = &d.notices[1];
    assert!(
        gbs.message
            .contains("expected a whole number from 1 to 10000000000"),
        "{gbs}"
    );
    assert!(gbs.message.contains("kept \"128\""), "{gbs}");
}

#[test]
fn wrong_types_fall_back_with_a_notice() {
    let keys = notice_keys(
        "v=1&model=mixtral-8x7b&tp=eight&sp=maybe&prec=fp4&recompute=some&act=relu&lps=4,x&zero=4&gpu=tpu-v5&tokens=NaN&bucket=-5&price=inf",
    );
    assert_eq!(
        keys,
        [
            "act",
            "prec",
            "recompute",
            "tokens",
            "tp",
            "sp",
            "zero",
            "lps",
            "bucket",
            "gpu",
            "price"
        ]
    );
}

#[test]
fn unknown_keys_versions_presets_and_charts_are_reported() {
    let d = share::decode("v=7&model=gpt5-100t&foo=1&tp=2&bar&a.nope=3&embed=pie&chart=memory")
        .unwrap();
    let keys: Vec<&str> = d.notices.iter().map(|n| n.key.as_str()).collect();
    assert_eq!(keys, ["v", "model", "embed", "foo", "bar", "a.nope"]);
    assert_eq!(d.preset, presets::DEFAULT_MODEL_PRESET);
    assert_eq!(d.scenario.parallel.tp, 2);
    assert_eq!(d.view.chart, Some(Chart::Memory));
    assert_eq!(d.view.embed, None);
    assert!(d.notices[0].message.contains("newer"), "{}", d.notices[0]);
    // `a.nope` made an A appear (from the same preset), with nothing changed.
    assert_eq!(
        d.view.pinned.unwrap().scenario,
        d.scenario.clone().tap_tp(1)
    );
}

trait TapTp {
    fn tap_tp(self, tp: u64) -> Self;
}
impl TapTp for Scenario {
    fn tap_tp(mut self, tp: u64) -> Self {
        self.parallel.tp = tp;
        self
    }
}

#[test]
fn repeated_keys_use_the_last_value() {
    let d = share::decode("tp=2&tp=4&TP=8").unwrap();
    assert_eq!(d.scenario.parallel.tp, 8);
    assert_eq!(d.notices.len(), 2);
}

#[test]
fn very_long_links_are_rejected_with_a_message() {
    let long = format!("v=1&model=llama3-8b&name={}", "x".repeat(MAX_LINK_BYTES));
    let e = share::decode(&long).unwrap_err();
    assert_eq!(e, ShareError::TooLong { bytes: long.len() });
    assert!(e.to_string().contains("at most 4096 bytes"), "{e}");
    // At the limit: a thousand repeats of one unknown key give a bounded list of notices.
    let spam = "x=1&".repeat(MAX_LINK_BYTES / 4);
    assert_eq!(spam.len(), MAX_LINK_BYTES);
    let d = share::decode(&spam).unwrap();
    assert_eq!(d.notices.len(), MAX_NOTICES);
    let many: String = (0..800).map(|i| format!("k{i}=1&")).collect();
    let d = share::decode(&many[..MAX_LINK_BYTES.min(many.len())]).unwrap();
    assert_eq!(d.notices.len(), MAX_NOTICES);
    assert!(d.notices[MAX_NOTICES - 1].message.contains("more problems"));
}

#[test]
fn partial_and_odd_inputs() {
    for (text, tp) in [
        ("", 1),
        ("?", 1),
        ("https://example.org/", 1),
        ("https://example.org/app?", 1),
        ("v=1&model=llama3-70b&tp=8&pp", 8),
        ("  ?v=1&amp;model=llama3-70b&amp;tp=8  ", 8),
        ("v=1&model=llama3-70b&tp=8#tp=2", 8),
        ("&&&v=1&&model=llama3-70b&&", 4),
        ("%", 1),
        ("=&=&==", 1),
        // A `?` inside a hand-typed value is not the start of the query.
        ("model=llama3-70b&name=why?&tp=8", 8),
    ] {
        let d = share::decode(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(d.scenario.parallel.tp, tp, "{text:?}: {:?}", d.notices);
    }
    // `pp` without a value is a wrong type, reported.
    assert_eq!(notice_keys("v=1&model=llama3-70b&tp=8&pp"), ["pp"]);
}

#[test]
fn custom_gpu_starts_from_the_named_gpu() {
    let d =
        share::decode("model=llama3-8b&gpu=a100-sxm4-80gb&gpu.mem=96&gpu.name=A100+96GB").unwrap();
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let GpuChoice::Custom(c) = &d.scenario.cluster.gpu else {
        panic!("not custom")
    };
    let a100 = paracalc::scenario::gpu_preset("a100-sxm4-80gb")
        .unwrap()
        .spec;
    assert_eq!(c.spec.hbm_gib, 96.0);
    assert_eq!(c.name, "A100 96GB");
    assert_eq!(c.spec.peak_tflops, a100.peak_tflops);
    assert_eq!(c.spec.hbm_gbps, a100.hbm_gbps);
    // And it encodes back to the same keys relative to the preset's GPU (H100): every number
    // that differs from the H100 is written.
    let q = share::encode(&d.scenario, "llama3-8b");
    assert!(
        q.starts_with("v=1&model=llama3-8b&gpu=custom&gpu.name=A100+96GB&"),
        "{q}"
    );
    assert_eq!(share::decode(&q).unwrap().scenario, d.scenario);
}

#[test]
fn moe_can_be_switched_on_and_off() {
    let d = share::decode("model=llama2-7b&experts=8&ep=8").unwrap();
    assert!(d.notices.is_empty());
    // Defaults when switching MoE on: top-2, expert FFN = the dense FFN (11008).
    assert_eq!(d.scenario.model.moe, Some(Moe::new(8, 2, 11008)));
    d.scenario.validate().unwrap();
    let d = share::decode("model=mixtral-8x7b&experts=0&ep=1").unwrap();
    assert_eq!(d.scenario.model.moe, None);
    // top-k without experts is reported.
    assert_eq!(notice_keys("model=llama2-7b&topk=2"), ["topk"]);
}

/// Every field of the scenario JSON has a link key (so a new field cannot silently be dropped
/// from links): walk the JSON of a scenario with every optional field set.
#[test]
fn every_scenario_field_has_a_key() {
    let mut s = model_preset("mixtral-8x7b").unwrap().scenario();
    s.training.train_tokens = Some(1e12);
    s.parallel.schedule = Some(Schedule::Interleaved);
    s.parallel.layers_per_stage = Some(vec![8, 8, 8, 8]);
    s.parallel.bucket_mb = Some(40.0);
    s.parallel.tp_comm_overlap = Some(true);
    s.parallel.dp_comm_overlap = Some(false);
    s.cluster.intra_node_gbps = Some(1.0);
    s.cluster.inter_node_gbps = Some(1.0);
    s.cluster.price_per_gpu_hour = Some(1.0);
    s.overhead.cuda_context_gib = Some(1.0);
    s.overhead.comm_buffers_gib = Some(1.0);
    s.overhead.allocator_reserve_pct = Some(1.0);
    let mut c = match share::decode(
        "gpu=custom&gpu.usable=1&gpu.nvlink=1&gpu.nic=1&gpu.pcie=1&gpu.fp8=1&gpu.fp32=1&gpu.tf32=1",
    )
    .unwrap()
    .scenario
    .cluster
    .gpu
    {
        GpuChoice::Custom(c) => c,
        GpuChoice::Preset(_) => panic!("not custom"),
    };
    c.id = "x".into();
    s.cluster.gpu = GpuChoice::Custom(c);
    let v = common::json_of(&s);
    let mut paths = Vec::new();
    leaves(&v, String::new(), &mut paths);
    let covered: Vec<&str> = share::key_table().map(|(_, p)| p).collect();
    for p in &paths {
        assert!(
            covered.contains(&p.as_str()),
            "scenario field {p} has no share-link key"
        );
    }
    assert!(paths.len() >= 55, "{paths:?}");
}

fn leaves(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                leaves(x, p, out);
            }
        }
        _ => out.push(path),
    }
}

#[test]
fn gradient_dtype_key_round_trips() {
    // `gradfp32=0`: NeMo's performance recipes (bf16 gradient buffer); absent = default (fp32).
    let d = share::decode("v=1&model=gpt3-175b&gradfp32=0").unwrap();
    assert!(d.notices.is_empty());
    assert_eq!(d.scenario.training.grad_reduce_in_fp32, Some(false));
    let link = share::encode(&d.scenario, "gpt3-175b");
    assert_eq!(link, "v=1&model=gpt3-175b&gradfp32=0");
    let d = share::decode("v=1&model=gpt3-175b").unwrap();
    assert_eq!(d.scenario.training.grad_reduce_in_fp32, None);
    // The Llama 3 presets are NeMo performance-recipe runs: bf16 gradients by default, and
    // `gradfp32=1` asks for the fp32 buffer.
    let d = share::decode("v=1&model=llama3-8b").unwrap();
    assert_eq!(d.scenario.training.grad_reduce_in_fp32, Some(false));
    let d = share::decode("v=1&model=llama3-8b&gradfp32=1").unwrap();
    assert_eq!(d.scenario.training.grad_reduce_in_fp32, Some(true));
}
