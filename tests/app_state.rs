//! The app state and its link: any sequence of form actions gives a state whose URL query
//! decodes back to the same scenario, pinned A and chart, with no notices.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::app::charts::ChartKind;
use paracalc::app::state::{Action, Num, State};
use paracalc::presets::{MODEL_PRESETS, NETWORK_PRESETS};
use paracalc::scenario::{FfnAct, Precision, Recompute, Schedule, GPU_PRESETS};
use proptest::prelude::*;

const NUMS: &[Num] = Num::ALL;

fn arb_action() -> impl Strategy<Value = Action> {
    prop_oneof![
        4 => (0..NUMS.len(), prop_oneof![
            Just(None),
            (1u32..=4096).prop_map(|v| Some(f64::from(v))),
            (0.001f64..1e6).prop_map(Some),
        ])
            .prop_map(|(i, v)| Action::SetNum(NUMS[i], v)),
        1 => "[ -~]{0,30}".prop_map(Action::SetName),
        1 => prop::sample::select(FfnAct::ALL.to_vec()).prop_map(Action::SetAct),
        1 => any::<bool>().prop_map(Action::SetTied),
        1 => any::<bool>().prop_map(Action::SetMoe),
        1 => prop::sample::select(Precision::ALL.to_vec()).prop_map(Action::SetPrecision),
        1 => prop::sample::select(Recompute::ALL.to_vec()).prop_map(Action::SetRecompute),
        1 => any::<bool>().prop_map(Action::SetFlash),
        1 => any::<bool>().prop_map(Action::SetSp),
        1 => (0u8..=3).prop_map(Action::SetZero),
        1 => prop::option::of(prop::sample::select(Schedule::ALL.to_vec())).prop_map(Action::SetSchedule),
        1 => "[0-9, ]{0,12}".prop_map(Action::SetLayersPerStage),
        1 => prop::option::of(any::<bool>()).prop_map(Action::SetTpOverlap),
        1 => prop::option::of(any::<bool>()).prop_map(Action::SetGradFp32),
        1 => prop::option::of(any::<bool>()).prop_map(Action::SetDpOverlap),
        1 => prop_oneof![
            Just("custom".to_string()),
            (0..GPU_PRESETS.len()).prop_map(|i| GPU_PRESETS[i].id.to_string()),
        ].prop_map(Action::SetGpu),
        1 => (0..NETWORK_PRESETS.len()).prop_map(|i| Action::ApplyNetwork(NETWORK_PRESETS[i].id.into())),
        1 => (0..MODEL_PRESETS.len()).prop_map(|i| Action::LoadPreset(MODEL_PRESETS[i].id.into())),
        1 => Just(Action::FixDp),
        1 => Just(Action::FixGpus),
        1 => Just(Action::FixGlobalBatch),
        1 => Just(Action::Pin),
        1 => Just(Action::Unpin),
        1 => Just(Action::Swap),
        1 => prop::sample::select(ChartKind::ALL.to_vec()).prop_map(Action::SelectChart),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_edit_sequence_round_trips_through_the_link(actions in prop::collection::vec(arb_action(), 0..25)) {
        let mut st = State::default();
        for a in actions {
            st.apply(a);
            // The estimate never panics, whatever the form did.
            let _ = paracalc::engine::estimate(&st.scenario);
        }
        let q = st.to_query();
        prop_assume!(q.len() <= paracalc::share::MAX_LINK_BYTES);
        let back = State::from_query(&q);
        prop_assert!(back.notices.is_empty(), "{q}: {:?}", back.notices);
        prop_assert_eq!(&back.scenario, &st.scenario, "{}", q);
        prop_assert_eq!(
            back.pinned.as_ref().map(|p| &p.scenario),
            st.pinned.as_ref().map(|p| &p.scenario)
        );
        prop_assert_eq!(back.chart, st.chart);
        // Re-encoding is stable.
        prop_assert_eq!(back.to_query(), q);
    }
}
