//! A minimal host, to copy: publish the tool array for a role and family, parse a model's
//! tool calls with `Call::parse`, execute them through the runtime, print the results.
//!
//! ```text
//! cargo run --example host -- [role] [family]            # built-in sample calls
//! cargo run --example host -- main chat --stdin          # JSON lines {"id","name","arguments"}
//! ```
//!
//! Only `introspect`, `grep_files` and `activate_skill` are wired to real work here; the
//! other handlers answer that this example does not wire them. A real host plugs the
//! families (`toolsurface::runtime::shell`, `files`, …) into the same `Handlers` impl.

use std::borrow::Cow;
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;

use toolsurface::runtime::call::CallContext;
use toolsurface::runtime::call::HandlerResult;
use toolsurface::runtime::call::ToolError;
use toolsurface::runtime::core::Batch;
use toolsurface::runtime::core::CatalogError;
use toolsurface::runtime::core::HostConfig;
use toolsurface::runtime::core::LlmProviderConfig;
use toolsurface::runtime::core::Runtime;
use toolsurface::runtime::core::RuntimeConfig;
use toolsurface::runtime::core::Scope;
use toolsurface::runtime::core::Secret;
use toolsurface::runtime::core::SkillSummary;
use toolsurface::runtime::core::SurfaceCatalog;
use toolsurface::runtime::core::ToolSummary;
use toolsurface::runtime::core::Turn;
use toolsurface::runtime::core::TurnKind;
use toolsurface::runtime::grep::GrepFilesRequest;
use toolsurface::standard;
use toolsurface::standard::Call;
use toolsurface::standard::Family;
use toolsurface::standard::Role;
use toolsurface::standard::Skill;
use toolsurface::standard::Tool;

/// The runtime's view of the generated statics. (The facade will ship one of these.)
struct StandardCatalog;

impl StandardCatalog {
    fn parse_scope(scope: &Scope) -> Result<(Role, Family), CatalogError> {
        let role = scope
            .role
            .parse::<Role>()
            .map_err(|e| CatalogError(format!("{e:?}")))?;
        let family = scope
            .family
            .parse::<Family>()
            .map_err(|e| CatalogError(format!("{e:?}")))?;
        Ok((role, family))
    }
}

impl SurfaceCatalog for StandardCatalog {
    fn tool_array(&self, scope: &Scope) -> Result<Cow<'static, str>, CatalogError> {
        let (role, family) = Self::parse_scope(scope)?;
        if !scope.skills.is_empty() {
            // The generated code publishes resident arrays only, so far.
            return Err(CatalogError(
                "skill arrays are not published by the generated code yet".into(),
            ));
        }
        Ok(Cow::Borrowed(standard::published(role, family)))
    }

    fn tools(&self, scope: &Scope) -> Result<Vec<ToolSummary>, CatalogError> {
        let array: serde_json::Value = serde_json::from_str(&self.tool_array(scope)?)
            .map_err(|e| CatalogError(e.to_string()))?;
        let items = array.as_array().cloned().unwrap_or_default();
        Ok(items
            .iter()
            .map(|item| {
                // openai-chat nests under "function"; the other dialects are flat.
                let tool = item.get("function").unwrap_or(item);
                ToolSummary {
                    name: tool["name"].as_str().unwrap_or_default().to_owned(),
                    description: tool["description"].as_str().unwrap_or_default().to_owned(),
                }
            })
            .collect())
    }

    fn skills(&self, role: &str) -> Vec<SkillSummary> {
        let Ok(role) = role.parse::<Role>() else {
            return Vec::new();
        };
        Skill::ALL
            .iter()
            .filter_map(|skill| {
                // A skill's tools: what the scope offers with it active and not without.
                let active = [*skill];
                let tools: Vec<String> = Family::ALL
                    .iter()
                    .flat_map(|family| {
                        let bare = standard::Scope::new(role, *family);
                        let with = bare.with_skills(&active);
                        Tool::ALL
                            .into_iter()
                            .filter(move |t| with.offers(*t) && !bare.offers(*t))
                    })
                    .map(|t| t.as_str().to_owned())
                    .fold(Vec::new(), |mut acc, t| {
                        if !acc.contains(&t) {
                            acc.push(t);
                        }
                        acc
                    });
                (!tools.is_empty()).then(|| SkillSummary {
                    name: skill.as_str().to_owned(),
                    description: String::new(),
                    tools,
                })
            })
            .collect()
    }
}

/// The host's handlers: one method per tool (generated trait).
struct ExampleHandlers {
    runtime: Arc<Runtime>,
}

fn not_wired(tool: &str) -> HandlerResult {
    Err(ToolError::Model(format!(
        "{tool} is not wired in this example host"
    )))
}

impl standard::Handlers for ExampleHandlers {
    async fn introspect(
        &self,
        _ctx: &CallContext,
        call: standard::introspect::Call,
    ) -> HandlerResult {
        self.runtime.introspect(&call.target)
    }

    async fn activate_skill(
        &self,
        _ctx: &CallContext,
        call: standard::activate_skill::Call,
    ) -> HandlerResult {
        self.runtime.activate(&call.name).map(|a| a.to_output())
    }

    async fn grep_files(
        &self,
        ctx: &CallContext,
        call: standard::grep_files::Call,
    ) -> HandlerResult {
        let Some(root) = self.runtime.host_root(&ctx.host).map(PathBuf::from) else {
            return Err(ToolError::Model(format!("host {} has no root", ctx.host)));
        };
        // The generated call and the family's request share field names.
        let request: GrepFilesRequest = serde_json::to_value(&call)
            .and_then(serde_json::from_value)
            .map_err(|e| ToolError::Fatal(format!("grep_files request: {e}")))?;
        tokio::task::spawn_blocking(move || toolsurface::runtime::grep::grep_files(&root, &request))
            .await
            .map_err(|e| ToolError::Fatal(format!("grep_files task: {e}")))?
    }

    async fn apply_patch(&self, _: &CallContext, _: standard::apply_patch::Call) -> HandlerResult {
        not_wired("apply_patch")
    }
    async fn exec_command(
        &self,
        _: &CallContext,
        _: standard::exec_command::Call,
    ) -> HandlerResult {
        not_wired("exec_command")
    }
    async fn file_edit(&self, _: &CallContext, _: standard::file_edit::Call) -> HandlerResult {
        not_wired("file_edit")
    }
    async fn message_read(
        &self,
        _: &CallContext,
        _: standard::message_read::Call,
    ) -> HandlerResult {
        not_wired("message_read")
    }
    async fn monitor_start(
        &self,
        _: &CallContext,
        _: standard::monitor_start::Call,
    ) -> HandlerResult {
        not_wired("monitor_start")
    }
    async fn read_file(&self, _: &CallContext, _: standard::read_file::Call) -> HandlerResult {
        not_wired("read_file")
    }
    async fn search_memory(
        &self,
        _: &CallContext,
        _: standard::search_memory::Call,
    ) -> HandlerResult {
        not_wired("search_memory")
    }
    async fn set_workdirs(
        &self,
        _: &CallContext,
        _: standard::set_workdirs::Call,
    ) -> HandlerResult {
        not_wired("set_workdirs")
    }
    async fn shell(&self, _: &CallContext, _: standard::shell::Call) -> HandlerResult {
        not_wired("shell")
    }
    async fn shell_session(
        &self,
        _: &CallContext,
        _: standard::shell_session::Call,
    ) -> HandlerResult {
        not_wired("shell_session")
    }
    async fn sql_query(&self, _: &CallContext, _: standard::sql_query::Call) -> HandlerResult {
        not_wired("sql_query")
    }
    async fn write_file(&self, _: &CallContext, _: standard::write_file::Call) -> HandlerResult {
        not_wired("write_file")
    }
    async fn write_stdin(&self, _: &CallContext, _: standard::write_stdin::Call) -> HandlerResult {
        not_wired("write_stdin")
    }
}

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
];

fn read_stdin_calls() -> Vec<(String, String, String)> {
    std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .filter(|line| !line.trim().is_empty())
        .enumerate()
        .map(
            |(i, line)| match serde_json::from_str::<serde_json::Value>(&line) {
                Ok(v) => (
                    v["id"]
                        .as_str()
                        .map_or_else(|| format!("stdin_{i}"), str::to_owned),
                    v["name"].as_str().unwrap_or_default().to_owned(),
                    match &v["arguments"] {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    },
                ),
                Err(e) => (
                    format!("stdin_{i}"),
                    String::new(),
                    format!("not JSON: {e}"),
                ),
            },
        )
        .collect()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let role: Role = positional
        .first()
        .map_or(Ok(Role::Main), |r| r.parse())
        .map_err(|e| format!("role: {e:?}"))?;
    let family: Family = positional
        .get(1)
        .map_or(Ok(Family::Chat), |f| f.parse())
        .map_err(|e| format!("family: {e:?}"))?;

    // 1. The thread's environment: two hosts (this checkout and the temp dir), bound to the
    //    first; one provider whose key never shows in any output.
    let mut config = RuntimeConfig::single_host(
        "checkout",
        std::env::current_dir()?,
        role.as_str(),
        family.as_str(),
    );
    config
        .hosts
        .insert("scratch".into(), HostConfig::new(std::env::temp_dir()));
    let mut provider = LlmProviderConfig::new("openai", "https://api.openai.com/v1");
    provider.models = vec!["gpt-5".into(), "gpt-5-mini".into()];
    provider.api_key = Some(Secret::new("sk-example-not-a-real-key"));
    config.llm.push(provider);
    let runtime = Arc::new(Runtime::new(config, Arc::new(StandardCatalog))?);

    // 2. The published array: the same bytes for every turn kind.
    let turn = Turn::new(TurnKind::Normal);
    let surface = runtime.surface(&turn)?;
    println!(
        "tool array for {role} × {family}: {} bytes, sha256 {}",
        surface.bytes.len(),
        surface.sha256
    );

    // 3. The model's calls, parsed. A parse failure stays in place as an error result.
    let calls: Vec<(String, String, String)> = if args.iter().any(|a| a == "--stdin") {
        read_stdin_calls()
    } else {
        SAMPLE
            .iter()
            .map(|(id, name, arguments)| ((*id).into(), (*name).into(), (*arguments).into()))
            .collect()
    };
    let batch: Batch<Call> = calls
        .iter()
        .map(|(id, name, arguments)| (id.clone(), Call::parse(role, family, name, arguments)))
        .collect();

    // 4. Execute: results come back in call order.
    let handlers = ExampleHandlers {
        runtime: runtime.clone(),
    };
    let handlers = &handlers;
    let results = runtime
        .execute(batch, &turn, |call: Call, ctx: CallContext| async move {
            call.dispatch(handlers, &ctx).await
        })
        .await;

    match results {
        Ok(results) => {
            for (result, (_, name, _)) in results.iter().zip(&calls) {
                println!(
                    "\n[{}] {name} → {} ({:?})\n{}",
                    result.call_id,
                    if result.is_error { "error" } else { "ok" },
                    result.outcome,
                    indent(&result.text)
                );
            }
        }
        Err(fault) => println!("\nthe turn ended: {fault}"),
    }

    // 5. A rehearsal turn: same array, but only read-only actions run.
    let rehearsal = Turn::new(TurnKind::Rehearsal);
    assert_eq!(runtime.surface(&rehearsal)?.sha256, surface.sha256);
    let batch: Batch<Call> = [
        ("r_1", "introspect", r#"{"target":"workdirs"}"#),
        (
            "r_2",
            "write_file",
            r#"{"path":"notes.txt","content":"hi"}"#,
        ),
    ]
    .into_iter()
    .map(|(id, name, arguments)| (id.to_owned(), Call::parse(role, family, name, arguments)))
    .collect();
    let results = runtime
        .execute(
            batch,
            &rehearsal,
            |call: Call, ctx: CallContext| async move { call.dispatch(handlers, &ctx).await },
        )
        .await?;
    println!(
        "\nrehearsal turn (same tool array, sha256 {}):",
        surface.sha256
    );
    for result in results {
        println!("[{}] {}", result.call_id, result.text);
    }
    Ok(())
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
