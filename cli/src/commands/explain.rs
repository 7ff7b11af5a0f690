//! `toolsurface explain`: everything the definitions say about one tool, in one place —
//! object, families, route, each action's fields (types and bounds), constraints, traits,
//! and the aliases and retired names that lead to it. Also answers for an alias or a
//! retired name, so "what happens when a model calls X?" has one command.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use toolsurface_compiler::diag::did_you_mean;
use toolsurface_compiler::ir::{
    Action, Ir, OutputKind, OutputType, RenderedTool, Tool, TraitValue, Type,
};

use super::Status;

#[derive(clap::Args, Debug)]
#[command(
    long_about = "Show a tool's object, families, route, actions with their required and \
                  optional fields (types and constraints), action constraints, traits, and \
                  the aliases and retired names that lead to it. TOOL may also be an alias or \
                  a retired name. With --role, descriptions are shown as rendered for that \
                  role (and --family, default: the role's first family publishing the tool); \
                  without it, as written (templates).",
    after_help = "Examples:\n  toolsurface explain shell_session\n  toolsurface explain \
                  shell_poll\n  toolsurface explain read_file --role side_chat --family gemini\n\n\
                  Exit codes: 0 found, 1 invalid definitions, 2 unknown tool/role/family."
)]
pub struct Args {
    /// Tool, alias or retired name.
    pub tool: String,
    /// Render descriptions for this role.
    #[arg(long)]
    pub role: Option<String>,
    /// Render descriptions for this family (needs --role).
    #[arg(long, requires = "role")]
    pub family: Option<String>,
    /// Definitions folder (default: tool-defs when it is here, else the standard surface
    /// built into the binary).
    pub dir: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let (_sources, ir) = match super::check::compile_defs(args.dir.as_deref())? {
        Ok(compiled) => compiled,
        Err(status) => return Ok(status),
    };
    match explain(&ir, &args) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
            Ok(Status::Clean)
        }
        Err(message) => {
            eprintln!("error: {message}");
            Ok(Status::Usage)
        }
    }
}

/// The explanation text, or a message for the user (unknown name, role or family).
pub fn explain(ir: &Ir, args: &Args) -> Result<String, String> {
    let mut out = String::new();
    let name = args.tool.as_str();
    let tool = if let Some(t) = ir.tool(name) {
        t
    } else if let Some(alias) = ir.alias(name) {
        let _ = writeln!(
            out,
            "{name} is an alias of {}{}\n",
            alias.tool,
            alias_effect(alias)
        );
        ir.tool(&alias.tool)
            .ok_or_else(|| format!("alias `{name}` targets missing tool `{}`", alias.tool))?
    } else if let Some(r) = ir.retired(name) {
        let _ = writeln!(out, "{name} is retired. A model calling it is told:\n");
        for line in r.message.lines() {
            let _ = writeln!(out, "  {line}");
        }
        if !r.replaced_by.is_empty() {
            let _ = writeln!(out, "\nreplaced by: {}", r.replaced_by.join(", "));
        }
        return Ok(out);
    } else {
        let names = ir
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .chain(ir.aliases.iter().map(|a| a.name.as_str()))
            .chain(ir.retired.iter().map(|r| r.name.as_str()));
        let hint = did_you_mean(name, names)
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        return Err(format!("unknown tool `{name}`{hint}"));
    };
    let rendered = match &args.role {
        None => None,
        Some(role) => Some(rendered_for(ir, tool, role, args.family.as_deref())?),
    };
    describe_tool(ir, tool, rendered.as_ref(), &mut out);
    Ok(out)
}

fn alias_effect(alias: &toolsurface_compiler::ir::Alias) -> String {
    let mut parts = Vec::new();
    if !alias.set.is_empty() {
        let set: Vec<String> = alias.set.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        parts.push(format!("sets {{{}}}", set.join(", ")));
    }
    if !alias.rename.is_empty() {
        let ren: Vec<String> = alias
            .rename
            .iter()
            .map(|(k, v)| format!("{k} -> {v}"))
            .collect();
        parts.push(format!("renames {}", ren.join(", ")));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}

/// The tool's descriptions as rendered for `role` (and `family`, or the first family of
/// the role that publishes the tool), with a label naming the surface.
fn rendered_for(
    ir: &Ir,
    tool: &Tool,
    role: &str,
    family: Option<&str>,
) -> Result<(String, RenderedTool), String> {
    let Some(r) = ir.role(role) else {
        let hint = did_you_mean(role, ir.roles.iter().map(|r| r.name.as_str()))
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        return Err(format!("unknown role `{role}`{hint}"));
    };
    if let Some(f) = family
        && ir.family(f).is_none()
    {
        let hint = did_you_mean(f, ir.families.iter().map(|f| f.name.as_str()))
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        return Err(format!("unknown family `{f}`{hint}"));
    }
    let find = |s: &toolsurface_compiler::ir::SurfaceInstance| {
        s.tools
            .iter()
            .chain(s.skills.iter().flat_map(|k| k.tools.iter()))
            .find(|t| t.name == tool.name)
            .cloned()
    };
    let found = ir
        .surfaces
        .iter()
        .filter(|s| s.role == r.name && family.is_none_or(|f| s.family == f))
        .find_map(|s| find(s).map(|t| (format!("role {} × family {}", s.role, s.family), t)));
    found.ok_or_else(|| match family {
        Some(f) => format!(
            "`{}` is not published for role `{role}` in family `{f}`",
            tool.name
        ),
        None => format!(
            "`{}` is not offered to role `{role}` (resident or by a skill)",
            tool.name
        ),
    })
}

/// `explain <tool>`: its placement, its description and actions (rendered for a role when
/// one is given), and the names that lead to it.
fn describe_tool(
    ir: &Ir,
    tool: &Tool,
    rendered: Option<&(String, RenderedTool)>,
    out: &mut String,
) {
    describe_placement(ir, tool, out);
    describe_texts(ir, tool, rendered, out);
    describe_names_leading_here(ir, tool, out);
}

/// The rendered text when there is one, else the template as written.
fn shown_text(template: &str, rendered: Option<&str>) -> String {
    rendered
        .map(str::to_owned)
        .unwrap_or_else(|| template.trim_end().to_owned())
}

/// Where the tool sits: its object (and the tools sharing it), families, route, the roles
/// and skills offering it, its freeform grammar.
fn describe_placement(ir: &Ir, tool: &Tool, out: &mut String) {
    let _ = writeln!(out, "{}  (object: {})", tool.name, tool.object);
    let same_object: Vec<&str> = ir
        .tools
        .iter()
        .filter(|t| t.object == tool.object && t.name != tool.name)
        .map(|t| t.name.as_str())
        .collect();
    if !same_object.is_empty() {
        // The merge rule keys on the object: these are candidates for one tool with actions.
        let _ = writeln!(out, "  same object: {}", same_object.join(", "));
    }
    let _ = writeln!(out, "  families: {}", tool.families.join(", "));
    let _ = write!(out, "  route:    {}", tool.route.as_str());
    if let Some(s) = &tool.session {
        let _ = write!(out, " (session: {}", s.id);
        if let Some(h) = &s.host {
            let _ = write!(out, ", host: {h}");
        }
        out.push(')');
    }
    out.push('\n');
    let resident: Vec<&str> = ir
        .roles
        .iter()
        .filter(|r| r.tools.contains(&tool.name))
        .map(|r| r.name.as_str())
        .collect();
    let _ = writeln!(
        out,
        "  resident: {}",
        if resident.is_empty() {
            "(no role)".to_owned()
        } else {
            resident.join(", ")
        }
    );
    let skills: Vec<&str> = ir
        .skills
        .iter()
        .filter(|s| s.tools.contains(&tool.name))
        .map(|s| s.name.as_str())
        .collect();
    if !skills.is_empty() {
        let _ = writeln!(out, "  skills:   {}", skills.join(", "));
    }
    if let Some(ff) = &tool.freeform {
        let _ = writeln!(
            out,
            "  freeform: {} grammar over field `{}` for {}",
            ff.syntax,
            ff.field,
            ff.families.join(", ")
        );
    }
}

/// The description, the selector and every action with its fields.
fn describe_texts(
    ir: &Ir,
    tool: &Tool,
    rendered: Option<&(String, RenderedTool)>,
    out: &mut String,
) {
    let text = shown_text;
    let r = rendered.map(|(_, t)| t);
    match rendered {
        Some((label, _)) => {
            let _ = writeln!(out, "\ndescription ({label}):");
        }
        None => {
            let _ = writeln!(out, "\ndescription (as written; pass --role to render):");
        }
    }
    indent(
        out,
        &text(&tool.description.source, r.map(|r| r.description.as_str())),
        "  ",
    );

    let field_text = |name: &str, template: &str| -> String {
        let rendered = r
            .and_then(|r| r.fields.iter().find(|(n, _)| n == name))
            .map(|(_, d)| d.as_str());
        text(template, rendered)
    };
    if let Some(sel) = &tool.selector {
        let _ = writeln!(
            out,
            "\nselector `{}`: {}",
            sel.name,
            text(&sel.description.source, r.map(|r| r.selector.as_str()))
        );
    }
    let _ = writeln!(
        out,
        "\n{}:",
        if tool.is_plain() { "fields" } else { "actions" }
    );
    for action in &tool.actions {
        if let Some(name) = &action.name {
            let rendered = r
                .and_then(|r| r.actions.iter().find(|(n, _)| n.as_deref() == Some(name)))
                .map(|(_, d)| d.as_str());
            let desc = text(&action.description.source, rendered);
            let _ = writeln!(
                out,
                "  {name}{}",
                if desc.is_empty() {
                    String::new()
                } else {
                    format!(" — {desc}")
                }
            );
        }
        let pad = if action.name.is_some() { "    " } else { "  " };
        describe_action(ir, tool, action, pad, &field_text, out);
    }
}

/// Aliases and retired names that lead to the tool.
fn describe_names_leading_here(ir: &Ir, tool: &Tool, out: &mut String) {
    let aliases: Vec<String> = ir
        .aliases
        .iter()
        .filter(|a| a.tool == tool.name)
        .map(|a| format!("  {}{}", a.name, alias_effect(a)))
        .collect();
    if !aliases.is_empty() {
        let _ = writeln!(out, "\naliases leading here:");
        for a in aliases {
            let _ = writeln!(out, "{a}");
        }
    }
    let retired: Vec<&str> = ir
        .retired
        .iter()
        .filter(|r| r.replaced_by.contains(&tool.name))
        .map(|r| r.name.as_str())
        .collect();
    if !retired.is_empty() {
        let _ = writeln!(out, "\nretired names pointing here: {}", retired.join(", "));
    }
}

fn describe_action(
    ir: &Ir,
    tool: &Tool,
    action: &Action,
    pad: &str,
    field_text: &dyn Fn(&str, &str) -> String,
    out: &mut String,
) {
    if action.required.is_empty() && action.optional.is_empty() {
        let _ = writeln!(out, "{pad}(no fields)");
    }
    // A shape is outlined at its first use in the action, and named at the others.
    let mut shapes = Vec::new();
    for (list, label) in [
        (&action.required, "required"),
        (&action.optional, "optional"),
    ] {
        for name in list {
            let Some(field) = tool.field(name) else {
                continue;
            };
            let desc = field_text(name, &field.description.source);
            // The default shown is this action's (its `defaults:`, else the field's).
            let ty = tool.type_in(action, field);
            let _ = writeln!(out, "{pad}{name} ({label}): {}", type_text(&ty));
            if !desc.is_empty() {
                indent(out, &desc, &format!("{pad}    "));
            }
            let nested = Nested {
                field_text,
                shapes: &mut shapes,
            };
            nested.text(&field.ty, name, &format!("{pad}    "), out);
        }
    }
    for group in &action.exactly_one_of {
        let _ = writeln!(out, "{pad}exactly one of: {}", group.join(" | "));
    }
    for f in &action.forbidden_with {
        let _ = writeln!(
            out,
            "{pad}refused: `{}` with `{}` — {}",
            f.field, f.with, f.message
        );
    }
    let traits: Vec<String> = ir
        .traits
        .iter()
        .filter_map(|decl| match action.traits.get(&decl.name)? {
            TraitValue::Bool(true) => Some(decl.name.clone()),
            TraitValue::Bool(false) => None,
            TraitValue::Enum(v) => Some(format!("{}={v}", decl.name)),
        })
        .collect();
    let _ = writeln!(
        out,
        "{pad}traits: {}",
        if traits.is_empty() {
            "(none)".to_owned()
        } else {
            traits.join(", ")
        }
    );
    for example in &action.examples {
        let _ = writeln!(out, "{pad}example: {}", example.arguments);
    }
    if action.examples.is_empty() {
        let _ = writeln!(out, "{pad}example: (none)");
    }
    match &action.output {
        None => {
            let _ = writeln!(out, "{pad}output: (not declared)");
        }
        Some(o) => output_text(o, pad, out),
    }
}

/// An action's declared output as an outline: one line per property (`name (required): type
/// — description`), nested objects indented; a union lists each shape. A named shape
/// (`shapes:`) is outlined at its first use and named at the others.
fn output_text(o: &OutputType, pad: &str, out: &mut String) {
    let mut seen = Vec::new();
    match &o.kind {
        OutputKind::AnyOf(shapes) => {
            let _ = writeln!(out, "{pad}output: one of {} shapes", shapes.len());
            for shape in shapes {
                let _ = writeln!(out, "{pad}  - {}", output_head(shape));
                output_properties(shape, &format!("{pad}      "), &mut seen, out);
            }
        }
        _ => {
            let _ = writeln!(out, "{pad}output: {}", output_head(o));
            output_properties(o, &format!("{pad}    "), &mut seen, out);
        }
    }
}

/// `object — description`.
fn output_head(o: &OutputType) -> String {
    if o.description.is_empty() {
        output_type_text(o)
    } else {
        format!("{} — {}", output_type_text(o), o.description)
    }
}

fn output_type_text(o: &OutputType) -> String {
    let base = match &o.kind {
        OutputKind::String => "string".to_owned(),
        OutputKind::Integer => "integer".to_owned(),
        OutputKind::Number => "number".to_owned(),
        OutputKind::Boolean => "boolean".to_owned(),
        OutputKind::Enum(values) => format!("enum {}", values.join("|")),
        OutputKind::Array(None) => "array of any".to_owned(),
        OutputKind::Array(Some(items)) => format!("array of {}", output_type_text(items)),
        OutputKind::Object(props) if props.is_empty() => "any object".to_owned(),
        OutputKind::Object(_) => "object".to_owned(),
        OutputKind::AnyOf(shapes) => format!("one of {} shapes", shapes.len()),
    };
    let base = match &o.shape {
        Some(name) => format!("{base} `{name}`"),
        None => base,
    };
    if o.nullable {
        format!("{base} | null")
    } else {
        base
    }
}

/// The properties of an object (or of an array's object items), recursively; a shape in
/// `seen` is not outlined again.
fn output_properties<'o>(o: &'o OutputType, pad: &str, seen: &mut Vec<&'o str>, out: &mut String) {
    if let Some(name) = o.shape.as_deref() {
        if seen.contains(&name) {
            let _ = writeln!(out, "{pad}(shape `{name}`, as above)");
            return;
        }
        seen.push(name);
    }
    let props = match &o.kind {
        OutputKind::Object(props) => props,
        OutputKind::Array(Some(items)) => return output_properties(items, pad, seen, out),
        _ => return,
    };
    for p in props {
        let req = if p.required { "required" } else { "optional" };
        let _ = writeln!(out, "{pad}{} ({req}): {}", p.name, output_head(&p.ty));
        output_properties(&p.ty, &format!("{pad}  "), seen, out);
    }
}

/// The outline of the members beneath a field type (object properties, at any depth through
/// arrays, annotations, shapes and union branches), with each member's rendered description;
/// `shapes` holds the shapes already outlined in the action (named, not outlined again).
struct Nested<'f, 's> {
    field_text: &'f dyn Fn(&str, &str) -> String,
    shapes: &'s mut Vec<String>,
}

impl Nested<'_, '_> {
    fn text(mut self, ty: &Type, path: &str, pad: &str, out: &mut String) {
        self.walk(ty, path, pad, out);
    }

    fn walk(&mut self, ty: &Type, path: &str, pad: &str, out: &mut String) {
        match ty {
            Type::Object { properties, .. } => {
                for p in properties {
                    let sub = format!("{path}.{}", p.name);
                    let req = if p.required { "required" } else { "optional" };
                    let _ = writeln!(out, "{pad}.{} ({req}): {}", p.name, type_text(&p.ty));
                    let desc = (self.field_text)(&sub, &p.description.source);
                    if !desc.is_empty() {
                        indent(out, &desc, &format!("{pad}    "));
                    }
                    self.walk(&p.ty, &sub, &format!("{pad}  "), out);
                }
            }
            Type::Array { items, .. } => self.walk(items, path, pad, out),
            Type::Annotated { ty, .. } => self.walk(ty, path, pad, out),
            Type::Shape { name, ty } => {
                if self.shapes.contains(name) {
                    if matches!(ty.peel().0, Type::Object { .. }) {
                        let _ = writeln!(out, "{pad}(shape {name}, outlined above)");
                    }
                    return;
                }
                self.shapes.push(name.clone());
                self.walk(ty, path, pad, out);
            }
            Type::Union { branches, .. } => {
                for (i, b) in branches.iter().enumerate() {
                    self.walk(b, &format!("{path}.#{i}"), pad, out);
                }
            }
            _ => {}
        }
    }
}

/// `integer, 1..=300`, `string, max 4096 chars, pattern ^a$`, `array of string, 1..=32 items`.
pub fn type_text(ty: &Type) -> String {
    fn range<T: std::fmt::Display>(lo: &Option<T>, hi: &Option<T>, unit: &str) -> Option<String> {
        match (lo, hi) {
            (None, None) => None,
            (Some(a), None) => Some(format!(">= {a}{unit}")),
            (None, Some(b)) => Some(format!("<= {b}{unit}")),
            (Some(a), Some(b)) => Some(format!("{a}..={b}{unit}")),
        }
    }
    let (base, extra): (String, Vec<String>) = match ty {
        Type::String {
            min_length,
            max_length,
            pattern,
        } => (
            "string".into(),
            range(min_length, max_length, " chars")
                .into_iter()
                .chain(pattern.as_ref().map(|p| format!("pattern {p}")))
                .collect(),
        ),
        Type::Integer { minimum, maximum } => (
            "integer".into(),
            range(minimum, maximum, "").into_iter().collect(),
        ),
        Type::Number { minimum, maximum } => (
            "number".into(),
            range(minimum, maximum, "").into_iter().collect(),
        ),
        Type::Boolean => ("boolean".into(), Vec::new()),
        Type::Enum { values } => (format!("one of {}", values.join(" | ")), Vec::new()),
        Type::Array {
            items,
            min_items,
            max_items,
        } => (
            match type_text(items) {
                t if t.contains(',') => format!("array of ({t})"),
                t => format!("array of {t}"),
            },
            range(min_items, max_items, " items").into_iter().collect(),
        ),
        Type::Object {
            properties,
            additional,
            ..
        } => (
            match additional.as_deref() {
                None => format!("object ({} properties, no others)", properties.len()),
                Some(Type::Any) => format!(
                    "object ({} properties, others of any value)",
                    properties.len()
                ),
                Some(t) => format!(
                    "object ({} properties, others {})",
                    properties.len(),
                    type_text(t)
                ),
            },
            Vec::new(),
        ),
        Type::Any => ("any value".into(), Vec::new()),
        Type::Null => ("null".into(), Vec::new()),
        Type::Const { value, .. } => (format!("exactly {value}"), Vec::new()),
        Type::Union { form, branches } => (
            format!(
                "{} {}",
                if *form == toolsurface_compiler::ir::UnionForm::OneOf {
                    "exactly one of"
                } else {
                    "any of"
                },
                branches
                    .iter()
                    .map(type_text)
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
            Vec::new(),
        ),
        Type::Annotated { ty, ann } => (type_text(ty), annotation_texts(ann)),
        Type::Shape { name, ty } => (format!("shape {name}: {}", type_text(ty)), Vec::new()),
    };
    if extra.is_empty() {
        base
    } else {
        format!("{base}, {}", extra.join(", "))
    }
}

/// What a type's annotations add to its text: its default, its format, and the keywords
/// published verbatim (which `Call::parse` does not check).
fn annotation_texts(ann: &toolsurface_compiler::ir::SchemaAnnotations) -> Vec<String> {
    let mut extra = Vec::new();
    if let Some(d) = &ann.default {
        extra.push(format!("default {d}"));
    }
    if let Some(f) = &ann.format {
        extra.push(format!("format {f}"));
    }
    if !ann.extra.is_empty() {
        let keys: Vec<&str> = ann.extra.iter().map(|(k, _)| k.as_str()).collect();
        extra.push(format!(
            "published verbatim, not checked: {}",
            keys.join(", ")
        ));
    }
    extra
}

fn indent(out: &mut String, text: &str, pad: &str) {
    for line in text.lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{pad}{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// The repository root (this crate is its `cli/`).
    fn root() -> &'static std::path::Path {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
    }

    fn ir() -> Ir {
        let dir = root().join("compiler/tests/data/good");
        let sources = toolsurface_compiler::read_dir(&dir).unwrap();
        toolsurface_compiler::compile(&sources).ir.unwrap()
    }

    fn args(tool: &str, role: Option<&str>, family: Option<&str>) -> Args {
        Args {
            tool: tool.into(),
            role: role.map(Into::into),
            family: family.map(Into::into),
            dir: None,
        }
    }

    #[test]
    fn examples_and_output_schemas_are_shown() {
        let dir = root().join("tool-defs");
        let sources = toolsurface_compiler::read_dir(&dir).unwrap();
        let ir = toolsurface_compiler::compile(&sources).ir.unwrap();
        let text = explain(&ir, &args("shell_session", None, None)).unwrap();
        assert!(
            text.contains(
                "    example: {\"action\":\"resize\",\"session_id\":3,\"cols\":120,\"rows\":40}\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "    output: object — The new terminal size.\n        session_id (required): integer — The session\n"
            ),
            "{text}"
        );
        // A union output lists its shapes; nested objects and nullable types are spelt out.
        let text = explain(&ir, &args("read_file", None, None)).unwrap();
        assert!(
            text.contains("  output: one of 2 shapes\n    - object — A text file's window of lines.\n        path (required): string — The path as given\n        device (required): string | null — "),
            "{text}"
        );
        let text = explain(&ir, &args("apply_patch", None, None)).unwrap();
        assert!(
            text.contains("        files (required): array of object — Each file changed, in patch order (a move is a deletion and a write)\n          path (required): string — The file\n"),
            "{text}"
        );
        // A named shape is outlined at its first use of an action and named at the others.
        let text = explain(&ir, &args("message_read", None, None)).unwrap();
        assert!(
            text.contains("        before (required): array of object `message` — Messages before it, oldest first
          id (required): string — Message id
"),
            "{text}"
        );
        assert!(
            text.contains(
                "        message (required): object `message` — One message
          (shape `message`, as above)
"
            ),
            "{text}"
        );
        // The good fixture declares no outputs: said so.
        let text = explain(&self::tests::ir(), &args("read_file", None, None)).unwrap();
        assert!(text.contains("  output: (not declared)\n"), "{text}");
        // The good fixture has no examples: said so.
        let text = explain(&self::tests::ir(), &args("shell_session", None, None)).unwrap();
        assert!(text.contains("    example: (none)\n"), "{text}");
    }

    #[test]
    fn selector_tool_lists_actions_fields_traits_and_aliases() {
        let text = explain(&ir(), &args("shell_session", None, None)).unwrap();
        assert!(
            text.starts_with("shell_session  (object: shell session)\n"),
            "{text}"
        );
        assert!(text.contains("  route:    session_host (session: session_id, host: host_id)"));
        assert!(
            text.contains("  poll — Read new output.\n    session_id (required): integer, >= 1\n")
        );
        assert!(
            text.contains("    keys (optional): array of one of enter | ctrl_c, <= 16 items\n")
        );
        assert!(text.contains("    traits: follow_up, result_on_interrupt, cost=follow\n"));
        assert!(text.contains("  list — List sessions.\n    (no fields)\n"));
        assert!(text.contains("aliases leading here:\n  shell_kill (sets {action: \"kill\"})\n"));
        // Without --role, templates are shown as written.
        assert!(text.contains("{{ shell_tool() }}"));
    }

    #[test]
    fn role_and_family_render_descriptions() {
        let text = explain(
            &ir(),
            &args("shell_session", Some("main"), Some("responses")),
        )
        .unwrap();
        assert!(text.contains("description (role main × family responses):\n  Manage background sessions started by exec_command.\n"), "{text}");
        assert!(text.contains("        Session id returned by exec_command\n"));
    }

    #[test]
    fn plain_tool_nested_object_and_constraints() {
        let text = explain(&ir(), &args("read_file", None, None)).unwrap();
        assert!(
            text.contains("fields:\n  path (required): string, <= 4096 chars\n"),
            "{text}"
        );
        assert!(text.contains("    .start (required): integer\n"));
        assert!(text.contains("    .end (optional): integer\n"));
        assert!(text.contains("aliases leading here:\n  ssh_read_file (renames host -> device)\n"));
    }

    #[test]
    fn alias_and_retired_names() {
        let ir = ir();
        let alias = explain(&ir, &args("shell_poll", None, None)).unwrap();
        assert!(alias.starts_with(
            "shell_poll is an alias of shell_session (sets {action: \"poll\"})\n\nshell_session"
        ));
        let retired = explain(&ir, &args("get_current_time", None, None)).unwrap();
        assert!(retired.contains("is retired"), "{retired}");
        assert!(retired.contains("replaced by: shell\n"));
    }

    #[test]
    fn unknown_names_get_suggestions() {
        let ir = ir();
        assert_eq!(
            explain(&ir, &args("shel", None, None)).unwrap_err(),
            "unknown tool `shel` (did you mean shell?)"
        );
        assert_eq!(
            explain(&ir, &args("shell", Some("mian"), None)).unwrap_err(),
            "unknown role `mian` (did you mean main?)"
        );
        assert_eq!(
            explain(&ir, &args("shell", Some("main"), Some("responses"))).unwrap_err(),
            "`shell` is not published for role `main` in family `responses`"
        );
    }

    #[test]
    fn skill_tools_render_for_roles_offering_the_skill() {
        let text = explain(&ir(), &args("sql_query", Some("side_chat"), None)).unwrap();
        assert!(
            text.contains("Run a read-only SQL query (side_chat/chat). Read files with read_file."),
            "{text}"
        );
        assert!(text.contains("  resident: (no role)\n  skills:   data\n"));
    }
}
