//! Unit tests of the patch format: how text becomes hunks (the structure the file tests
//! cannot see) and how hunks apply to text. The end-to-end table, local and over ssh, is
//! runtime/tests/files_patch.rs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn update_chunks(patch: &str) -> Vec<Chunk> {
    match parse_patch(patch).map(|p| p.ops) {
        Ok(ops) => match ops.as_slice() {
            [PatchOp::Update { chunks, .. }] => chunks.clone(),
            other => panic!("expected one Update, got {other:?}"),
        },
        Err(e) => panic!("{e}"),
    }
}

fn ctx(s: &str) -> HunkLine {
    HunkLine::Context(s.into())
}
fn add(s: &str) -> HunkLine {
    HunkLine::Add(s.into())
}
fn remove(s: &str) -> HunkLine {
    HunkLine::Remove(s.into())
}

#[test]
fn parses_all_operations_and_the_device_line() {
    let p = parse_patch(
        "*** Begin Patch\n*** Device: nas\n*** Add File: a.txt\n+hi\n*** Update File: b.txt\n\
         *** Move to: c.txt\n@@ fn main\n-x\n+y\n*** Delete File: d.txt\n*** End Patch\n",
    );
    let p = p.as_ref().map_err(String::as_str);
    assert!(matches!(p, Ok(Patch { device: Some(d), ops }) if d == "nas" && ops.len() == 3));
}

#[test]
fn a_chunk_ends_at_its_end_of_file_marker() {
    let chunks = update_chunks(
        "*** Begin Patch\n*** Update File: f.txt\n@@\n+quux\n*** End of File\n\n*** End Patch",
    );
    assert_eq!(
        chunks,
        vec![Chunk {
            context: vec![],
            lines: vec![add("quux")],
            end_of_file: true,
        }]
    );
}

#[test]
fn blank_lines_ending_a_hunk_separate_and_blank_lines_inside_are_context() {
    let chunks = update_chunks(
        "*** Begin Patch\n*** Update File: f\n a\n\n-b\n+B\n\n\n@@ g\n-c\n+C\n\n*** End Patch",
    );
    assert_eq!(chunks.len(), 2);
    assert_eq!(
        chunks[0].lines,
        vec![ctx("a"), ctx(""), remove("b"), add("B")]
    );
    assert_eq!(chunks[1].context, vec!["g".to_string()]);
    assert_eq!(chunks[1].lines, vec![remove("c"), add("C")]);
}

#[test]
fn successive_at_lines_narrow_one_hunk() {
    let chunks = update_chunks(
        "*** Begin Patch\n*** Update File: f\n@@ class A\n\n@@ def f\n-x\n+y\n*** End Patch",
    );
    assert_eq!(chunks.len(), 1);
    assert_eq!(
        chunks[0].context,
        vec!["class A".to_string(), "def f".to_string()]
    );
    assert_eq!(chunks[0].lines, vec![remove("x"), add("y")]);
}

#[test]
fn inside_a_hunk_a_leading_space_makes_a_context_line() {
    let chunks = update_chunks(
        "*** Begin Patch\n*** Update File: f\n-x\n+y\n *** Delete File: g\n*** End Patch",
    );
    assert_eq!(
        chunks[0].lines,
        vec![remove("x"), add("y"), ctx("*** Delete File: g")]
    );
    // while a tab-padded header (no hunk line starts with a tab) ends the hunk
    let p = parse_patch(
        "*** Begin Patch\n*** Update File: f\n-x\n+y\n\t*** Delete File: g\n*** End Patch",
    );
    assert!(
        matches!(p, Ok(Patch { ref ops, .. }) if ops.len() == 2),
        "{p:?}"
    );
}

#[test]
fn errors_name_the_patch_line_counting_from_the_first_line_given() {
    let err = parse_patch("\n\n*** Begin Patch\n*** Update File: f\n-x\nbogus\n*** End Patch");
    assert!(
        matches!(&err, Err(e) if e.starts_with("line 6:")),
        "{err:?}"
    );
    let err = parse_patch(
        "<<'EOF'\n*** Begin Patch\n*** Update File: f\n@@\n*** End of File\n*** End Patch\nEOF",
    );
    assert!(
        matches!(&err, Err(e) if e.starts_with("line 4:") && e.contains("no lines")),
        "{err:?}"
    );
}

#[test]
fn applies_hunks_in_order() {
    let chunks = vec![Chunk {
        context: vec![],
        lines: vec![remove("b"), add("B"), add("b2")],
        end_of_file: false,
    }];
    assert_eq!(
        apply_chunks("a\nb\nc\n", &chunks),
        Ok("a\nB\nb2\nc\n".into())
    );
}

#[test]
fn a_pure_addition_goes_below_its_context_line_or_at_the_end() {
    let below = vec![Chunk {
        context: vec!["a".into()],
        lines: vec![add("x")],
        end_of_file: false,
    }];
    assert_eq!(apply_chunks("a\nb\n", &below), Ok("a\nx\nb\n".into()));
    let at_end = vec![Chunk {
        context: vec![],
        lines: vec![add("x")],
        end_of_file: false,
    }];
    assert_eq!(apply_chunks("a\nb\n", &at_end), Ok("a\nb\nx\n".into()));
    assert_eq!(apply_chunks("", &at_end), Ok("x\n".into()));
}

#[test]
fn an_append_at_the_end_does_not_move_the_search_for_the_next_hunk() {
    // Issue 29: append at the end, then change an earlier line.
    let patch = "*** Begin Patch\n*** Update File: f\n@@\n+tail\n*** End of File\n@@\n-b\n+B\n*** End Patch";
    let chunks = update_chunks(patch);
    assert_eq!(
        apply_chunks("a\nb\nc\n", &chunks),
        Ok("a\nB\nc\ntail\n".into())
    );
    // Without the marker too (a pure addition without `@@` text goes at the end).
    let unmarked = vec![
        Chunk {
            context: vec![],
            lines: vec![add("tail")],
            end_of_file: false,
        },
        Chunk {
            context: vec![],
            lines: vec![remove("a"), add("A")],
            end_of_file: false,
        },
    ];
    assert_eq!(apply_chunks("a\nb\n", &unmarked), Ok("A\nb\ntail\n".into()));
    // Two appends keep the patch's order.
    let two = vec![
        Chunk {
            context: vec![],
            lines: vec![add("x")],
            end_of_file: true,
        },
        Chunk {
            context: vec![],
            lines: vec![add("y")],
            end_of_file: true,
        },
    ];
    assert_eq!(apply_chunks("a\n", &two), Ok("a\nx\ny\n".into()));
    // A hunk that is not anchored at the end still moves the search on.
    let ordered = vec![
        Chunk {
            context: vec![],
            lines: vec![remove("b"), add("B")],
            end_of_file: false,
        },
        Chunk {
            context: vec![],
            lines: vec![remove("a"), add("A")],
            end_of_file: false,
        },
    ];
    let err = apply_chunks("a\nb\n", &ordered).unwrap_err();
    assert_eq!(err.hunk, 2, "{err:?}");
}

#[test]
fn two_hunks_changing_the_same_lines_are_refused_as_ambiguous() {
    let chunks = vec![
        Chunk {
            context: vec![],
            lines: vec![remove("c"), add("C")],
            end_of_file: true,
        },
        Chunk {
            context: vec![],
            lines: vec![remove("c"), add("c2")],
            end_of_file: false,
        },
    ];
    let err = apply_chunks("a\nb\nc\n", &chunks).unwrap_err();
    assert_eq!(err.hunk, 2);
    assert!(err.message.contains("ambiguous"), "{}", err.message);
    assert!(err.message.contains("hunk 1"), "{}", err.message);
}

/// runtime/tests/data/apply_patch_syntax.json is shared with the grammar test
/// (tests/python/test_sdk_schemas.py): each case says whether the parser takes it, and
/// whether the published Lark grammar does (with a note wherever the two differ).
#[test]
fn the_shared_syntax_cases_parse_as_labelled() {
    let cases: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/data/apply_patch_syntax.json")).unwrap();
    let cases = cases.as_array().unwrap();
    assert!(
        cases.len() > 30,
        "the shared syntax table is unexpectedly short"
    );
    let mut wrong = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let patch = case["patch"].as_str().unwrap();
        let accepted = parse_patch(patch);
        if accepted.is_ok() != case["parser"].as_bool().unwrap() {
            wrong.push(format!("{name}: {accepted:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
