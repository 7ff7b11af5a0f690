//! Properties of `Call::parse` on the standard surface: it never panics (arbitrary names and
//! arguments, JSON-shaped or not), and on shell_session it accepts exactly what the `jsonschema`
//! crate accepts for the strict per-action union.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::{Value, json};
use toolsurface::standard::{Call, Family, Role, Tool};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|n| json!(n)),
        "[a-z_]{0,12}".prop_map(Value::String),
        ".{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Keys drawn mostly from real field and selector names, so the walk gets past the first check.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "action", "mode", "session_id", "host_id", "chars", "keys", "peek", "offset", "timeout_s",
            "until_output", "cols", "rows", "watcher_id", "path", "device", "content", "limit",
            "channel", "view", "message_id", "field", "before", "after", "command", "cmd", "dirs",
            "target", "patch", "create_only", "overwrite", "expected_sha256", "confirm_token",
        ]).prop_map(str::to_owned),
        1 => "[a-z_]{0,10}",
    ]
}

fn action_args() -> impl Strategy<Value = Value> {
    let action = prop::sample::select(vec![
        "poll", "wait", "kill", "list", "resize", "unwatch", "bogus",
    ]);
    let field = prop::sample::select(vec![
        "session_id",
        "host_id",
        "chars",
        "keys",
        "peek",
        "offset",
        "timeout_s",
        "until_output",
        "cols",
        "rows",
        "watcher_id",
    ]);
    let value = prop_oneof![
        (-5i64..400).prop_map(|n| json!(n)),
        (-1.0f64..400.0).prop_map(|n| json!(n)),
        prop::sample::select(vec!["", "x", "ready", "C-c"]).prop_map(|s| json!(s)),
        Just(json!(["C-c"])),
        Just(json!(true)),
    ];
    (action, prop::collection::vec((field, value), 0..5)).prop_map(|(a, fields)| {
        let mut m = serde_json::Map::new();
        m.insert("action".into(), json!(a));
        for (k, v) in fields {
            m.insert(k.into(), v);
        }
        Value::Object(m)
    })
}

fn names() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(Tool::ALL.to_vec()).prop_map(|t| t.as_str().to_owned()),
        1 => prop::sample::select(vec!["shell_poll", "ssh_read_file", "get_current_time", "list_models"]).prop_map(str::to_owned),
        1 => ".{0,16}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_values(name in names(), args in json_value(), r in 0..Role::ALL.len(), f in 0..Family::ALL.len()) {
        let _ = Call::parse(Role::ALL[r], Family::ALL[f], &name, &args);
        let _ = Call::parse(Role::ALL[r], Family::ALL[f], &name, args.to_string());
    }

    #[test]
    fn never_panics_on_text(name in names(), text in ".{0,64}") {
        for family in Family::ALL {
            let _ = Call::parse(Role::Main, family, &name, text.as_str());
        }
    }

    #[test]
    fn agrees_with_jsonschema_on_shell_session(args in action_args()) {
        let ours = Call::parse(Role::SideChat, Family::Chat, "shell_session", &args);
        let theirs = validator().is_valid(&args);
        prop_assert_eq!(ours.is_ok(), theirs, "{} -> {:?}", args, ours);
    }
}

fn validator() -> &'static jsonschema::Validator {
    static V: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-defs");
        let ir = toolsurface_compiler::compile(&toolsurface_compiler::read_dir(&root).unwrap())
            .ir
            .unwrap();
        let schema =
            toolsurface_compiler::codegen::union::strict_union(ir.tool("shell_session").unwrap());
        jsonschema::validator_for(&schema).unwrap()
    })
}

/// serde_json's reading of `text` as the walk's value type (the reference for the fast path).
fn serde_val(text: &str) -> Option<toolsurface::__private::Val<'_>> {
    use serde::Deserialize as _;
    let mut de = serde_json::Deserializer::from_str(text);
    let v = toolsurface::__private::Val::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    /// The fast scanner either gives up or reads exactly what serde_json reads.
    #[test]
    fn scanner_agrees_with_serde(v in json_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
        let fast = toolsurface::__private::scan(&text);
        // It gives up only on escapes and integers too long to be sure of.
        let long_int = text.split(|c: char| !c.is_ascii_digit()).any(|run| run.len() > 18);
        prop_assert!(fast.is_some() || text.contains('\\') || long_int, "gave up on {}", text);
        if let Some(fast) = fast {
            let slow = serde_val(&text).unwrap();
            prop_assert!(same(&fast, &slow), "{:?} vs {:?}", fast, slow);
        }
    }

    #[test]
    fn scanner_never_accepts_what_serde_refuses(text in "[\\[\\]{}:,\" 0-9a-z.eE+\\-\\\\\t\n]{0,24}") {
        if let Some(fast) = toolsurface::__private::scan(&text) {
            let slow = serde_val(&text);
            prop_assert!(slow.as_ref().is_some_and(|slow| same(&fast, slow)), "{:?}: {:?} vs {:?}", text, fast, slow);
        }
    }
}

/// Equal values; floats within a relative 1e-15 (serde_json's default float parser is not
/// always correctly rounded in the last place; the scanner's is).
fn same(a: &toolsurface::__private::Val, b: &toolsurface::__private::Val) -> bool {
    use toolsurface::__private::Val;
    match (a, b) {
        (Val::Float(x), Val::Float(y)) => x == y || (x - y).abs() <= 1e-15 * x.abs().max(y.abs()),
        (Val::Arr(x), Val::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Val::Obj(x), Val::Obj(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
        }
        _ => a == b,
    }
}

/// Arguments a provider in strict mode sends: every shell_session field, the unused ones null.
fn strict_args() -> impl Strategy<Value = Value> {
    (action_args(), any::<bool>()).prop_map(|(mut v, all)| {
        if let Value::Object(m) = &mut v {
            for f in [
                "session_id",
                "host_id",
                "chars",
                "keys",
                "peek",
                "offset",
                "timeout_s",
                "until_output",
                "cols",
                "rows",
                "watcher_id",
            ] {
                if all || f.len() % 2 == 0 {
                    m.entry(f).or_insert(Value::Null);
                }
            }
        }
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    /// The text form goes through the one-pass decoder (falling back to the walk); a
    /// `serde_json::Value` always takes the walk. Both give the same typed call or the same
    /// refusal, word for word.
    #[test]
    fn decoder_agrees_with_walk(
        (name, args) in prop_oneof![
            (names(), json_value()),
            (Just("shell_session".to_owned()), action_args()),
            (Just("shell_session".to_owned()), strict_args()),
        ],
        r in 0..Role::ALL.len(),
        f in 0..Family::ALL.len(),
        side_chat in any::<bool>(),
        pretty in any::<bool>(),
    ) {
        // Half the time where shell_session is offered, so its calls get past the scope.
        let (role, family) = if side_chat { (Role::SideChat, Family::Chat) } else { (Role::ALL[r], Family::ALL[f]) };
        // A freeform tool takes a text as its raw input, not as JSON.
        let freeform = name.parse::<Tool>().ok().and_then(|t| t.freeform_field(family)).is_some();
        prop_assume!(!freeform);
        let text = if pretty { serde_json::to_string_pretty(&args).unwrap() } else { args.to_string() };
        let via_text = Call::parse(role, family, &name, text.as_str());
        let via_value = Call::parse(role, family, &name, &args);
        match (&via_text, &via_value) {
            (Ok(a), Ok(b)) => prop_assert_eq!(
                serde_json::to_value(a).unwrap(),
                serde_json::to_value(b).unwrap(),
                "{}", text
            ),
            (Err(a), Err(b)) => prop_assert_eq!(a, b, "{}", text),
            _ => prop_assert!(false, "{}: text {:?} vs value {:?}", text, via_text, via_value),
        }
    }
}
