//! introspect's targets are declared once, in tool-defs/tools/introspect.yaml (the `target`
//! field's pattern, which `Call::parse` enforces, and its description, which the model reads);
//! the runtime answers them through its `IntrospectTarget`. This test holds the two equal,
//! alternative by alternative, so a target added on one side only fails here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::host_support;

use toolsurface_compiler::ir::Type;
use toolsurface_runtime::core::IntrospectTarget;

/// The introspect tool's `target` field: its pattern and description, found by the
/// `implements:` type (not by the tool's name, which the YAML may change).
fn declared_target() -> (String, String) {
    let ir = host_support::standard_ir();
    let tool = ir
        .tools
        .iter()
        .find(|t| t.implements.as_deref() == Some("toolsurface_runtime::call::Introspect"))
        .expect("a tool implements the runtime's Introspect");
    let field = tool.field("target").expect("introspect has a target field");
    let Type::String {
        pattern: Some(pattern),
        ..
    } = &field.ty
    else {
        panic!(
            "introspect's target is a string with a pattern: {:?}",
            field.ty
        );
    };
    (pattern.clone(), field.description.source.clone())
}

/// A concrete target for a spelling or a pattern alternative (`llm:<provider>` and
/// `llm:[A-Za-z0-9]…` both become `llm:openai`).
fn sample(spelling: &str) -> String {
    match spelling.find(['<', '[']) {
        Some(at) => format!("{}openai", &spelling[..at]),
        None => spelling.to_owned(),
    }
}

#[test]
fn every_runtime_target_is_declared_and_every_declared_target_is_answered() {
    let (pattern, description) = declared_target();
    let regex = regex::Regex::new(&pattern).unwrap();
    for target in IntrospectTarget::ALL {
        let text = sample(target.spelling());
        assert!(
            regex.is_match(&text),
            "the runtime answers {text:?} but introspect.yaml's pattern {pattern} refuses it"
        );
        assert!(
            description.contains(target.spelling()),
            "introspect.yaml's description does not mention {}: {description}",
            target.spelling()
        );
        assert_eq!(IntrospectTarget::parse(&text).map(|(t, _)| t), Some(target));
    }
    let alternatives = pattern
        .strip_prefix("^(?:")
        .and_then(|p| p.strip_suffix(")$"))
        .expect("the pattern is ^(?:a|b|…)$");
    let mut answered = Vec::new();
    for alternative in alternatives.split('|') {
        let text = sample(alternative);
        assert!(regex.is_match(&text), "{text:?} from {alternative}");
        let (target, _) = IntrospectTarget::parse(&text).unwrap_or_else(|| {
            panic!("introspect.yaml accepts {text:?}, which the runtime does not answer")
        });
        answered.push(target);
    }
    assert_eq!(answered, IntrospectTarget::ALL, "same targets, same order");
}
