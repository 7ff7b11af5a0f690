//! apply_patch end to end, as one table run twice: on this machine, and with `device`
//! against the real test sshd (support/sshd.rs). Each case names the files before, the
//! patch, and either every file after or the refusal (then every file must be unchanged
//! and no file added): the end-of-file bug, empty hunks, the leniencies models rely on,
//! line ends, and the deliberate differences docs/apply-patch.md states.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use support::contract::{Side, ctx, model_err, ok};
use support::sshd::ALIAS;
use toolsurface_runtime::call::HandlerResult;
use toolsurface_runtime::files::ApplyPatch;

/// What a case expects.
enum Outcome {
    /// Applied; every file of the case folder afterwards (path, content).
    Applied(&'static [(&'static str, &'static str)]),
    /// Refused with an error containing this; nothing changed.
    Refused(&'static str),
}
use Outcome::{Applied, Refused};

struct Case {
    name: &'static str,
    /// Files of the case folder before the patch (path, content).
    before: &'static [(&'static str, &'static str)],
    /// The patch; `{d}` stands for the case folder (absolute).
    patch: &'static str,
    outcome: Outcome,
}

const FOO_BAR_BAZ: &[(&str, &str)] = &[("f.txt", "foo\nbar\nbaz\n")];

/// The table. Patches are written as models write them; `\r` and odd characters are
/// spelled out.
const CASES: &[Case] = &[
    // 1. The end-of-file bug, with the exact inputs.
    Case {
        name: "eof_insertion_followed_by_a_blank_line_lands_at_the_end",
        before: FOO_BAR_BAZ,
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n@@\n+quux\n*** End of File\n\n*** End Patch",
        outcome: Applied(&[("f.txt", "foo\nbar\nbaz\nquux\n")]),
    },
    Case {
        name: "added_line_then_blank_line_then_end_patch_lands_at_the_end",
        before: FOO_BAR_BAZ,
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n@@\n+x\n\n*** End Patch",
        outcome: Applied(&[("f.txt", "foo\nbar\nbaz\nx\n")]),
    },
    Case {
        name: "added_line_then_blank_line_without_at_at_lands_at_the_end",
        before: FOO_BAR_BAZ,
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n+x\n\n*** End Patch\n",
        outcome: Applied(&[("f.txt", "foo\nbar\nbaz\nx\n")]),
    },
    Case {
        name: "a_trailing_blank_patch_line_never_matches_a_blank_line_of_the_file",
        before: &[("f.txt", "foo\n\nbar\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n@@\n+x\n\n\n*** End Patch",
        outcome: Applied(&[("f.txt", "foo\n\nbar\nx\n")]),
    },
    Case {
        name: "eof_hunk_with_old_lines_applies_at_the_end",
        before: FOO_BAR_BAZ,
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n@@\n bar\n-baz\n+BAZ\n*** End of File\n*** End Patch",
        outcome: Applied(&[("f.txt", "foo\nbar\nBAZ\n")]),
    },
    Case {
        name: "eof_hunk_takes_the_last_occurrence",
        before: &[("f.txt", "a\nend\na\nend\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n a\n-end\n+END\n*** End of File\n*** End Patch",
        outcome: Applied(&[("f.txt", "a\nend\na\nEND\n")]),
    },
    Case {
        name: "eof_hunk_whose_lines_are_not_at_the_end_is_refused",
        before: FOO_BAR_BAZ,
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n-bar\n+BAR\n*** End of File\n*** End Patch",
        outcome: Refused("at the end of the file"),
    },
    Case {
        name: "a_hunk_line_after_end_of_file_needs_its_own_at_at",
        before: FOO_BAR_BAZ,
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n-baz\n+BAZ\n*** End of File\n-foo\n+FOO\n*** End Patch",
        outcome: Refused("starts with its own `@@`"),
    },
    Case {
        name: "a_hunk_after_an_end_of_file_hunk_finds_nothing_below_it",
        before: FOO_BAR_BAZ,
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n@@\n-foo\n+FOO\n*** End of File\n@@\n-bar\n+BAR\n*** End Patch",
        outcome: Refused("were not found at the end of the file"),
    },
    // 2. Hunks without lines are refused, like an update without hunks.
    Case {
        name: "a_hunk_with_no_lines_before_end_of_file_is_refused",
        before: &[("foo.txt", "foo\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/foo.txt\n@@\n*** End of File\n*** End Patch",
        outcome: Refused("the hunk has no lines"),
    },
    Case {
        name: "a_hunk_of_blank_lines_only_is_refused",
        before: &[("foo.txt", "foo\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/foo.txt\n@@ foo\n\n\n*** End Patch",
        outcome: Refused("the hunk has no lines"),
    },
    Case {
        name: "an_update_without_hunks_is_refused",
        before: &[("foo.txt", "foo\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/foo.txt\n*** End Patch",
        outcome: Refused("has no hunks"),
    },
    Case {
        name: "end_of_file_without_a_hunk_is_refused",
        before: &[("foo.txt", "foo\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/foo.txt\n*** End of File\n*** End Patch",
        outcome: Refused("no hunk precedes it"),
    },
    // 3a. Headers padded with whitespace where a header is expected.
    Case {
        name: "padded_headers_are_taken",
        before: &[
            ("foo.txt", "foo\n"),
            ("old.txt", "o\n"),
            ("gone.txt", "g\n"),
        ],
        patch: "  *** Begin Patch\n  *** Update File: {d}/foo.txt\n@@\n-foo\n+FOO\n\t*** Add File: {d}/new.txt\n+n\n   *** Delete File: {d}/gone.txt  \n *** Update File: {d}/old.txt\n  *** Move to: {d}/moved.txt\n-o\n+O\n  *** End Patch  ",
        outcome: Applied(&[
            ("foo.txt", "FOO\n"),
            ("new.txt", "n\n"),
            ("moved.txt", "O\n"),
        ]),
    },
    Case {
        name: "inside_a_hunk_a_leading_space_stays_a_context_line",
        before: &[("f.txt", "x\n"), ("g.txt", "g\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n-x\n+y\n *** Delete File: {d}/g.txt\n*** End Patch",
        outcome: Refused("f.txt, hunk 1: its old lines"),
    },
    Case {
        name: "inside_a_hunk_a_header_like_context_line_matches_the_file",
        before: &[("f.txt", "x\n*** Delete File: g.txt\n"), ("g.txt", "g\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/f.txt\n-x\n+y\n *** Delete File: g.txt\n*** End Patch",
        outcome: Applied(&[("f.txt", "y\n*** Delete File: g.txt\n"), ("g.txt", "g\n")]),
    },
    // 3b. The heredoc wrapper, exactly.
    Case {
        name: "heredoc_plain",
        before: FOO_BAR_BAZ,
        patch: "<<EOF\n*** Begin Patch\n*** Update File: {d}/f.txt\n-bar\n+BAR\n*** End Patch\nEOF\n",
        outcome: Applied(&[("f.txt", "foo\nBAR\nbaz\n")]),
    },
    Case {
        name: "heredoc_single_quoted",
        before: FOO_BAR_BAZ,
        patch: "<<'EOF'\n*** Begin Patch\n*** Update File: {d}/f.txt\n-bar\n+BAR\n*** End Patch\nEOF",
        outcome: Applied(&[("f.txt", "foo\nBAR\nbaz\n")]),
    },
    Case {
        name: "heredoc_double_quoted",
        before: FOO_BAR_BAZ,
        patch: "<<\"EOF\"\n*** Begin Patch\n*** Update File: {d}/f.txt\n-bar\n+BAR\n*** End Patch\nEOF\n",
        outcome: Applied(&[("f.txt", "foo\nBAR\nbaz\n")]),
    },
    Case {
        name: "heredoc_with_mismatched_quotes_is_refused",
        before: FOO_BAR_BAZ,
        patch: "<<'EOF\"\n*** Begin Patch\n*** Update File: {d}/f.txt\n-bar\n+BAR\n*** End Patch\nEOF\n",
        outcome: Refused("a heredoc around the patch must be exactly"),
    },
    Case {
        name: "heredoc_without_its_closing_eof_is_refused",
        before: FOO_BAR_BAZ,
        patch: "<<'EOF'\n*** Begin Patch\n*** Update File: {d}/f.txt\n-bar\n+BAR\n*** End Patch\n",
        outcome: Refused("a heredoc around the patch must be exactly"),
    },
    Case {
        name: "heredoc_with_another_word_is_refused",
        before: FOO_BAR_BAZ,
        patch: "<<PATCH\n*** Begin Patch\n*** Update File: {d}/f.txt\n-bar\n+BAR\n*** End Patch\nPATCH\n",
        outcome: Refused("a heredoc around the patch must be exactly"),
    },
    Case {
        name: "a_shell_command_before_the_heredoc_is_refused",
        before: FOO_BAR_BAZ,
        patch: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: {d}/f.txt\n-bar\n+BAR\n*** End Patch\nEOF\n",
        outcome: Refused("must start with `*** Begin Patch`"),
    },
    // 3c. The fourth matching pass: typography, for matching only.
    Case {
        name: "typography_in_the_file_matches_ascii_in_the_patch_and_context_keeps_it",
        before: &[(
            "t.txt",
            "let s = \u{201C}hi\u{201D} \u{2013} it\u{2019}s;\nold\u{00A0}value\nend\n",
        )],
        patch: "*** Begin Patch\n*** Update File: {d}/t.txt\n let s = \"hi\" - it's;\n-old value\n+new value\n end\n*** End Patch",
        outcome: Applied(&[(
            "t.txt",
            "let s = \u{201C}hi\u{201D} \u{2013} it\u{2019}s;\nnew value\nend\n",
        )]),
    },
    Case {
        name: "typography_in_the_patch_matches_ascii_in_the_file_and_added_lines_are_kept",
        before: &[("t.txt", "a - b\n\"q\"\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/t.txt\n a \u{2014} b\n-\u{201C}q\u{201D}\n+\u{201C}Q\u{201D}\n*** End Patch",
        outcome: Applied(&[("t.txt", "a - b\n\u{201C}Q\u{201D}\n")]),
    },
    Case {
        name: "typography_applies_to_at_at_context_lines",
        before: &[(
            "t.txt",
            "fn a() \u{2014} x\n  v = 1\nfn b() \u{2014} y\n  v = 1\n",
        )],
        patch: "*** Begin Patch\n*** Update File: {d}/t.txt\n@@ fn b() - y\n-  v = 1\n+  v = 2\n*** End Patch",
        outcome: Applied(&[(
            "t.txt",
            "fn a() \u{2014} x\n  v = 1\nfn b() \u{2014} y\n  v = 2\n",
        )]),
    },
    Case {
        name: "an_exact_match_wins_over_an_earlier_typographic_one",
        before: &[("t.txt", "say \"hi\"\nsay \u{201C}hi\u{201D}\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/t.txt\n-say \u{201C}hi\u{201D}\n+said\n*** End Patch",
        outcome: Applied(&[("t.txt", "say \"hi\"\nsaid\n")]),
    },
    Case {
        name: "whitespace_matched_context_lines_keep_the_files_whitespace",
        before: &[("w.txt", "  foo  \nbar\n\tbaz\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/w.txt\n foo\n-bar\n+BAR\n baz\n*** End Patch",
        outcome: Applied(&[("w.txt", "  foo  \nBAR\n\tbaz\n")]),
    },
    Case {
        name: "typography_does_not_make_other_characters_match",
        before: &[("t.txt", "a_b\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/t.txt\n-a-b\n+c\n*** End Patch",
        outcome: Refused("were not found"),
    },
    // 4. Line ends.
    Case {
        name: "a_crlf_file_keeps_crlf_on_touched_and_added_lines",
        before: &[("c.txt", "a\r\nb\r\nc\r\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/c.txt\n a\n-b\n+B\n+B2\n c\n*** End Patch",
        outcome: Applied(&[("c.txt", "a\r\nB\r\nB2\r\nc\r\n")]),
    },
    Case {
        name: "a_crlf_file_keeps_crlf_on_lines_appended_at_the_end",
        before: &[("c.txt", "a\r\nb\r\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/c.txt\n@@\n+z\n*** End of File\n*** End Patch",
        outcome: Applied(&[("c.txt", "a\r\nb\r\nz\r\n")]),
    },
    Case {
        name: "a_crlf_patch_applies_to_an_lf_file",
        before: &[("l.txt", "a\nb\nc\n")],
        patch: "*** Begin Patch\r\n*** Update File: {d}/l.txt\r\n@@ a\r\n-b\r\n+B\r\n c\r\n*** End Patch\r\n",
        outcome: Applied(&[("l.txt", "a\nB\nc\n")]),
    },
    Case {
        name: "a_crlf_patch_applies_to_a_crlf_file",
        before: &[("c.txt", "a\r\nb\r\n")],
        patch: "*** Begin Patch\r\n*** Update File: {d}/c.txt\r\n-a\r\n+A\r\n*** End Patch\r\n",
        outcome: Applied(&[("c.txt", "A\r\nb\r\n")]),
    },
    Case {
        name: "a_mixed_ending_file_keeps_the_endings_of_untouched_lines",
        before: &[("m.txt", "a\r\nb\nc\r\nd\n e\r\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/m.txt\n c\n-d\n+D\n*** End Patch",
        outcome: Applied(&[("m.txt", "a\r\nb\nc\r\nD\r\n e\r\n")]),
    },
    Case {
        name: "a_mostly_lf_file_gets_lf_on_added_lines",
        before: &[("m.txt", "a\r\nb\nc\nd\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/m.txt\n a\n+ins\n b\n*** End Patch",
        outcome: Applied(&[("m.txt", "a\r\nins\nb\nc\nd\n")]),
    },
    // 5. Deliberate differences.
    Case {
        name: "add_file_over_an_existing_file_is_refused",
        before: &[("e.txt", "keep\n")],
        patch: "*** Begin Patch\n*** Add File: {d}/e.txt\n+clobber\n*** End Patch",
        outcome: Refused("it already exists (use Update File)"),
    },
    Case {
        name: "move_to_onto_an_existing_file_is_refused",
        before: &[("src.txt", "s\n"), ("dst.txt", "d\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/src.txt\n*** Move to: {d}/dst.txt\n-s\n+S\n*** End Patch",
        outcome: Refused("Move to"),
    },
    Case {
        name: "a_failing_later_hunk_leaves_the_file_untouched",
        before: &[("h.txt", "one\ntwo\nthree\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/h.txt\n@@\n-one\n+ONE\n@@\n-no such line\n+x\n*** End Patch",
        outcome: Refused("h.txt, hunk 2"),
    },
    Case {
        name: "a_failing_later_file_leaves_every_file_untouched",
        before: &[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/a.txt\n-a\n+A\n*** Delete File: {d}/c.txt\n*** Add File: {d}/n.txt\n+n\n*** Update File: {d}/b.txt\n-zzz\n+B\n*** End Patch",
        outcome: Refused("b.txt, hunk 1"),
    },
    Case {
        name: "a_file_without_a_final_newline_keeps_lacking_it",
        before: &[("n.txt", "a\nb"), ("m.txt", "x\ny"), ("r.txt", "a\r\nb")],
        patch: "*** Begin Patch\n*** Update File: {d}/n.txt\n-b\n+B\n*** Update File: {d}/m.txt\n@@\n+z\n*** End of File\n*** Update File: {d}/r.txt\n+c\n*** End Patch",
        outcome: Applied(&[
            ("n.txt", "a\nB"),
            ("m.txt", "x\ny\nz"),
            ("r.txt", "a\r\nb\r\nc"),
        ]),
    },
    // Structure the model may lean on.
    Case {
        name: "successive_at_at_lines_narrow_the_place",
        before: &[(
            "s.py",
            "class A:\n    def f():\n        x = 1\nclass B:\n    def f():\n        x = 1\n",
        )],
        patch: "*** Begin Patch\n*** Update File: {d}/s.py\n@@ class B:\n@@     def f():\n-        x = 1\n+        x = 2\n*** End Patch",
        outcome: Applied(&[(
            "s.py",
            "class A:\n    def f():\n        x = 1\nclass B:\n    def f():\n        x = 2\n",
        )]),
    },
    Case {
        name: "a_pure_addition_goes_right_below_its_at_at_line",
        before: &[("p.txt", "head\nbody\ntail\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/p.txt\n@@ head\n+inserted\n*** End Patch",
        outcome: Applied(&[("p.txt", "head\ninserted\nbody\ntail\n")]),
    },
    Case {
        name: "a_trailing_space_context_line_the_file_lacks_is_dropped",
        before: &[("p.txt", "a\nb\n")],
        patch: "*** Begin Patch\n*** Update File: {d}/p.txt\n a\n-b\n+B\n \n*** End Patch",
        outcome: Applied(&[("p.txt", "a\nB\n")]),
    },
    Case {
        name: "blank_lines_after_add_file_lines_separate",
        before: &[],
        patch: "*** Begin Patch\n*** Add File: {d}/a.txt\n+one\n+\n+three\n\n\n*** Add File: {d}/b.txt\n+b\n\n*** End Patch\n",
        outcome: Applied(&[("a.txt", "one\n\nthree\n"), ("b.txt", "b\n")]),
    },
    Case {
        name: "a_blank_line_inside_add_file_lines_is_refused",
        before: &[],
        patch: "*** Begin Patch\n*** Add File: {d}/a.txt\n+one\n\n+three\n*** End Patch\n",
        outcome: Refused("an empty line is written as a lone '+'"),
    },
    Case {
        name: "a_crlf_add_file_is_written_with_lf",
        before: &[],
        patch: "*** Begin Patch\r\n*** Add File: {d}/a.txt\r\n+one\r\n+two\r\n*** End Patch\r\n",
        outcome: Applied(&[("a.txt", "one\ntwo\n")]),
    },
];

/// Every regular file under `dir`, relative path → content.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn as_tree(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(p, c)| (p.to_string(), c.to_string()))
        .collect()
}

/// Runs one case on `s`; `Err` says how it went wrong.
async fn run_case(s: &Side, case: &Case) -> Result<(), String> {
    let folder = s.view.join(case.name);
    fs::create_dir_all(&folder).unwrap();
    for (rel, content) in case.before {
        s.put(&format!("{}/{rel}", case.name), content);
    }
    let patch = case.patch.replace("{d}", &s.path(case.name));
    let result = s.patch(&patch).await;
    let after = tree(&folder);
    match (&case.outcome, result) {
        (Applied(files), Ok(out)) => {
            if !out.text.starts_with("Applied the patch") {
                return Err(format!("unexpected result text: {}", out.text));
            }
            if after != as_tree(files) {
                return Err(format!(
                    "files after: {after:?}\nexpected: {:?}",
                    as_tree(files)
                ));
            }
            Ok(())
        }
        (Refused(needle), Err(e)) => {
            let msg = e.to_string();
            if !msg.contains(needle) {
                return Err(format!("refused, but without {needle:?}: {msg}"));
            }
            if after != as_tree(case.before) {
                return Err(format!("refused, yet files changed: {after:?}"));
            }
            Ok(())
        }
        (Applied(_), Err(e)) => Err(format!("expected it to apply, got: {e}")),
        (Refused(needle), Ok(out)) => Err(format!(
            "expected a refusal with {needle:?}, got: {}\nfiles after: {after:?}",
            out.text
        )),
    }
}

async fn run_table(s: &Side) {
    let mut failures = Vec::new();
    for case in CASES {
        if let Err(why) = run_case(s, case).await {
            failures.push(format!("{}: {why}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n\n")
    );
}

#[test]
fn case_names_are_unique() {
    let mut names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), CASES.len());
}

#[tokio::test]
async fn the_patch_table_holds_locally() {
    run_table(&Side::local()).await;
}

#[tokio::test]
async fn the_patch_table_holds_over_ssh_with_device() {
    let s = Side::remote();
    run_table(&s).await;
    assert!(s.host.ssh_spawn_count() > 0);
    assert_eq!(
        fs::read_dir(&s.base).unwrap().count(),
        0,
        "local folder untouched"
    );
}

/// The `*** Device:` line alone selects the device, padded like any header, inside a
/// heredoc, and the end-of-file insertion still lands at the end there.
#[tokio::test]
async fn the_device_line_takes_the_same_leniencies_and_rules() {
    let s = Side::remote();
    s.put("f.txt", "foo\nbar\nbaz\n");
    let p = s.path("f.txt");
    ok(patch_without_device_parameter(&s, format!(
        "<<'EOF'\n*** Begin Patch\n  *** Device: {ALIAS}\n*** Update File: {p}\n@@\n+quux\n*** End of File\n\n*** End Patch\nEOF\n"
    ))
    .await);
    assert_eq!(s.get("f.txt").as_deref(), Some("foo\nbar\nbaz\nquux\n"));
    let err = model_err(
        patch_without_device_parameter(&s, format!(
            "*** Begin Patch\n*** Device: {ALIAS}\n*** Update File: {p}\n@@\n*** End of File\n*** End Patch"
        ))
        .await,
    );
    assert!(err.contains("no lines"), "{err}");
    assert_eq!(s.get("f.txt").as_deref(), Some("foo\nbar\nbaz\nquux\n"));
    assert_eq!(
        fs::read_dir(&s.base).unwrap().count(),
        0,
        "local folder untouched"
    );
}

/// A patch sent without the `device` parameter (the patch's own `*** Device:` line decides).
async fn patch_without_device_parameter(s: &Side, patch: String) -> HandlerResult {
    s.host
        .apply_patch(
            "c",
            &ctx(),
            ApplyPatch {
                patch,
                device: None,
            },
        )
        .await
}
