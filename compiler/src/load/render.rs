//! Templates: every description is rendered for every role × family (and per skill for a
//! skill's tools) with minijinja in strict mode. `tool("x")` checks that `x` is in the
//! surface being rendered, so deleting a tool fails the build wherever prose still names
//! it. One Environment, each template compiled once; text without `{` skips the engine.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use minijinja::{Environment, ErrorKind, UndefinedBehavior};

use crate::diag::{self, Diagnostic, Sources, Span};
use crate::ir::{Ir, Limits, RenderedTool, SurfaceInstance, Template, Tool, Type};

/// What the template functions can see: the surface currently being rendered.
type Refusal = (&'static str, String, Option<String>, String);

#[derive(Default)]
struct Surface {
    role: String,
    family: String,
    names: BTreeSet<String>,
    all_tools: BTreeSet<String>,
    retired: BTreeMap<String, String>,
    /// Every `tool()` refusal of the render in progress: (code, message, hint, name).
    /// `tool()` records and carries on, so one render reports every bad name.
    refusals: Vec<Refusal>,
}

fn lock(s: &Mutex<Surface>) -> std::sync::MutexGuard<'_, Surface> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

enum Tpl<'e> {
    Text(String),
    Compiled(minijinja::Template<'e, 'e>),
    /// A syntax error, already reported.
    Broken,
}

struct Slot<'e> {
    /// What this text describes, for messages (`description of tool shell`).
    what: String,
    template: &'e Template,
    tpl: Tpl<'e>,
}

struct ToolTemplates<'e> {
    description: Slot<'e>,
    selector: Option<Slot<'e>>,
    actions: Vec<(Option<String>, Slot<'e>)>,
    fields: Vec<(String, Slot<'e>)>,
}

/// Gathers render diagnostics: the same problem found while rendering several role ×
/// family surfaces is reported once, naming the surfaces.
#[derive(Default)]
struct Collector {
    found: Vec<(Diagnostic, Vec<(String, String)>)>,
    index: BTreeMap<(Option<Span>, &'static str, String), usize>,
}

impl Collector {
    fn add(&mut self, diag: Diagnostic, at: Option<&(String, String)>) {
        self.add_keyed(diag.message.clone(), diag, at);
    }

    /// Like `add`, with the identity of the problem given apart from its message (so
    /// a message may carry per-surface numbers; the first one is kept).
    fn add_keyed(&mut self, key: String, diag: Diagnostic, at: Option<&(String, String)>) {
        let key = (diag.span, diag.code, key);
        let i = *self.index.entry(key).or_insert_with(|| {
            self.found.push((diag, Vec::new()));
            self.found.len() - 1
        });
        if let (Some(at), Some((_, list))) = (at, self.found.get_mut(i)) {
            list.push(at.clone());
        }
    }

    fn finish(self, d: &mut Vec<Diagnostic>) {
        for (mut diag, at) in self.found {
            let names: Vec<String> = at.iter().map(|(r, f)| format!("{r} × {f}")).collect();
            match names.len() {
                0 => {}
                1..=3 => {
                    let _ = write!(diag.message, " (in {})", names.join(", "));
                }
                n => {
                    let _ = write!(
                        diag.message,
                        " (in {} and {} more surfaces)",
                        names[..2].join(", "),
                        n - 2
                    );
                }
            }
            d.push(diag);
        }
    }
}

fn has_syntax(s: &str) -> bool {
    s.contains("{{") || s.contains("{%") || s.contains("{#")
}

/// Render every description into `ir.surfaces`, reporting template errors, descriptions
/// over the limit and surfaces with too many tools.
pub fn render(ir: &mut Ir, sources: &Sources, d: &mut Vec<Diagnostic>) {
    let state = Arc::new(Mutex::new(Surface {
        all_tools: ir.tools.iter().map(|t| t.name.clone()).collect(),
        retired: ir
            .retired
            .iter()
            .map(|r| (r.name.clone(), r.message.clone()))
            .collect(),
        ..Surface::default()
    }));
    let env = template_environment(&state);
    let tools = std::mem::take(&mut ir.tools);
    let mut surfaces = std::mem::take(&mut ir.surfaces);
    let mut out = Collector::default();
    {
        let compiled: BTreeMap<&str, ToolTemplates<'_>> = tools
            .iter()
            .map(|t| (t.name.as_str(), compile_tool(&env, t, sources, &mut out)))
            .collect();
        let renderer = SurfaceRenderer {
            compiled: &compiled,
            state: &state,
            sources,
            limits: ir.limits,
        };
        for surface in &mut surfaces {
            let at = (surface.role.clone(), surface.family.clone());
            renderer.render_surface(surface, &at, &mut out);
            let role_span = ir.role(&surface.role).map(|r| r.span);
            check_tool_counts(surface, role_span, ir.limits, &at, &mut out);
        }
    }
    out.finish(d);
    ir.tools = tools;
    ir.surfaces = surfaces;
}

/// The strict minijinja environment with the `tool()` and `shell_tool()` functions, both
/// reading the surface being rendered from `state`.
fn template_environment<'e>(state: &Arc<Mutex<Surface>>) -> Environment<'e> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_debug(true);
    {
        let state = Arc::clone(state);
        env.add_function(
            "tool",
            move |name: String| -> Result<String, minijinja::Error> {
                let mut s = lock(&state);
                if let Some(refusal) = tool_function_refusal(&s, &name) {
                    s.refusals.push(refusal);
                }
                Ok(name)
            },
        );
    }
    {
        let state = Arc::clone(state);
        env.add_function("shell_tool", move || -> String {
            let s = lock(&state);
            if s.names.contains("exec_command") && !s.names.contains("shell") {
                "exec_command".to_owned()
            } else {
                "shell".to_owned()
            }
        });
    }
    env
}

/// Why `tool("name")` may not name `name` in the surface being rendered (`None`: it may).
fn tool_function_refusal(s: &Surface, name: &str) -> Option<Refusal> {
    if s.names.contains(name) {
        return None;
    }
    let refusal = if let Some(msg) = s.retired.get(name) {
        (
            "template-retired-tool",
            format!("tool(\"{name}\") names a retired tool"),
            Some(format!(
                "rewrite the description; a model calling it is told: {msg}"
            )),
        )
    } else if s.all_tools.contains(name) {
        (
            "template-absent-tool",
            format!("tool(\"{name}\"): `{name}` is not in this surface"),
            Some(format!(
                "add `{name}` to the role, or guard the sentence with {{% if family == ... %}}"
            )),
        )
    } else {
        (
            "template-unknown-tool",
            format!("tool(\"{name}\") names an unknown tool"),
            diag::did_you_mean(name, s.all_tools.iter().map(String::as_str)),
        )
    };
    Some((refusal.0, refusal.1, refusal.2, name.to_owned()))
}

/// What rendering one role × family reads: the compiled templates and the shared state the
/// template functions see.
struct SurfaceRenderer<'a, 'e> {
    compiled: &'a BTreeMap<&'e str, ToolTemplates<'e>>,
    state: &'a Mutex<Surface>,
    sources: &'a Sources,
    limits: Limits,
}

impl SurfaceRenderer<'_, '_> {
    /// The resident tools, then each skill's tools with the skill's tools in scope too.
    fn render_surface(
        &self,
        surface: &mut SurfaceInstance,
        at: &(String, String),
        out: &mut Collector,
    ) {
        let resident: BTreeSet<String> = surface.tools.iter().map(|t| t.name.clone()).collect();
        let ctx = minijinja::context! {
            role => surface.role.clone(),
            family => surface.family.clone(),
            dialect => surface.dialect.as_str(),
        };
        {
            let mut s = lock(self.state);
            s.role.clone_from(&surface.role);
            s.family.clone_from(&surface.family);
            s.names.clone_from(&resident);
        }
        self.render_list(&mut surface.tools, surface.dialect, &ctx, at, out);
        for skill in &mut surface.skills {
            {
                let mut s = lock(self.state);
                s.names = resident.clone();
                s.names.extend(skill.tools.iter().map(|t| t.name.clone()));
            }
            self.render_list(&mut skill.tools, surface.dialect, &ctx, at, out);
        }
    }

    fn render_list(
        &self,
        list: &mut [RenderedTool],
        dialect: crate::ir::Dialect,
        ctx: &minijinja::Value,
        at: &(String, String),
        out: &mut Collector,
    ) {
        for rt in list.iter_mut() {
            if let Some(tt) = self.compiled.get(rt.name.as_str()) {
                *rt = render_tool(
                    &rt.name,
                    tt,
                    ctx,
                    self.state,
                    self.sources,
                    (
                        self.limits.max_description_chars,
                        crate::ir::provider_limits(dialect).map(|p| p.max_description_chars),
                    ),
                    at,
                    out,
                );
            }
        }
    }
}

/// A role × family over `max_tools`, resident or with every skill active.
fn check_tool_counts(
    surface: &SurfaceInstance,
    role_span: Option<Span>,
    limits: Limits,
    at: &(String, String),
    out: &mut Collector,
) {
    let with_skills =
        surface.tools.len() + surface.skills.iter().map(|s| s.tools.len()).sum::<usize>();
    if surface.tools.len() > limits.max_tools {
        out.add(
            Diagnostic::error(
                "too-many-tools",
                role_span,
                format!(
                    "role `{}` publishes {} resident tools; the limit is {}",
                    surface.role,
                    surface.tools.len(),
                    limits.max_tools
                ),
            )
            .with_hint(
                "move rarely used tools into a skill, or merge tools that act on the same object",
            ),
            Some(at),
        );
    } else if with_skills > limits.max_tools {
        out.add(
            Diagnostic::error(
                "too-many-tools",
                role_span,
                format!(
                    "role `{}` reaches {with_skills} tools with every skill active; the limit is {}",
                    surface.role, limits.max_tools
                ),
            ),
            Some(at),
        );
    } else if let Some(provider) = crate::ir::provider_limits(surface.dialect)
        && with_skills > provider.max_tools
    {
        out.add(
            Diagnostic::warning(
                "provider-limit",
                role_span,
                format!(
                    "role `{}` publishes {with_skills} tools; the provider refuses more than {} a request",
                    surface.role, provider.max_tools
                ),
            )
            .with_hint("move rarely used tools into a skill, or publish this role in a dialect without the limit"),
            Some(at),
        );
    }
}
fn compile_tool<'e>(
    env: &'e Environment<'e>,
    tool: &'e Tool,
    sources: &Sources,
    out: &mut Collector,
) -> ToolTemplates<'e> {
    let mut slot = |what: String, template: &'e Template| {
        // The source's trailing whitespace is not text (a YAML block's final line break);
        // whitespace the template itself outputs (`{{ "\n" }}`) is kept.
        let tpl = if has_syntax(&template.source) {
            match env.template_from_str(template.source.trim_end()) {
                Ok(t) => Tpl::Compiled(t),
                Err(err) => {
                    out.add(
                        template_diag(
                            template,
                            &err,
                            sources,
                            "template-syntax",
                            format!("{what}: {}", err_text(&err, &template.source)),
                            None,
                        ),
                        None,
                    );
                    Tpl::Broken
                }
            }
        } else {
            Tpl::Text(template.source.trim_end().to_owned())
        };
        Slot {
            what,
            template,
            tpl,
        }
    };
    let name = &tool.name;
    let description = slot(format!("description of tool `{name}`"), &tool.description);
    let selector = tool.selector.as_ref().map(|s| {
        slot(
            format!("selector description of tool `{name}`"),
            &s.description,
        )
    });
    let actions = tool
        .actions
        .iter()
        .filter(|a| a.name.is_some())
        .map(|a| {
            let an = a.name.clone().unwrap_or_default();
            let s = slot(
                format!("description of action `{an}` of tool `{name}`"),
                &a.description,
            );
            (a.name.clone(), s)
        })
        .collect();
    let mut fields = Vec::new();
    for f in &tool.fields {
        fields.push((
            f.name.clone(),
            slot(
                format!("description of field `{}` of tool `{name}`", f.name),
                &f.description,
            ),
        ));
        nested(&f.name, &f.ty, name, &mut slot, &mut fields);
    }
    ToolTemplates {
        description,
        selector,
        actions,
        fields,
    }
}

fn nested<'e>(
    path: &str,
    ty: &'e Type,
    tool: &str,
    slot: &mut dyn FnMut(String, &'e Template) -> Slot<'e>,
    out: &mut Vec<(String, Slot<'e>)>,
) {
    match ty {
        Type::Object {
            properties,
            additional,
            ..
        } => {
            if let Some(t) = additional {
                nested(&format!("{path}.*"), t, tool, slot, out);
            }
            for p in properties {
                let sub = format!("{path}.{}", p.name);
                out.push((
                    sub.clone(),
                    slot(
                        format!("description of `{sub}` of tool `{tool}`"),
                        &p.description,
                    ),
                ));
                nested(&sub, &p.ty, tool, slot, out);
            }
        }
        Type::Array { items, .. } => nested(path, items, tool, slot, out),
        Type::Annotated { ty, .. } | Type::Shape { ty, .. } => nested(path, ty, tool, slot, out),
        Type::Union { branches, .. } => {
            for (i, b) in branches.iter().enumerate() {
                nested(&format!("{path}.#{i}"), b, tool, slot, out);
            }
        }
        _ => {}
    }
}

#[allow(clippy::too_many_arguments)]
fn render_tool(
    name: &str,
    tt: &ToolTemplates<'_>,
    ctx: &minijinja::Value,
    state: &Mutex<Surface>,
    sources: &Sources,
    (max_chars, provider_max_chars): (usize, Option<usize>),
    at: &(String, String),
    out: &mut Collector,
) -> RenderedTool {
    let mut one = |slot: &Slot<'_>| -> String {
        let text = match &slot.tpl {
            Tpl::Text(t) => t.clone(),
            Tpl::Broken => return String::new(),
            Tpl::Compiled(t) => {
                let rendered = t.render(ctx);
                let refusals = std::mem::take(&mut lock(state).refusals);
                let refused = !refusals.is_empty();
                for (code, message, hint, name) in refusals {
                    let range = find_call(&slot.template.source, &name);
                    let span = span_in_template(slot.template, range, 0, sources);
                    let mut diag =
                        Diagnostic::error(code, Some(span), format!("{}: {message}", slot.what));
                    if let Some(h) = hint {
                        diag = diag.with_hint(h);
                    }
                    // Unknown and retired names are wrong in every surface: no list.
                    let everywhere =
                        matches!(code, "template-unknown-tool" | "template-retired-tool");
                    out.add(diag, (!everywhere).then_some(at));
                }
                match rendered {
                    Ok(_) if refused => return String::new(),
                    Ok(s) => s,
                    Err(err) => {
                        let diag = template_diag(
                            slot.template,
                            &err,
                            sources,
                            "template-error",
                            format!("{}: {}", slot.what, err_text(&err, &slot.template.source)),
                            undefined_hint(&err),
                        );
                        out.add(diag, Some(at));
                        return String::new();
                    }
                }
            }
        };
        mentions(&text, slot, state, sources, at, out);
        let chars = text.chars().count();
        if chars > max_chars {
            out.add_keyed(
                slot.what.clone(),
                Diagnostic::error(
                    "description-too-long",
                    Some(slot.template.span),
                    format!(
                        "{} renders to {chars} characters; the limit is {max_chars}",
                        slot.what
                    ),
                )
                .with_hint("shorten it, or raise `limits: max_description_chars` in surface.yaml"),
                Some(at),
            );
        } else if let Some(provider) = provider_max_chars
            && chars > provider
        {
            out.add_keyed(
                slot.what.clone(),
                Diagnostic::warning(
                    "provider-limit",
                    Some(slot.template.span),
                    format!(
                        "{} renders to {chars} characters; the provider refuses descriptions over {provider}",
                        slot.what,
                    ),
                )
                .with_hint("shorten it, or publish this role in a dialect without the limit"),
                Some(at),
            );
        }
        text
    };
    RenderedTool {
        name: name.to_owned(),
        description: one(&tt.description),
        selector: tt.selector.as_ref().map(&mut one).unwrap_or_default(),
        actions: tt
            .actions
            .iter()
            .map(|(n, s)| (n.clone(), one(s)))
            .collect(),
        fields: tt.fields.iter().map(|(n, s)| (n.clone(), one(s))).collect(),
    }
}

/// Prose that names a tool by hand escapes the build's checks: a retired name is an error,
/// a tool absent from the surface being rendered a warning.
fn mentions(
    text: &str,
    slot: &Slot<'_>,
    state: &Mutex<Surface>,
    sources: &Sources,
    at: &(String, String),
    out: &mut Collector,
) {
    if !text.contains('_') {
        return;
    }
    let s = lock(state);
    for (_, word) in tool_like_words(text) {
        let range = find_word(&slot.template.source, word);
        let span = span_in_template(slot.template, range, 0, sources);
        if let Some(msg) = s.retired.get(word) {
            out.add(
                Diagnostic::error(
                    "mentions-retired-tool",
                    Some(span),
                    format!("{} mentions `{word}`, which is retired", slot.what),
                )
                .with_hint(format!(
                    "reword it; a model calling `{word}` is told: {msg}"
                )),
                None,
            );
        } else if s.all_tools.contains(word) && !s.names.contains(word) {
            out.add(
                Diagnostic::warning(
                    "mentions-absent-tool",
                    Some(span),
                    format!("{} mentions tool `{word}`, which is not in this surface", slot.what),
                )
                .with_hint(format!(
                    "write {{{{ tool(\"{word}\") }}}} so the build checks it, and guard the sentence"
                )),
                Some(at),
            );
        }
    }
}

fn undefined_hint(err: &minijinja::Error) -> Option<String> {
    (err.kind() == ErrorKind::UndefinedError).then(|| {
        "templates see `role`, `family`, `dialect`, `tool(name)` and `shell_tool()`".to_owned()
    })
}

/// The error's own words, naming the failing expression when minijinja knows it.
fn err_text(err: &minijinja::Error, source: &str) -> String {
    let expr = expr_range(err, source)
        .and_then(|r| source.get(r))
        .map(str::trim)
        .filter(|s| !s.is_empty());
    match (err.kind(), expr, err.detail()) {
        (ErrorKind::UndefinedError, Some(e), _) => format!("`{e}` is undefined"),
        (_, _, Some(detail)) => format!("{}: {detail}", err.kind()),
        (_, Some(e), None) => format!("{} in `{e}`", err.kind()),
        (_, None, None) => err.kind().to_string(),
    }
}

/// The failing expression's byte range, widened to the start of an attribute chain
/// (minijinja points at `.name` in `dialect.name`).
fn expr_range(err: &minijinja::Error, src: &str) -> Option<std::ops::Range<usize>> {
    let r = err
        .range()
        .filter(|r| r.start <= r.end && r.end <= src.len())?;
    let before = src.get(..r.start)?;
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_' || *c == '.')
        .last()
        .map(|(i, _)| i)
        .unwrap_or(r.start);
    Some(start..r.end)
}

/// A template error as a diagnostic at the failing expression.
fn template_diag(
    template: &Template,
    err: &minijinja::Error,
    sources: &Sources,
    code: &'static str,
    message: String,
    hint: Option<String>,
) -> Diagnostic {
    let line = err.line().map(|l| l.saturating_sub(1)).unwrap_or(0);
    let span = span_in_template(template, expr_range(err, &template.source), line, sources);
    let mut diag = Diagnostic::error(code, Some(span), message);
    if let Some(h) = hint {
        diag = diag.with_hint(h);
    }
    diag
}

/// Map a byte range of a template to its place in the YAML file: block scalars keep one
/// indentation (the template's first line is the span's line), flow scalars start at the
/// span's column (plus one for a quote). Without a range: the start of line `line`
/// (0-based) of the template.
fn span_in_template(
    template: &Template,
    range: Option<std::ops::Range<usize>>,
    line: usize,
    sources: &Sources,
) -> Span {
    let mut span = template.span;
    let src = &template.source;
    let (tline, tcol, len) = match range {
        Some(r) => {
            let before = src.get(..r.start).unwrap_or("");
            let tline = before.matches('\n').count();
            let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
            let tcol = before
                .get(line_start..)
                .map(|s| s.chars().count())
                .unwrap_or(0);
            let text = src.get(r.clone()).unwrap_or("");
            let len = text.lines().next().map(|l| l.chars().count()).unwrap_or(1);
            (tline, tcol, len)
        }
        None => (line, 0, 0),
    };
    let quoted = sources
        .file(span.file)
        .and_then(|f| f.text.lines().nth(span.line.saturating_sub(1) as usize))
        .and_then(|l| l.chars().nth(span.col.saturating_sub(1) as usize))
        .is_some_and(|c| c == '"' || c == '\'');
    span.line = span.line.saturating_add(u32::try_from(tline).unwrap_or(0));
    let col_offset = u32::try_from(tcol).unwrap_or(0) + u32::from(quoted && tline == 0);
    span.col = span.col.saturating_add(col_offset);
    if len > 0 {
        span.len = u32::try_from(len).unwrap_or(1);
    }
    span
}

/// Identifier-like words of `text` that contain `_` (tool names such as `file_edit`; plain
/// words like "shell" are too common in prose to be read as tool names).
fn tool_like_words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let is_word = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_';
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (is_word(c), start) {
            (true, None) => start = Some(i),
            (false, Some(st)) => {
                let w = &text[st..i];
                // Not part of a larger identifier (`Foo_bar`, `x.y_z` paths are fine).
                let prev_ok = text[..st]
                    .chars()
                    .next_back()
                    .is_none_or(|p| !p.is_alphanumeric());
                if w.contains('_') && prev_ok && !c.is_alphanumeric() {
                    out.push((st, w));
                }
                start = None;
            }
            _ => {}
        }
    }
    out.into_iter()
}

/// Where `tool("name")` (or `tool('name')`) is written in a template: the quoted name.
fn find_call(src: &str, name: &str) -> Option<std::ops::Range<usize>> {
    ['"', '\''].into_iter().find_map(|q| {
        let quoted = format!("{q}{name}{q}");
        let mut from = 0;
        while let Some(i) = src.get(from..).and_then(|rest| rest.find(&quoted)) {
            let at = from + i;
            let before = src.get(..at).unwrap_or("").trim_end();
            if before.ends_with("tool(") {
                let start = before.len().saturating_sub("tool(".len());
                return Some(start..at + quoted.len() + 1);
            }
            from = at + quoted.len();
        }
        None
    })
}

/// The byte range of `word` as a whole word in `src`, if it is written there literally.
fn find_word(src: &str, word: &str) -> Option<std::ops::Range<usize>> {
    tool_like_words(src)
        .find(|(_, w)| *w == word)
        .map(|(i, w)| i..i + w.len())
}
