//! The app state and its link: any sequence of form actions gives a state whose URL query
//! decodes back to the same scenario, pinned A and chart, with no notices.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::app::charts::ChartKind;
use paracalc::app::state::{Action, State};
use paracalc::presets::{MODEL_PRESETS, NETWORK_PRESETS};
use paracalc::scenario::{FieldId, Kind, Value, FIELDS, GPU_PRESETS};
use proptest::prelude::*;

/// The fields a number input edits.
fn numeric() -> Vec<FieldId> {
    FIELDS
        .iter()
        .filter(|f| f.range().is_some())
        .map(|f| f.id)
        .collect()
}

/// The fields edited by selects, switches and text inputs.
fn other() -> Vec<FieldId> {
    FIELDS
        .iter()
        .filter(|f| f.range().is_none())
        .map(|f| f.id)
        .collect()
}

/// A value for a non-numeric field as its control would send it: an option of a choice (or
/// empty), a switch (or its default), typed text, a typed stage list.
fn control_value(id: FieldId, text: &str, i: usize, b: bool) -> Value<'static> {
    let def = id.def();
    match def.kind {
        Kind::Choice(all) => all
            .get(i % (all.len() + 1))
            .map_or(Value::Unset, |x| Value::text_of(x)),
        Kind::Bool if def.optional && i % 3 == 0 => Value::Unset,
        Kind::Bool => Value::Bool(b),
        Kind::List { .. } => {
            let digits: String = text
                .chars()
                .filter(|c| c.is_ascii_digit() || *c == ',')
                .collect();
            def.parse(&digits).map_or(Value::Unset, Value::into_owned)
        }
        _ => def.parse(text).map_or(Value::Unset, Value::into_owned),
    }
}

fn arb_action() -> impl Strategy<Value = Action> {
    prop_oneof![
        4 => (prop::sample::select(numeric()), prop_oneof![
            Just(None),
            (1u32..=4096).prop_map(|v| Some(f64::from(v))),
            (0.001f64..1e6).prop_map(Some),
        ])
            .prop_map(|(id, v)| Action::SetNum(id, v)),
        4 => (prop::sample::select(other()), "[ -~]{0,30}", 0usize..8, any::<bool>())
            .prop_map(|(id, text, i, b)| Action::Set(id, control_value(id, &text, i, b))),
        1 => any::<bool>().prop_map(Action::SetMoe),
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
