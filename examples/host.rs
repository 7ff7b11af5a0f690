//! A host to copy: the standard surface executed for real through `StandardHost` — publish
//! the tool array for a role and family, hand the model's calls to `handle_batch`, print
//! the results, and listen for wake-ups.
//!
//! ```text
//! cargo run --example host -- [role] [family]            # built-in sample calls
//! cargo run --example host -- main chat --stdin          # JSON lines {"id","name","arguments"}
//! cargo run --example host -- --replies                  # each family's activation reply, JSON lines
//! ```
//!
//! Every tool runs on the real families: shell sessions on this machine, files under the
//! checkout, the SQLite message and facts stores (in a temp state folder, with the sample
//! transcript imported), ripgrep, workdirs, introspection and skills. The skills step is the
//! full loop of a skill on the family's strategy: a normal turn, the activation (answered in
//! the family's shape: Anthropic `tool_reference` blocks, a Responses `tool_search_output`,
//! or text), a turn using the skill, a rehearsal turn — printing each request's tool bytes
//! and the activation reply. The last step opens a second conversation over the same host,
//! as a host serving several threads does.

use std::io::BufRead;
use std::sync::Arc;

use toolsurface::host::HostConfig;
use toolsurface::host::ModelToolCall;
use toolsurface::host::StandardHost;
use toolsurface::runtime::LlmProviderConfig;
use toolsurface::runtime::Secret;
use toolsurface::runtime::Turn;
use toolsurface::runtime::TurnKind;
use toolsurface::standard::Family;
use toolsurface::standard::Role;
use toolsurface::standard::Skill;

/// What a model might send in one response (id, tool name, arguments JSON).
const SAMPLE: &[(&str, &str, &str)] = &[
    ("call_1", "introspect", r#"{"target":"hosts"}"#),
    (
        "call_2",
        "grep_files",
        r#"{"pattern":"fn main","glob":"*.rs","max_results":3}"#,
    ),
    ("call_3", "introspect", r#"{"target":"llm:opnai"}"#),
    ("call_4", "shell_poll", r#"{"session_id":4242}"#),
    ("call_5", "get_current_time", "{}"),
    (
        "call_6",
        "shell_session",
        r#"{"action":"kill","session_id":1001,"timeout_s":3}"#,
    ),
    ("call_7", "introspect", r#"{"target":"llm"}"#),
    (
        "call_8",
        "message_read",
        r#"{"mode":"history","session_id":"sess-build","limit":2}"#,
    ),
    ("call_9", "read_file", r#"{"path":"Cargo.toml","limit":4}"#),
    ("call_10", "search_memory", r#"{"query":"cores"}"#),
    ("call_11", "shell_session", r#"{"action":"list"}"#),
];

/// Calls that depend on the shell family (`shell` vs `exec_command` per family).
fn shell_calls(family: Family) -> Vec<ModelToolCall> {
    let (name, arguments) = if family == Family::Responses {
        (
            "exec_command",
            r#"{"cmd":"echo started; sleep 1; echo done","yield_time_ms":250}"#,
        )
    } else {
        (
            "shell",
            r#"{"command":"echo started; sleep 1; echo done","yield_ms":250}"#,
        )
    };
    vec![ModelToolCall::new("call_s", name, arguments)]
}

fn read_stdin_calls() -> Vec<ModelToolCall> {
    std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .filter(|line| !line.trim().is_empty())
        .enumerate()
        .map(
            |(i, line)| match serde_json::from_str::<serde_json::Value>(&line) {
                Ok(v) => ModelToolCall::new(
                    v["id"]
                        .as_str()
                        .map_or_else(|| format!("stdin_{i}"), str::to_owned),
                    v["name"].as_str().unwrap_or_default(),
                    match &v["arguments"] {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    },
                ),
                Err(e) => ModelToolCall::new(format!("stdin_{i}"), "", format!("not JSON: {e}")),
            },
        )
        .collect()
}

fn print_results(calls: &[ModelToolCall], results: &[toolsurface::runtime::ToolResult]) {
    for (result, call) in results.iter().zip(calls) {
        println!(
            "\n[{}] {} → {} ({:?})\n{}",
            result.call_id,
            call.name,
            if result.is_error { "error" } else { "ok" },
            result.outcome,
            indent(&result.text)
        );
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // This binary is its own shell sandbox helper (`host __sandbox-exec …` never returns);
    // see README "Sandbox".
    toolsurface::runtime::sandbox::serve_helper_from_main();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--replies") {
        return print_replies().await;
    }
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let role: Role = positional.first().map_or(Ok(Role::Main), |r| r.parse())?;
    let family: Family = positional.get(1).map_or(Ok(Family::Chat), |f| f.parse())?;

    // 1. The thread's environment: two hosts (this checkout and the temp dir), bound to the
    //    first; stores in a temp state folder; one provider whose key never shows in any
    //    output.
    let state = std::env::temp_dir().join(format!("toolsurface-example-{}", std::process::id()));
    let mut provider = LlmProviderConfig::new("openai", "https://api.openai.com/v1");
    provider.models = vec!["gpt-5".into(), "gpt-5-mini".into()];
    provider.api_key = Some(Secret::new("sk-example-not-a-real-key"));
    let config = HostConfig::single_host("checkout", std::env::current_dir()?, role, family)
        .with_host("scratch", std::env::temp_dir())
        .with_state_dir(&state)
        .with_llm(provider);
    let host = Arc::new(StandardHost::new(config)?);
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/transcripts/sample.jsonl"
    );
    toolsurface::runtime::import_jsonl(
        host.message_store().as_ref(),
        std::io::BufReader::new(std::fs::File::open(sample)?),
    )?;
    host.fact_store().add_fact(
        "Build with -j2: the machine has only 2 cores",
        "example",
        "2026-11-13T23:10:00+08:00",
    )?;
    let mut wakes = host.take_wake_receiver().ok_or("wake receiver taken")?;

    // 2. The published array: the same bytes for every turn kind.
    let turn = Turn::new(TurnKind::Normal);
    let surface = host.surface(&turn)?;
    println!(
        "tool array for {role} × {family}: {} bytes, sha256 {}",
        surface.bytes.len(),
        surface.sha256
    );

    // 3. The model's calls, executed in call order; a parse failure is an error result in
    //    its place.
    let calls: Vec<ModelToolCall> = if args.iter().any(|a| a == "--stdin") {
        read_stdin_calls()
    } else {
        SAMPLE
            .iter()
            .map(|(id, name, arguments)| ModelToolCall::new(*id, *name, *arguments))
            .collect()
    };
    match host.handle_batch(calls.clone(), &turn).await {
        Ok(results) => print_results(&calls, &results),
        Err(fault) => println!("\nthe turn ended: {fault}"),
    }

    // 4. A command that outlives its window becomes a session; its exit wakes us.
    let calls = shell_calls(family);
    let results = host.handle_batch(calls.clone(), &turn).await?;
    print_results(&calls, &results);
    if let Some(wake) = wakes.recv().await {
        println!("\nwake-up: {wake}");
    }

    // 5. A rehearsal turn: same array, but only read-only actions run.
    let rehearsal = Turn::new(TurnKind::Rehearsal);
    assert_eq!(host.surface(&rehearsal)?.sha256, surface.sha256);
    let calls = vec![
        ModelToolCall::new("r_1", "introspect", r#"{"target":"workdirs"}"#),
        ModelToolCall::new(
            "r_2",
            "write_file",
            r#"{"path":"notes.txt","content":"hi"}"#,
        ),
    ];
    let results = host.handle_batch(calls, &rehearsal).await?;
    println!(
        "\nrehearsal turn (same tool array, sha256 {}):",
        surface.sha256
    );
    for result in results {
        println!("[{}] {}", result.call_id, result.text);
    }

    // 6. Skills on this family's strategy: normal turn, activation, a turn using the skill,
    //    a rehearsal turn.
    skills_loop(&host, &state).await?;

    // 7. A second thread over the same host: its own sessions, reads, skills and wake-ups
    //    (the stores and config are shared); ending it kills its background processes.
    let other = host.open_conversation()?;
    let turn = other.new_turn(TurnKind::Normal);
    let calls = vec![ModelToolCall::new(
        "o_1",
        "shell_session",
        r#"{"action":"list"}"#,
    )];
    let results = other.handle_batch(calls.clone(), &turn).await?;
    println!(
        "
conversation {} (its own sessions):",
        other.id()
    );
    print_results(&calls, &results);
    other.end();
    drop(host);
    let _ = std::fs::remove_dir_all(&state);
    Ok(())
}

/// What the host sends with a request of `turn`: the request fragment (`tools` — the same
/// bytes for every turn kind and, under `defer` / `allow_list`, for every activation — and
/// the turn's allowed-tools restriction and flags where the dialect has them), printed with
/// the tools as their size and hash.
fn print_request(
    label: &str,
    host: &StandardHost,
    turn: &Turn,
) -> Result<(), Box<dyn std::error::Error>> {
    let fragment: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&host.request_fragment(turn))?;
    let surface = host.surface(turn)?;
    println!(
        "\n[request] {label}: tools {} bytes, sha256 {}",
        surface.bytes.len(),
        surface.sha256
    );
    for (key, value) in fragment.iter().filter(|(k, _)| *k != "tools") {
        println!("  {key}: {value}");
    }
    Ok(())
}

/// The model's activation call for `skill`: a client `tool_search_call` on a family that
/// defers behind tool search (mapped to the activation tool by the host), else a plain call.
fn activation_call(host: &StandardHost, skill: Skill) -> ModelToolCall {
    let arguments = serde_json::json!({ "name": skill.as_str() }).to_string();
    host.tool_search_call("ts_skill", arguments.clone())
        .unwrap_or_else(|| ModelToolCall::new("call_skill", "activate_skill", arguments))
}

/// Step 6: one skill's whole loop, printing each request's tools and the activation reply.
async fn skills_loop(
    host: &StandardHost,
    state: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let Some(&skill) = host.role().skills().first() else {
        println!("\nrole {} offers no skills", host.role());
        return Ok(());
    };
    println!(
        "\nskill {skill} on {} (delivery {:?})",
        host.family(),
        host.skill_delivery()
    );
    let turn = Turn::new(TurnKind::Normal);
    print_request("normal turn", host, &turn)?;
    let before = host.surface(&turn)?.sha256;

    let calls = vec![activation_call(host, skill)];
    let results = host.handle_batch(calls.clone(), &turn).await?;
    print_results(&calls, &results);
    for result in &results {
        if let Some(activation) = host.take_activation(&result.call_id) {
            let reply = activation.reply(&result.call_id)?;
            println!("[reply] {}", serde_json::to_string(&reply)?);
        }
    }

    let turn = Turn::new(TurnKind::Normal);
    print_request("turn using the skill", host, &turn)?;
    // The sandbox lets sql_query open databases in the conversation's folders only, never the
    // runtime's own stores: query a copy of the facts store in a folder the model declares.
    let data = state.join("data");
    std::fs::create_dir_all(&data)?;
    let sample = data.join("sample.sqlite3");
    std::fs::copy(state.join(toolsurface::host::FACTS_DB), &sample)?;
    let calls = vec![
        ModelToolCall::new(
            "call_dirs",
            "set_workdirs",
            serde_json::json!({"dirs": [data], "mode": "add"}).to_string(),
        ),
        ModelToolCall::new(
            "call_sql",
            "sql_query",
            serde_json::json!({"database": sample, "sql": "select count(*) from sqlite_master"})
                .to_string(),
        ),
    ];
    let results = host.handle_batch(calls.clone(), &turn).await?;
    print_results(&calls, &results);

    let rehearsal = Turn::new(TurnKind::Rehearsal);
    print_request("rehearsal turn", host, &rehearsal)?;
    let after = host.surface(&rehearsal)?.sha256;
    println!(
        "tools bytes {} by the activation",
        if after == before {
            "unchanged"
        } else {
            "changed"
        }
    );
    Ok(())
}

/// `--replies`: for every family, role main activating each of its skills in a fresh host:
/// one JSON line `{"family","delivery","call_id","reply"}` (what tests/python validates
/// with the providers' SDK types).
async fn print_replies() -> Result<(), Box<dyn std::error::Error>> {
    let role = Role::Main;
    for family in Family::ALL {
        for &skill in role.skills() {
            let dir = tempfile_dir(&format!("replies-{family}-{skill}"))?;
            let config =
                HostConfig::single_host("checkout", std::env::current_dir()?, role, family)
                    .with_state_dir(&dir);
            let host = StandardHost::new(config)?;
            let calls = vec![activation_call(&host, skill)];
            let results = host.handle_batch(calls, &Turn::normal()).await?;
            for result in &results {
                let activation = host.take_activation(&result.call_id).ok_or_else(|| {
                    format!(
                        "{family}: no activation for {}: {}",
                        result.call_id, result.text
                    )
                })?;
                let line = serde_json::json!({
                    "family": family.as_str(),
                    "delivery": format!("{:?}", activation.delivery),
                    "call_id": result.call_id,
                    "reply": activation.reply(&result.call_id)?,
                });
                println!("{line}");
            }
            drop(host);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    Ok(())
}

fn tempfile_dir(name: &str) -> std::io::Result<std::path::PathBuf> {
    let dir =
        std::env::temp_dir().join(format!("toolsurface-example-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
