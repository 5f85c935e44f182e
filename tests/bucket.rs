//! One gradient bucket (issue 32): the memory model, the time model, the bucket chart, the
//! advice and the Megatron-LM export read one size (`engine::plan::bucket_of`) and agree on the default
//! preset at every ZeRO stage.

use paracalc::app::charts::input::Chart;
use paracalc::app::components::charts_panel::bucket_chart;
use paracalc::engine::advice::{candidates, Change};
use paracalc::engine::estimate;
use paracalc::engine::plan::bucket_of;
use paracalc::presets::default_model_preset;

#[test]
fn memory_time_chart_advice_and_export_agree_on_the_bucket() {
    for zero in 0..=3u8 {
        let mut s = default_model_preset().scenario();
        s.parallel.zero_stage = zero;
        assert!(
            s.parallel.dp > 1,
            "the default preset reduces over data parallelism"
        );
        let e = estimate(&s).expect("the default preset is valid at every ZeRO stage");
        let b = bucket_of(&s);
        assert!(b.bytes > 0.0);

        // Time: the reduction is cut into buckets of this size.
        assert_eq!(e.time.dp_bucket_bytes, b.bytes, "time, ZeRO {zero}");

        // The chart marks it.
        let Some(Chart::Bucket(input)) = bucket_chart(&s, &e) else {
            panic!("a bucket chart, ZeRO {zero}");
        };
        assert_eq!(input.current_mb, Some(b.bytes / 1e6), "chart, ZeRO {zero}");

        // The advice tries a quarter and four times it.
        let tried: Vec<f64> = candidates(&s)
            .into_iter()
            .filter_map(|c| match c {
                Change::BucketMb { mb } => Some(mb),
                _ => None,
            })
            .collect();
        assert_eq!(
            tried,
            [(b.mb() / 4.0).round(), (b.mb() * 4.0).round()],
            "advice, ZeRO {zero}"
        );

        // Memory: ZeRO-2 holds one bucket of unsharded gradients (below the stage's gradients
        // here); ZeRO 0/1 reduce views of the gradient buffer and hold none.
        let other = e.memory.stages()[0].other_buffers_bytes;
        match zero {
            0 | 1 => assert_eq!(other, 0.0, "memory, ZeRO {zero}"),
            2 => assert_eq!(other, b.bytes, "memory, ZeRO {zero}"),
            _ => {} // ZeRO-3 holds gathered modules, not a bucket
        }

        // The export asks Megatron-LM for it, in gradient elements; FSDP2 (ZeRO-3) has none.
        let args = paracalc::megatron::launch_args(&s);
        let flag = args
            .lines()
            .find_map(|l| l.strip_prefix("--ddp-bucket-size "))
            .map(|v| {
                v.trim_end_matches(" \\")
                    .parse::<f64>()
                    .expect("a whole number")
            });
        match zero {
            3 => assert_eq!(flag, None, "export, ZeRO 3"),
            _ => assert_eq!(
                flag.map(|n| n * b.grad_bytes),
                Some(b.bytes),
                "export, ZeRO {zero}"
            ),
        }
    }
}

#[test]
fn the_default_bucket_follows_the_framework_and_the_reduced_dtype() {
    let mut s = default_model_preset().scenario();
    s.parallel.zero_stage = 1;
    // Megatron DDP: max(4·10⁷, 10⁶·dp·cp) main gradients, bf16 in this preset (the NeMo
    // recipes' grad_reduce_in_fp32 = false): 80 MB; fp32 by default: 160 MB.
    let b = bucket_of(&s);
    assert_eq!((b.grad_bytes, b.bytes), (2.0, 4e7 * 2.0));
    s.training.grad_reduce_in_fp32 = Some(true);
    let b = bucket_of(&s);
    assert_eq!((b.grad_bytes, b.bytes), (4.0, 4e7 * 4.0));
    // 64 data-parallel ranks × cp 2 = 128 ranks: 1.28·10⁸ elements.
    s.parallel.dp = 64;
    s.cluster.num_gpus = 128;
    assert_eq!(s.parallel.cp, 2);
    assert_eq!(bucket_of(&s).bytes, 128e6 * 4.0);
    // ZeRO-2: DeepSpeed's reduce_bucket_size of 5·10⁸ 16-bit gradients.
    s.parallel.zero_stage = 2;
    let b = bucket_of(&s);
    assert_eq!((b.grad_bytes, b.bytes), (2.0, 5e8 * 2.0));
    // A stated bucket wins.
    s.parallel.bucket_mb = Some(25.0);
    assert_eq!(bucket_of(&s).bytes, 25e6);
}
