//! A tool file's `shapes:`: named types that its fields and its outputs use as
//! `{ shape: name }`. A shape is written once and read in the language of each use — as a
//! field type where a field (or a property, array items, a union branch, other keys) uses it,
//! as an output node where an output does — each the first time it is needed, once per
//! language. A use is the definition tagged with its name (`ir::Type::Shape`,
//! `OutputType::shape`), so every reader sees the definition in place and only the emitter
//! writes a `$ref` into the root's `$defs` (inlining it where a dialect takes no references).
//! A cycle is refused with its path: a shape is finite.

use crate::diag::{Diagnostic, Span};
use crate::ir::{OutputKind, OutputType, Type};
use crate::load::read::{self, Diags, Sp, Struct};
use crate::load::yaml::{Node, Value};

/// The most schema nodes one output, one field or one shape may hold with its shapes inlined
/// (what the lock, the plan and every reader see, and what a dialect without references is
/// published): a shape used twice by a shape used twice … doubles at each level, so a few
/// lines of YAML could otherwise ask for millions.
pub const MAX_INLINED_NODES: usize = 10_000;

enum ShapeState<T> {
    Unread,
    /// Being read: a use met now is a cycle.
    Reading,
    /// Read (`None`: refused, already reported).
    Read(Option<T>),
}

/// One language's reads of the shapes (index = declaration order).
pub(crate) struct Reads<T> {
    state: Vec<ShapeState<T>>,
    /// The shapes being read, outermost first (a cycle's path).
    stack: Vec<usize>,
}

impl<T> Reads<T> {
    fn new(n: usize) -> Reads<T> {
        Reads {
            state: (0..n).map(|_| ShapeState::Unread).collect(),
            stack: Vec::new(),
        }
    }
}

/// A language a shape can be read in: its reader, its reads in a [`ShapeCx`], and how many
/// schema nodes a read holds (the size guard).
pub(crate) trait ShapeLanguage: Clone + Sized {
    fn reads<'c>(cx: &'c mut ShapeCx<'_>) -> &'c mut Reads<Self>;
    fn read_definition(
        node: &Node,
        what: &str,
        cx: &mut ShapeCx<'_>,
        d: &mut Diags,
    ) -> Option<Self>;
    fn nodes(&self) -> usize;
}

impl ShapeLanguage for OutputType {
    fn reads<'c>(cx: &'c mut ShapeCx<'_>) -> &'c mut Reads<Self> {
        &mut cx.outputs
    }
    fn read_definition(
        node: &Node,
        what: &str,
        cx: &mut ShapeCx<'_>,
        d: &mut Diags,
    ) -> Option<Self> {
        super::output::read_output(node, what, false, cx, d)
    }
    fn nodes(&self) -> usize {
        output_nodes(self)
    }
}

impl ShapeLanguage for Type {
    fn reads<'c>(cx: &'c mut ShapeCx<'_>) -> &'c mut Reads<Self> {
        &mut cx.fields
    }
    fn read_definition(
        node: &Node,
        what: &str,
        cx: &mut ShapeCx<'_>,
        d: &mut Diags,
    ) -> Option<Self> {
        super::model::read_type(node, what, false, cx, d).map(|(t, _)| t)
    }
    fn nodes(&self) -> usize {
        type_nodes(self)
    }
}

/// The schema nodes of an output type, its shapes inlined.
pub(crate) fn output_nodes(t: &OutputType) -> usize {
    1 + match &t.kind {
        OutputKind::Array(Some(items)) => output_nodes(items),
        OutputKind::Object(props) => props.iter().map(|p| output_nodes(&p.ty)).sum(),
        OutputKind::AnyOf(shapes) => shapes.iter().map(output_nodes).sum(),
        _ => 0,
    }
}

/// The schema nodes of a field type, its shapes inlined.
pub(crate) fn type_nodes(t: &Type) -> usize {
    match t {
        Type::Annotated { ty, .. } | Type::Shape { ty, .. } => type_nodes(ty),
        Type::Array { items, .. } => 1 + type_nodes(items),
        Type::Object {
            properties,
            additional,
            ..
        } => {
            1 + properties.iter().map(|p| type_nodes(&p.ty)).sum::<usize>()
                + additional.as_deref().map_or(0, type_nodes)
        }
        Type::Union { branches, .. } => 1 + branches.iter().map(type_nodes).sum::<usize>(),
        Type::String { .. }
        | Type::Integer { .. }
        | Type::Number { .. }
        | Type::Boolean
        | Type::Enum { .. }
        | Type::Any
        | Type::Null
        | Type::Const { .. } => 1,
    }
}

/// The refusal of `what` holding `nodes` schema nodes inlined.
pub(crate) fn too_large(what: &str, nodes: usize, at: Span) -> Diagnostic {
    Diagnostic::error(
        "shape-too-large",
        Some(at),
        format!(
            "{what} holds {nodes} schema nodes with its shapes inlined (at most {MAX_INLINED_NODES})"
        ),
    )
    .with_hint("a shape used by a shape used … multiplies: use fewer levels or fewer uses")
}

/// The shapes the fields and the outputs of a tool file used, each resolved, declaration
/// order.
pub struct UsedShapes {
    pub fields: Vec<(String, Type)>,
    pub outputs: Vec<(String, OutputType)>,
}

/// The `shapes:` of one tool file while its fields and outputs are read.
pub struct ShapeCx<'n> {
    shapes: Vec<(Sp<String>, &'n Node)>,
    fields: Reads<Type>,
    outputs: Reads<OutputType>,
}

impl<'n> ShapeCx<'n> {
    /// No shapes (a tool file without `shapes:`).
    pub fn none() -> ShapeCx<'static> {
        ShapeCx {
            shapes: Vec::new(),
            fields: Reads::new(0),
            outputs: Reads::new(0),
        }
    }

    /// A tool file's `shapes: { name: <type>, … }`.
    pub fn read(node: &'n Node, d: &mut Diags) -> ShapeCx<'n> {
        let mut shapes = Vec::new();
        for (name, n) in read::entries(node, "shapes", d) {
            if read::check_shape_name(&name, d) {
                shapes.push((name, n));
            }
        }
        let n = shapes.len();
        ShapeCx {
            shapes,
            fields: Reads::new(n),
            outputs: Reads::new(n),
        }
    }

    /// A use `{ shape: name, description? }` read in language `T`: the shape's definition,
    /// and the use's own `description` node (where given).
    pub(crate) fn use_shape<T: ShapeLanguage>(
        &mut self,
        node: &'_ Node,
        what: &str,
        d: &mut Diags,
    ) -> Option<(Sp<String>, T, Option<Node>)> {
        let s = Struct::read(node, what, &["shape", "description"], &["shape"], d)?;
        let name = s.get("shape").and_then(|n| read::string(n, "shape", d))?;
        let Some(ix) = self.shapes.iter().position(|(n, _)| n.v == name.v) else {
            let hint =
                crate::diag::did_you_mean(&name.v, self.shapes.iter().map(|(n, _)| n.v.as_str()))
                    .unwrap_or_else(|| "declare it under the tool's `shapes:`".into());
            d.push(
                Diagnostic::error(
                    "unknown-shape",
                    Some(name.span),
                    format!(
                        "{what} uses shape `{}`, which `shapes:` does not declare",
                        name.v
                    ),
                )
                .with_hint(hint),
            );
            return None;
        };
        let ty = self.resolve::<T>(ix, Some(name.span), d)?;
        Some((name, ty, s.get("description").cloned()))
    }

    /// Shape `ix` in language `T`, read on first need; `at`: the use that needs it (for a
    /// cycle's report).
    fn resolve<T: ShapeLanguage>(
        &mut self,
        ix: usize,
        at: Option<Span>,
        d: &mut Diags,
    ) -> Option<T> {
        match &T::reads(self).state[ix] {
            ShapeState::Read(t) => return t.clone(),
            ShapeState::Reading => {
                d.push(self.cycle::<T>(ix, at));
                return None;
            }
            ShapeState::Unread => {}
        }
        T::reads(self).state[ix] = ShapeState::Reading;
        T::reads(self).stack.push(ix);
        let (name, node) = (self.shapes[ix].0.clone(), self.shapes[ix].1);
        let what = format!("shape `{}`", name.v);
        let read = T::read_definition(node, &what, self, d);
        T::reads(self).stack.pop();
        let read = read.and_then(|t| {
            let n = t.nodes();
            if n > MAX_INLINED_NODES {
                d.push(too_large(&what, n, name.span));
                return None;
            }
            Some(t)
        });
        T::reads(self).state[ix] = ShapeState::Read(read.clone());
        read
    }

    /// `recursive-shape`: shape `ix` met again while it is being read.
    fn cycle<T: ShapeLanguage>(&mut self, ix: usize, at: Option<Span>) -> Diagnostic {
        let stack = T::reads(self).stack.clone();
        let from = stack.iter().position(|&i| i == ix).unwrap_or(0);
        let path: Vec<&str> = stack[from..]
            .iter()
            .chain(std::iter::once(&ix))
            .map(|&i| self.shapes[i].0.v.as_str())
            .collect();
        Diagnostic::error(
            "recursive-shape",
            at,
            format!(
                "shape `{}` contains itself: {}",
                self.shapes[ix].0.v,
                path.join(" → ")
            ),
        )
        .with_hint("a shape is finite: end the chain with a shape that uses none")
    }

    /// After the tool's fields and outputs: every shape read — one no field and no output
    /// uses is warned about and still checked (it must read as a field type or, failing
    /// that, as an output shape, whose errors are reported), as is one only unused shapes
    /// use — and the resolved ones each language used, declaration order.
    pub fn finish(mut self, d: &mut Diags) -> UsedShapes {
        let unread = |cx: &ShapeCx<'_>, ix: usize| {
            matches!(cx.fields.state[ix], ShapeState::Unread)
                && matches!(cx.outputs.state[ix], ShapeState::Unread)
        };
        let unused: Vec<usize> = (0..self.shapes.len())
            .filter(|&ix| unread(&self, ix))
            .collect();
        for &ix in &unused {
            d.push(
                Diagnostic::warning(
                    "unused-shape",
                    Some(self.shapes[ix].0.span),
                    format!(
                        "shape `{}` is used by no field and no output of the tool",
                        self.shapes[ix].0.v
                    ),
                )
                .with_hint("use it as `{ shape: name }`, or remove it"),
            );
        }
        for &ix in &unused {
            // Checked in the field language first, silently; what it says, if anything, is
            // said by the output language's read.
            let mut scratch = Vec::new();
            let as_field = self.resolve::<Type>(ix, None, &mut scratch);
            if as_field.is_none() || !scratch.is_empty() {
                let _ = self.resolve::<OutputType>(ix, None, d);
            }
        }
        // Checked, and in no list of used shapes (nor are those only they use).
        for ix in unused {
            self.fields.state[ix] = ShapeState::Unread;
            self.outputs.state[ix] = ShapeState::Unread;
        }
        let fields = used(&self.shapes, self.fields.state);
        let outputs = used(&self.shapes, self.outputs.state);
        UsedShapes { fields, outputs }
    }
}

/// The shapes read in one language, with their names, declaration order.
fn used<T>(shapes: &[(Sp<String>, &Node)], states: Vec<ShapeState<T>>) -> Vec<(String, T)> {
    shapes
        .iter()
        .zip(states)
        .filter_map(|((name, _), st)| match st {
            ShapeState::Read(Some(t)) => Some((name.v.clone(), t)),
            _ => None,
        })
        .collect()
}

/// Whether `node` is a use of a shape (a mapping with a `shape` key).
pub(crate) fn is_use(node: &Node) -> bool {
    matches!(&node.value, Value::Map(entries)
        if entries.iter().any(|(k, _)| k.as_str() == Some("shape")))
}
