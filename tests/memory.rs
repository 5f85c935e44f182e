//! Memory engine: published vectors, hand-computed framework formulas, public measurements and
//! properties over random scenarios.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::engine::{estimate, Estimate};
use paracalc::scenario::{self, Scenario};

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

fn cases() -> Vec<serde_json::Value> {
    serde_json::from_str(include_str!("data/public.json")).expect("public.json")
}

/// Predicted memory of a case in GiB, compared as the case measured it (validation README):
/// `device_used` → the whole device (total incl. CUDA context and NCCL buffers);
/// `allocator_reserved` → what the caching allocator holds.
fn predicted_gib(e: &Estimate, kind: &str) -> f64 {
    let st = &e.memory.stages;
    let pick = |f: &dyn Fn(&paracalc::engine::StageMemory) -> f64| {
        st.iter().map(f).fold(0.0_f64, f64::max) / GIB
    };
    match kind {
        "allocator_reserved" => pick(&|m| m.allocator_reserved_bytes()),
        _ => pick(&|m| m.total_bytes),
    }
}

#[test]
fn public_memory_cases() {
    let mut errs = Vec::new();
    let mut oom = 0;
    for c in cases() {
        let id = c["id"].as_str().unwrap().to_string();
        let m = &c["measured"];
        let s: Scenario = scenario::from_value(&c["scenario"]).unwrap();
        let e = estimate(&s).unwrap();
        if m["oom"].as_bool() == Some(true) {
            oom += 1;
            println!(
                "{id:55} OOM  predicted peak {:.1} GiB of {:.1}: fits={}",
                e.memory.peak_bytes / GIB,
                e.memory.capacity_bytes / GIB,
                e.memory.fits
            );
            assert!(!e.memory.fits, "{id} must not fit");
            continue;
        }
        let Some(meas) = m["memory_gib"].as_f64() else {
            continue;
        };
        let kind = m["memory_kind"].as_str().unwrap_or("device_used");
        let pred = predicted_gib(&e, kind);
        let err = 100.0 * (pred - meas) / meas;
        let st = &e.memory.stages[e.memory.peak_stage as usize];
        println!(
            "{id:55} {kind:18} meas {meas:6.1} pred {pred:6.1} err {err:+6.1}%  [stage {} w {:.1} g {:.1} o {:.1} a {:.1} buf {:.1} other {:.1}]",
            st.stage,
            st.weights_bytes / GIB,
            st.gradients_bytes / GIB,
            st.optimizer_bytes / GIB,
            st.activations_bytes / GIB,
            st.other_buffers_bytes / GIB,
            st.other_bytes / GIB
        );
        errs.push((id, err));
    }
    let mape = errs.iter().map(|(_, e)| e.abs()).sum::<f64>() / errs.len() as f64;
    println!(
        "memory cases {} MAPE {mape:.2}%  OOM cases {oom}",
        errs.len()
    );
    assert_eq!(errs.len(), 41);
    assert_eq!(oom, 3);
}
