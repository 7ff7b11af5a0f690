//! One tool's module: a strict struct per action (real Rust types, enums for enum fields,
//! nested structs for objects), the per-tool action enum, the tool's plan as a static
//! (`RULES`, the JSON of its `ToolPlan`) that the kernel's one walk interprets, the builders
//! that move the walk's [`Record`](toolsurface_kernel::walk::Record) into those structs, and
//! the one-pass decoder that answers the common case first. All of it is generated from the
//! tool's plan (`plan::lower_tool`) and its fields' plan types (`plan::lower_type`): the IR's
//! types are lowered by that one rule, the rules of a call exist once in code (the kernel's
//! walk) and once as data (the plan), and this module only names what it defines.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::names::{ident, pascal_str, snake, unique_pascal};
use super::rt;
use crate::ir::Tool;
use crate::plan::{self, ActionPlan, MemberPlan, Presence, ToolPlan, TypePlan};

/// A field type as the generated code holds it: the plan's type (its kind, bounds and
/// `expected …` texts, lowered once by `plan::lower_type`) and the names of what the module
/// defines for it.
#[derive(Clone)]
pub(super) struct RType<'p> {
    pub(super) plan: &'p TypePlan,
    pub(super) def: Def<'p>,
}

/// What the tool's module defines for a type (nothing for integers, numbers, booleans,
/// strings without a pattern and `any`).
#[derive(Clone)]
pub(super) enum Def<'p> {
    Plain,
    /// The static holding a string's compiled pattern (the decoder's).
    Pattern(Ident),
    /// The enum type (`ALL`, `as_str`) and its variants, in the plan's value order.
    Enum {
        name: Ident,
        variants: Vec<Ident>,
    },
    /// An array's item type.
    Array(Box<RType<'p>>),
    /// The struct and its builder (`build_<name>`); `at` is where the decoder finds its plan.
    Object {
        name: Ident,
        build_fn: Ident,
        at: Option<At>,
    },
    /// `null`, `const` or a union: a JSON value the walk checks; `at` as for an object.
    Json {
        at: Option<At>,
    },
}

/// Where a type stands in the tool's plan: an action's index, then the steps from its object
/// (`toolsurface_kernel::walk::Step`). The decoder hands a value of an object or JSON-valued
/// type to the walk there. `None` for a type no action reaches (the decoder never reads it).
#[derive(Clone)]
pub(super) struct At {
    action: usize,
    steps: Vec<TokenStream>,
}

impl At {
    fn then(&self, step: TokenStream) -> At {
        let mut steps = self.steps.clone();
        steps.push(step);
        At {
            action: self.action,
            steps,
        }
    }
}

/// `step` appended to an optional place.
fn then(at: &Option<At>, step: TokenStream) -> Option<At> {
    at.as_ref().map(|a| a.then(step))
}

impl RType<'_> {
    fn rust(&self) -> TokenStream {
        match &self.def {
            Def::Enum { name, .. } | Def::Object { name, .. } => quote!(#name),
            Def::Array(items) => {
                let t = items.rust();
                quote!(::std::vec::Vec<#t>)
            }
            Def::Plain | Def::Pattern(_) | Def::Json { .. } => match self.plan {
                TypePlan::String { .. } => quote!(::std::string::String),
                TypePlan::Integer { .. } => quote!(i64),
                TypePlan::Number { .. } => quote!(f64),
                TypePlan::Boolean => quote!(bool),
                TypePlan::Any
                | TypePlan::Null
                | TypePlan::Const { .. }
                | TypePlan::Union { .. } => {
                    let rt = rt();
                    quote!(#rt::serde_json::Value)
                }
                TypePlan::Enum { .. }
                | TypePlan::Array { .. }
                | TypePlan::Object { .. }
                | TypePlan::Shape { .. } => undefined(self),
            },
        }
    }

    /// The walk's `__t` (a `Typed`) built as this type: an expression of type
    /// `Result<Self, CallError>`, in a builder.
    fn built(&self) -> TokenStream {
        match (&self.def, self.plan) {
            (Def::Enum { name, .. }, _) => quote!(__t.variant(&#name::ALL)),
            (Def::Array(items), _) => {
                let item = items.built();
                quote!(__t.list(|__t| #item))
            }
            (Def::Object { build_fn, .. }, _) => quote!(__t.record().and_then(#build_fn)),
            (_, TypePlan::String { .. }) => quote!(__t.string()),
            (_, TypePlan::Integer { .. }) => quote!(__t.int()),
            (_, TypePlan::Number { .. }) => quote!(__t.num()),
            (_, TypePlan::Boolean) => quote!(__t.boolean()),
            (
                _,
                TypePlan::Any | TypePlan::Null | TypePlan::Const { .. } | TypePlan::Union { .. },
            ) => {
                quote!(__t.json())
            }
            _ => undefined(self),
        }
    }
}

/// What generated code says where a type lacks the definition [`lower`] gives its kind: a
/// generator bug, reported by rustc rather than hidden.
fn undefined(ty: &RType<'_>) -> TokenStream {
    let msg = format!("toolsurface codegen: {:?} was not lowered", ty.plan);
    quote!(::core::compile_error!(#msg))
}

/// Per-module naming and the definitions collected while lowering field types.
struct ModCx<'p> {
    used: BTreeSet<String>,
    defs: Vec<TokenStream>,
    patterns: usize,
    depth: usize,
    /// The tool's other keys (`parameters: additional_properties`): their type and the
    /// action structs' member holding them.
    open_root: Option<(RType<'p>, Ident)>,
    /// Each shape lowered so far, by name: every use of it is this one type (named after the
    /// shape), its decoder place the first use's (the plan holds the same type at each).
    shapes: std::collections::BTreeMap<String, RType<'p>>,
}

impl ModCx<'_> {
    fn fresh(&mut self, base: &str) -> Ident {
        let mut name = base.to_owned();
        let mut n = 2;
        while self.used.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        ident(&name)
    }
}

fn derives(copy_eq: bool) -> TokenStream {
    let rt = rt();
    let serde_crate = "::toolsurface::__private::serde";
    if copy_eq {
        quote! {
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, #rt::serde::Serialize)]
            #[serde(crate = #serde_crate)]
        }
    } else {
        quote! {
            #[derive(Clone, Debug, PartialEq, #rt::serde::Serialize)]
            #[serde(crate = #serde_crate)]
        }
    }
}

/// Define what the module needs for the plan's type `ty` at `at`; `hint` is the PascalCase
/// base for any type it defines.
fn lower<'p>(cx: &mut ModCx<'p>, ty: &'p TypePlan, hint: &str, at: Option<At>) -> RType<'p> {
    let rt = rt();
    if let TypePlan::Shape { name, ty: def } = ty {
        if let Some(lowered) = cx.shapes.get(name) {
            return lowered.clone();
        }
        let lowered = lower(cx, def, &pascal_str(name), at);
        cx.shapes.insert(name.clone(), lowered.clone());
        return lowered;
    }
    let def = match ty {
        TypePlan::String {
            pattern: Some(p), ..
        } => {
            cx.patterns += 1;
            let name = format_ident!("PATTERN_{}", cx.patterns);
            cx.defs.push(quote! {
                static #name: ::std::sync::LazyLock<::core::option::Option<#rt::regex::Regex>> =
                    ::std::sync::LazyLock::new(|| #rt::regex::Regex::new(#p).ok());
            });
            Def::Pattern(name)
        }
        TypePlan::Enum { values, .. } => lower_enum(cx, values, hint),
        TypePlan::Array { items, .. } => Def::Array(Box::new(lower(
            cx,
            items,
            &format!("{hint}Item"),
            then(&at, quote!(#rt::walk::Step::Items)),
        ))),
        TypePlan::Object { object } => lower_object(cx, object, hint, at),
        TypePlan::Null | TypePlan::Const { .. } | TypePlan::Union { .. } => Def::Json { at },
        // Taken above.
        TypePlan::Shape { .. } => Def::Plain,
        TypePlan::String { pattern: None, .. }
        | TypePlan::Integer { .. }
        | TypePlan::Number { .. }
        | TypePlan::Boolean
        | TypePlan::Any => Def::Plain,
    };
    RType { plan: ty, def }
}

/// [`lower`] for an enum field: its enum type (`ALL`, `as_str`) defined in the module.
fn lower_enum(cx: &mut ModCx<'_>, values: &[String], hint: &str) -> Def<'static> {
    let name = cx.fresh(hint);
    let variants: Vec<Ident> = unique_pascal(values).iter().map(|v| ident(v)).collect();
    let strs = values.to_vec();
    let d = derives(true);
    let n = values.len();
    cx.defs.push(quote! {
        #d
        pub enum #name {
            #( #[serde(rename = #strs)] #variants, )*
        }
        impl #name {
            pub const ALL: [#name; #n] = [#( #name::#variants ),*];
            pub fn as_str(self) -> &'static str {
                match self { #( #name::#variants => #strs, )* }
            }
        }
    });
    Def::Enum { name, variants }
}

/// [`lower`] for an object field: its struct and its builder (`build_<name>`) defined in the
/// module.
fn lower_object<'p>(
    cx: &mut ModCx<'p>,
    object: &'p plan::ObjectPlan,
    hint: &str,
    at: Option<At>,
) -> Def<'p> {
    let rt = rt();
    let name = cx.fresh(hint);
    let build_fn = build_ident(cx, &name);
    let props: Vec<BuiltField> = object
        .fields
        .iter()
        .enumerate()
        .map(|(i, p)| BuiltField {
            name: p.name.clone(),
            ident: snake(&p.name),
            ty: lower(
                cx,
                &p.ty,
                &format!("{name}{}", pascal_str(&p.name)),
                then(&at, quote!(#rt::walk::Step::Field(#i))),
            ),
            required: p.required,
        })
        .collect();
    let other = object.additional.as_deref().map(|t| {
        let ty = lower(
            cx,
            t,
            &format!("{name}Other"),
            then(&at, quote!(#rt::walk::Step::Other)),
        );
        (ty, other_keys_ident(props.iter().map(|p| &p.ident)))
    });
    let d = derives(false);
    let fields = props
        .iter()
        .map(struct_field)
        .chain(other.as_ref().map(other_keys_field));
    cx.defs.push(quote! {
        #d
        pub struct #name { #( #fields, )* }
    });
    cx.defs
        .push(builder(&build_fn, &quote!(#name), &props, other.as_ref()));
    Def::Object { name, build_fn, at }
}

/// A field of a generated struct that a builder fills: its JSON name, its member, its type.
struct BuiltField<'p> {
    name: String,
    ident: Ident,
    ty: RType<'p>,
    required: bool,
}

/// `fn <build_fn>(Record) -> Result<<strukt>, CallError>`: the walk's record of an object moved
/// into its struct, field by field in the plan's order (the record's), an open object's other
/// keys as they are. No rule is checked here (the walk checked them all); a value of another
/// kind than the field's is a generator bug, refused as `plan_mismatch`.
fn builder(
    build_fn: &Ident,
    strukt: &TokenStream,
    fields: &[BuiltField<'_>],
    other: Option<&(RType<'_>, Ident)>,
) -> TokenStream {
    let rt = rt();
    let inits = fields.iter().map(|f| {
        let id = &f.ident;
        let value = f.ty.built();
        let take = if f.required {
            quote!(required)
        } else {
            quote!(optional)
        };
        quote! {
            #id: #rt::walk::#take(__fields.next(), |__t| #value)?
        }
    });
    let other = other.map(|(_, id)| quote!(#id: __record.other,));
    let fields_binding = if fields.is_empty() {
        quote!()
    } else {
        quote!(let mut __fields = __record.fields.into_iter();)
    };
    quote! {
        #[allow(unused_variables)]
        fn #build_fn(
            __record: #rt::walk::Record,
        ) -> ::core::result::Result<#strukt, #rt::CallError> {
            #fields_binding
            ::core::result::Result::Ok(#strukt { #(#inits,)* #other })
        }
    }
}

/// The member of a generated struct holding an open object's other keys: `additional_properties`
/// unless a field takes that name (then with a `_` appended).
fn other_keys_ident<'i>(fields: impl Iterator<Item = &'i Ident>) -> Ident {
    let taken: Vec<String> = fields.map(ToString::to_string).collect();
    let mut name = "additional_properties".to_owned();
    while taken.contains(&name) {
        name.push('_');
    }
    ident(&name)
}

/// The struct member of an open object's other keys: each as JSON, input order, serialized
/// after the fields.
fn other_keys_field((_, id): &(RType<'_>, Ident)) -> TokenStream {
    let rt = rt();
    quote! {
        #[serde(flatten)]
        pub #id: #rt::serde_json::Map<::std::string::String, #rt::serde_json::Value>
    }
}

fn struct_field(f: &BuiltField<'_>) -> TokenStream {
    let id = &f.ident;
    let t = f.ty.rust();
    let rename = (*id != f.name).then(|| {
        let n = &f.name;
        quote!(#[serde(rename = #n)])
    });
    if f.required {
        quote!(#rename pub #id: #t)
    } else {
        quote! {
            #rename
            #[serde(skip_serializing_if = "::core::option::Option::is_none")]
            pub #id: ::core::option::Option<#t>
        }
    }
}

/// A string's checks on `s` beyond its type (its length in characters, its pattern), as the
/// decoder tests them (the walk tests the plan's).
fn string_checks(plan: &TypePlan, def: &Def<'_>) -> Vec<TokenStream> {
    let rt = rt();
    let mut checks = Vec::new();
    if let TypePlan::String {
        min_length,
        max_length,
        ..
    } = plan
        && (min_length.is_some() || max_length.is_some())
    {
        let a = min_length.unwrap_or(0);
        let b = max_length.unwrap_or(u64::MAX);
        checks.push(quote!(#rt::chars_within(s, #a, #b)));
    }
    if let Def::Pattern(p) = def {
        checks.push(quote!(#rt::matches(&#p, s)));
    }
    checks
}

/// Whether a constraint counts its member given, by the plan's presence rule, tested on the
/// member's local in the decoder (`f_<name>`; a required one is no
/// longer an `Option` at that point, and is always given).
fn given(m: &MemberPlan) -> TokenStream {
    let local = format_ident!("f_{}", m.field);
    match m.presence {
        Presence::Always => quote!(true),
        Presence::Never => quote!(false),
        Presence::Given => quote!(#local.is_some()),
        Presence::True => quote!(::core::matches!(#local, ::core::option::Option::Some(true))),
    }
}

/// A tool's declared fields with their generated types, declaration order.
pub(super) type Lowered<'p> = [(String, RType<'p>)];

/// The generated type of the field `name`.
pub(super) fn field_type<'l, 'p>(lowered: &'l Lowered<'p>, name: &str) -> Option<&'l RType<'p>> {
    lowered.iter().find(|(n, _)| n == name).map(|(_, t)| t)
}

/// The module `pub mod <tool> { … }` and what the parent needs to call it: generated from the
/// tool's plan (`plan::lower_tool`: its actions' objects, prefixes, `belongs` lists and
/// constraints with their presence rules) and its fields' plan types (`plan::lower_type`).
pub fn tool_module(tool: &Tool, tp: &ToolPlan, outer: &Ident) -> TokenStream {
    let rt = rt();
    let module = snake(&tool.name);
    // Every declared field once (one definition, one type), in declaration order.
    let types: Vec<(&str, TypePlan)> = tool
        .fields
        .iter()
        .map(|f| (f.name.as_str(), plan::lower_type(&f.ty)))
        .collect();
    let other = tool.parameters.additional.as_ref().map(plan::lower_type);
    let mut cx = ModCx {
        used: ["Call", "Action"].iter().map(|s| (*s).to_owned()).collect(),
        defs: Vec::new(),
        patterns: 0,
        depth: 0,
        open_root: None,
        shapes: std::collections::BTreeMap::new(),
    };
    // Action struct names first, so field types yield to them.
    let action_idents = action_idents(&mut cx, tp);
    let lowered: Vec<(String, RType<'_>)> = types
        .iter()
        .map(|(name, ty)| {
            let at = field_at(tp, name);
            (
                (*name).to_owned(),
                lower(&mut cx, ty, &pascal_str(name), at),
            )
        })
        .collect();
    cx.open_root = other.as_ref().map(|t| {
        let at = (!tp.actions.is_empty()).then(|| At {
            action: 0,
            steps: vec![quote!(#rt::walk::Step::Other)],
        });
        let ty = lower(&mut cx, t, "OtherKey", at);
        let idents: Vec<Ident> = lowered.iter().map(|(n, _)| snake(n)).collect();
        (ty, other_keys_ident(idents.iter()))
    });
    let mut items = if tp.selector.is_none() {
        let Some(action) = tp.actions.first() else {
            return quote!();
        };
        plain_items(&mut cx, tp, action, outer, &lowered)
    } else {
        selector_items(&mut cx, tp, &action_idents, outer, &lowered)
    };
    items.push(rules_static(tp));
    items.push(super::implements::conversions(
        tool,
        tp,
        &action_idents,
        &lowered,
    ));
    let defs = &cx.defs;
    let doc = format!(" `{}`: {}", tool.name, tool.object);
    quote! {
        #[doc = #doc]
        pub mod #module {
            #(#items)*
            #(#defs)*
        }
    }
}

/// Where the declared field `name` stands in the plan: the first action taking it, and its
/// index among that action's fields.
fn field_at(tp: &ToolPlan, name: &str) -> Option<At> {
    let rt = rt();
    tp.actions.iter().enumerate().find_map(|(a, action)| {
        let i = action.object.fields.iter().position(|f| f.name == name)?;
        Some(At {
            action: a,
            steps: vec![quote!(#rt::walk::Step::Field(#i))],
        })
    })
}

/// `RULES`: the tool's plan as JSON, read on first use into the kernel's `ToolRules` (its
/// patterns compiled once) — the data the one walk interprets.
fn rules_static(tp: &ToolPlan) -> TokenStream {
    let rt = rt();
    let json = match serde_json::to_string(tp) {
        Ok(json) => json,
        Err(e) => {
            let msg = format!(
                "toolsurface codegen: the plan of {} is no JSON: {e}",
                tp.name
            );
            return quote!(::core::compile_error!(#msg););
        }
    };
    quote! {
        /// This tool's plan (`toolsurface plan`'s `ToolPlan`): the rules the walk reads.
        static RULES: ::std::sync::LazyLock<#rt::walk::ToolRules> =
            ::std::sync::LazyLock::new(|| #rt::walk::ToolRules::from_json(#json));
    }
}

/// The action struct names of a tool with a selector (PascalCase, unique; `Call` and
/// `Action` get `Args`), reserved in `cx`. Empty for a plain tool, whose struct is `Call`.
fn action_idents(cx: &mut ModCx<'_>, tp: &ToolPlan) -> Vec<Ident> {
    if tp.selector.is_none() {
        return Vec::new();
    }
    let action_names: Vec<String> = tp.actions.iter().filter_map(|a| a.name.clone()).collect();
    unique_pascal(&action_names)
        .into_iter()
        .map(|n| {
            let n = if n == "Call" || n == "Action" {
                format!("{n}Args")
            } else {
                n
            };
            cx.used.insert(n.clone());
            ident(&n)
        })
        .collect()
}

/// `parse`, the tool's entry from `Call::parse`: the decoder first, the walk for the rest.
fn parse_entry(outer: &Ident) -> TokenStream {
    let rt = rt();
    quote! {
        /// `Call::parse` for this tool: the decoder builds the surface's `Call` in place (no
        /// copy of the typed call on the way out); the walk decides what it leaves.
        pub(super) fn parse(__obj: #rt::Obj<'_>) -> ::core::result::Result<super::Call, #rt::CallError> {
            if let ::core::option::Option::Some(__call) = __obj.text().and_then(decode) {
                return ::core::result::Result::Ok(__call);
            }
            walk(__obj).map(super::Call::#outer)
        }
    }
}

/// A plain tool's items: the `Call` struct, `parse`, the walk, the builder and the decoder.
fn plain_items(
    cx: &mut ModCx<'_>,
    tp: &ToolPlan,
    action: &ActionPlan,
    outer: &Ident,
    lowered: &Lowered<'_>,
) -> Vec<TokenStream> {
    let rt = rt();
    let d = derives(false);
    let (st, build_fn, build) = action_items(cx, action, &ident("Call"), lowered);
    let decode = decoder(
        cx,
        tp,
        outer,
        lowered,
        &[Target {
            action,
            strukt: ident("Call"),
            variant: None,
        }],
    );
    let parse = parse_entry(outer);
    vec![
        quote! { #d #st },
        quote! {
            #parse

            /// The walk: the kernel's, over this tool's plan. Decides what the decoder left,
            /// and words every refusal.
            #[inline(never)]
            fn walk(__obj: #rt::Obj<'_>) -> ::core::result::Result<Call, #rt::CallError> {
                let (_, __record) = RULES.walk(__obj)?;
                #build_fn(__record)
            }

            #build

            #decode
        },
    ]
}

/// A selector tool's items: a struct per action with its builder, the `Call` and `Action`
/// enums, `parse`, the walk (the kernel's: the selector, then the action's object) and the
/// decoder.
fn selector_items(
    cx: &mut ModCx<'_>,
    tp: &ToolPlan,
    action_idents: &[Ident],
    outer: &Ident,
    lowered: &Lowered<'_>,
) -> Vec<TokenStream> {
    let d = derives(false);
    let selector = tp.selector.as_deref().unwrap_or("action");
    let mut items = Vec::new();
    let mut variants = Vec::new();
    let mut builds = Vec::new();
    for (action, id) in tp.actions.iter().zip(action_idents) {
        let aname = action.name.clone().unwrap_or_default();
        let (st, build_fn, build) = action_items(cx, action, id, lowered);
        let doc = format!(" `{selector}: {aname}`");
        items.push(quote! { #[doc = #doc] #d #st });
        builds.push(build);
        variants.push(Variant {
            name: aname,
            strukt: id.clone(),
            build_fn,
        });
    }
    let targets: Vec<Target<'_>> = tp
        .actions
        .iter()
        .zip(action_idents)
        .map(|(action, id)| Target {
            action,
            strukt: id.clone(),
            variant: Some(id.clone()),
        })
        .collect();
    let decode = decoder(cx, tp, outer, lowered, &targets);
    items.push(selector_call(selector, &variants, outer, &builds, &decode));
    items
}

/// One action of a tool with a selector: its selector value, struct name and builder.
struct Variant {
    name: String,
    strukt: Ident,
    build_fn: Ident,
}

/// The `Call` and `Action` enums of a selector tool, `parse`, and the walk: the kernel's over
/// the tool's plan, answering the action's index and its record, which that action's builder
/// moves into its struct.
fn selector_call(
    selector: &str,
    variants: &[Variant],
    outer: &Ident,
    builds: &[TokenStream],
    decode: &TokenStream,
) -> TokenStream {
    let rt = rt();
    let d = derives(false);
    let strs: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
    let ids: Vec<&Ident> = variants.iter().map(|v| &v.strukt).collect();
    let fns: Vec<&Ident> = variants.iter().map(|v| &v.build_fn).collect();
    let indices = (0..variants.len()).map(proc_macro2::Literal::usize_unsuffixed);
    let n = strs.len();
    let parse = parse_entry(outer);
    quote! {
        /// The typed call: one variant per action.
        #d
        #[serde(tag = #selector)]
        pub enum Call {
            #( #[serde(rename = #strs)] #ids(#ids), )*
        }

        /// The actions, in published order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Action { #(#ids,)* }

        impl Action {
            pub const ALL: [Action; #n] = [#(Action::#ids),*];
            pub fn as_str(self) -> &'static str {
                match self { #(Action::#ids => #strs,)* }
            }
        }

        impl Call {
            pub fn action(&self) -> Action {
                match self { #(Call::#ids(_) => Action::#ids,)* }
            }
        }

        #parse

        /// The walk: the kernel's, over this tool's plan. Decides what the decoder left, and
        /// words every refusal.
        #[inline(never)]
        fn walk(__obj: #rt::Obj<'_>) -> ::core::result::Result<Call, #rt::CallError> {
            let (__action, __record) = RULES.walk(__obj)?;
            match __action {
                #( #indices => #fns(__record).map(Call::#ids), )*
                _ => ::core::result::Result::Err(#rt::walk::plan_mismatch()),
            }
        }

        #(#builds)*

        #decode
    }
}

/// The struct for one action, its builder's name and the builder: the plan action's fields
/// (declaration order, the order of the walk's record) with their generated types.
fn action_items(
    cx: &mut ModCx<'_>,
    action: &ActionPlan,
    name: &Ident,
    lowered: &Lowered<'_>,
) -> (TokenStream, Ident, TokenStream) {
    let fields: Vec<BuiltField<'_>> = action
        .object
        .fields
        .iter()
        .filter_map(|f| {
            field_type(lowered, &f.name).map(|t| BuiltField {
                name: f.name.clone(),
                ident: snake(&f.name),
                ty: t.clone(),
                required: f.required,
            })
        })
        .collect();
    let open = cx.open_root.clone();
    let struct_fields = fields
        .iter()
        .map(struct_field)
        .chain(open.as_ref().map(other_keys_field));
    let st = quote! {
        pub struct #name { #(#struct_fields,)* }
    };
    let build_fn = build_ident(cx, name);
    let build = builder(&build_fn, &quote!(#name), &fields, open.as_ref());
    (st, build_fn, build)
}

/// The builder's name for the struct `name`: `build_<name in snake case>`, unique in the
/// module.
fn build_ident(cx: &mut ModCx<'_>, name: &Ident) -> Ident {
    let mut snake_name = String::new();
    for (i, c) in name.to_string().chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                snake_name.push('_');
            }
            snake_name.push(c.to_ascii_lowercase());
        } else {
            snake_name.push(c);
        }
    }
    cx.fresh(&format!("build_{snake_name}"))
}

/// A field the decoder reads: its name, the typed local it goes into, its type.
type DecodedField<'t, 'p> = (&'t str, Ident, &'t RType<'p>);

/// An array's allowed lengths as the tokens `(min..=max)` (no lower bound: 0; no upper:
/// `usize::MAX`), or `None` when the array declares neither: the walk and the decoder check
/// the same range.
fn array_length_range(min: Option<u64>, max: Option<u64>) -> Option<TokenStream> {
    if min.is_none() && max.is_none() {
        return None;
    }
    let a = min.unwrap_or(0) as usize;
    let b = max.map_or(usize::MAX, |m| m as usize);
    Some(quote!((#a..=#b)))
}

/// An action the decoder can produce: its struct, and its `Call`/`Action` variant (`None` for a
/// plain tool, whose struct is `Call` itself).
struct Target<'a> {
    action: &'a ActionPlan,
    strukt: Ident,
    variant: Option<Ident>,
}

/// `fn decode(text) -> Option<super::Call>`: one pass over the arguments text with a
/// [`Cursor`](rt), every member read straight into a typed local (all of the tool's fields, so
/// nothing waits for the selector), then the chosen action's checks: fields it does not take,
/// required fields, constraints. It answers `None` whenever it is not sure the walk would accept
/// the same call with the same values (anything refused, and anything the scanner gives up
/// on): `parse` then runs the walk, which decides, error text included. Values are converted as
/// the walk converts them (the same `as_int`/`as_num` of the same scanned number); a `null`
/// member counts as absent, as in the walk.
fn decoder(
    cx: &mut ModCx<'_>,
    tp: &ToolPlan,
    outer: &Ident,
    lowered: &Lowered<'_>,
    targets: &[Target<'_>],
) -> TokenStream {
    let rt = rt();
    let selector = tp.selector.as_deref();
    // The decoder gives up on any key that is no field, so other keys are never there.
    let open = cx.open_root.as_ref().map(|(_, id)| id.clone());
    let open = open.as_ref();
    // A field no action takes is refused even when null: leave it to the walk.
    let fields: Vec<DecodedField<'_, '_>> = lowered
        .iter()
        .filter(|(name, _)| tp.takes(name))
        .map(|(name, t)| (name.as_str(), format_ident!("f_{}", name), t))
        .collect();
    let c = format_ident!("__c");
    let (sel_state, members) = member_loop(cx, &c, selector, targets, &fields);
    let end = if selector.is_some() {
        let arms = targets.iter().map(|t| {
            let id = &t.strukt;
            let body = decoded_action(&fields, t, outer, open);
            quote!(Action::#id => { #body })
        });
        quote! {
            match __sel? { #(#arms)* }
        }
    } else {
        targets
            .first()
            .map(|t| decoded_action(&fields, t, outer, open))
            .unwrap_or_default()
    };
    let locals = fields.iter().map(|(_, l, ty)| {
        let t = ty.rust();
        quote!(let mut #l: ::core::option::Option<#t> = ::core::option::Option::None;)
    });
    quote! {
        /// The one-pass decoder; `None` leaves the call to the walk.
        #[inline]
        fn decode(__text: &str) -> ::core::option::Option<super::Call> {
            let mut #c = #rt::Cursor::new(__text);
            #sel_state
            #(#locals)*
            #members
            #c.end()?;
            #end
        }
    }
}

/// The decoder's member loop over cursor `c`: each key matched where it stands (the selector
/// first), its value read into the typed local of its field. Returns the selector's local (empty
/// for a plain tool) and the loop.
fn member_loop(
    cx: &mut ModCx<'_>,
    c: &Ident,
    selector: Option<&str>,
    targets: &[Target<'_>],
    fields: &[DecodedField<'_, '_>],
) -> (TokenStream, TokenStream) {
    let none = quote!(return ::core::option::Option::None);
    // (key, what reading its value does), the selector first.
    let mut arms: Vec<(String, TokenStream)> = Vec::new();
    let mut sel_state = quote!();
    if let Some(sel) = selector {
        let values = targets
            .iter()
            .map(|t| {
                let id = &t.strukt;
                (
                    t.action.name.clone().unwrap_or_default(),
                    quote!(Action::#id),
                )
            })
            .collect();
        let read = literal_switch(c, values, &none);
        sel_state =
            quote!(let mut __sel: ::core::option::Option<Action> = ::core::option::Option::None;);
        arms.push((
            sel.to_owned(),
            quote! {
                if __sel.is_some() { #none; }
                __sel = ::core::option::Option::Some(#read);
            },
        ));
    }
    for (name, local, ty) in fields {
        let read = read_fast(cx, ty, c, 1);
        arms.push((
            (*name).to_owned(),
            quote! {
                if !#c.null() {
                    if #local.is_some() { #none; }
                    #local = ::core::option::Option::Some(#read);
                }
            },
        ));
    }
    let members = if arms.is_empty() {
        quote! {
            if #c.open()? { #none; }
        }
    } else {
        // The key is matched where it stands, quotes included (no scan for its end, no string
        // compare); then its `:`.
        let arms = arms
            .into_iter()
            .map(|(key, body)| (key, quote!({ #c.colon()?; #body })))
            .collect();
        let read_member = literal_switch(c, arms, &none);
        quote! {
            if #c.open()? {
                loop {
                    #read_member
                    if !#c.next_member()? { break; }
                }
            }
        }
    };
    (sel_state, members)
}

/// The decoder's end for one action `t`: refuse the fields it does not take, unwrap the
/// required ones, run its `exactly_one_of` / `forbidden_with` checks, build the call.
fn decoded_action(
    fields: &[DecodedField<'_, '_>],
    t: &Target<'_>,
    outer: &Ident,
    open: Option<&Ident>,
) -> TokenStream {
    let none = quote!(return ::core::option::Option::None);
    let object = &t.action.object;
    let others: Vec<&Ident> = fields
        .iter()
        .filter(|(n, _, _)| object.field(n).is_none())
        .map(|(_, l, _)| l)
        .collect();
    let refuse_others = if others.is_empty() {
        quote!()
    } else {
        quote! {
            if #(#others.is_some())||* { #none; }
        }
    };
    let required = fields
        .iter()
        .filter(|(n, _, _)| object.field(n).is_some_and(|f| f.required))
        .map(|(_, l, _)| quote!(let #l = #l?;));
    let mut checks = Vec::new();
    for group in &object.exactly_one_of {
        let flags = group.iter().map(given);
        checks.push(quote! {
            if [#(#flags),*].iter().filter(|g| **g).count() != 1 { #none; }
        });
    }
    for fw in &object.forbidden_with {
        let x = given(&fw.field);
        let y = given(&fw.with);
        checks.push(quote! {
            if #x && #y { #none; }
        });
    }
    let strukt = &t.strukt;
    let rt = rt();
    let inits = fields
        .iter()
        .filter(|(n, _, _)| object.field(n).is_some())
        .map(|(n, l, _)| {
            let id = snake(n);
            quote!(#id: #l)
        })
        .chain(open.map(|id| quote!(#id: #rt::serde_json::Map::new())));
    let value = match &t.variant {
        Some(v) => quote!(super::Call::#outer(Call::#v(#strukt { #(#inits),* }))),
        None => quote!(super::Call::#outer(#strukt { #(#inits),* })),
    };
    quote! {
        #refuse_others
        #(#required)*
        #(#checks)*
        ::core::option::Option::Some(#value)
    }
}

/// Reading a value of `ty` at the cursor, `depth` containers deep: evaluates to the typed value
/// or returns `None` from the decoder.
fn read_fast(cx: &mut ModCx<'_>, ty: &RType<'_>, c: &Ident, depth: usize) -> TokenStream {
    let rt = rt();
    let none = quote!(return ::core::option::Option::None);
    match (ty.plan, &ty.def) {
        (
            TypePlan::Integer {
                minimum, maximum, ..
            },
            _,
        ) => {
            if minimum.is_none() && maximum.is_none() {
                return quote!(#c.int()?);
            }
            let guard = range_guard(minimum, maximum);
            quote!(match #c.int() { ::core::option::Option::Some(n) #guard => n, _ => #none })
        }
        (
            TypePlan::Number {
                minimum, maximum, ..
            },
            _,
        ) => {
            if minimum.is_none() && maximum.is_none() {
                return quote!(#c.num()?);
            }
            let guard = range_guard(minimum, maximum);
            quote!(match #c.num() { ::core::option::Option::Some(n) #guard => n, _ => #none })
        }
        (TypePlan::Boolean, _) => quote!(#c.bool()?),
        (TypePlan::String { .. }, def) => {
            let checks = string_checks(ty.plan, def);
            if checks.is_empty() {
                return quote!(#rt::owned(#c.str()?));
            }
            quote! {
                match #c.str() {
                    ::core::option::Option::Some(s) if #(#checks)&&* => #rt::owned(s),
                    _ => #none,
                }
            }
        }
        (TypePlan::Enum { values, .. }, Def::Enum { name, variants }) => {
            let arms = values
                .iter()
                .zip(variants)
                .map(|(s, var)| (s.clone(), quote!(#name::#var)))
                .collect();
            literal_switch(c, arms, &none)
        }
        (
            TypePlan::Array {
                min_items,
                max_items,
                ..
            },
            Def::Array(items),
        ) => {
            cx.depth += 1;
            let out = format_ident!("__out{}", cx.depth);
            let item = read_fast(cx, items, c, depth + 1);
            cx.depth -= 1;
            let guard = array_length_range(*min_items, *max_items)
                .map(|range| quote!(if !#range.contains(&#out.len()) { #none; }))
                .unwrap_or_default();
            quote! {
                {
                    let mut #out = ::std::vec::Vec::new();
                    if #c.arr_open()? {
                        loop {
                            #out.push(#item);
                            if !#c.next_item()? { break; }
                        }
                    }
                    #guard
                    #out
                }
            }
        }
        // An object or a JSON-valued kind: the walk reads the value where the plan has it.
        (
            TypePlan::Object { .. },
            Def::Object {
                build_fn,
                at: Some(at),
                ..
            },
        ) => {
            let walked = decode_at(at, c, depth);
            quote!(#build_fn(#walked.record().ok()?).ok()?)
        }
        (_, Def::Json { at: Some(at) }) => {
            let walked = decode_at(at, c, depth);
            quote!(#walked.json().ok()?)
        }
        (TypePlan::Any, _) => quote!(#rt::to_json(#c.value_at(#depth)?)),
        // No action reaches it: the decoder never reads it.
        (_, Def::Object { at: None, .. } | Def::Json { at: None }) => none,
        _ => undefined(ty),
    }
}

/// The walk's typed value of the value at the cursor, `depth` containers deep, read by the
/// tool's plan at `at` (returns `None` from the decoder when the walk would refuse it).
fn decode_at(at: &At, c: &Ident, depth: usize) -> TokenStream {
    let (action, steps) = (at.action, &at.steps);
    quote!(RULES.decode_at(#action, &[#(#steps),*], #c.value_at(#depth)?)?)
}

/// `if <n in [min, max]>` for a match arm on `n` (empty when unbounded).
fn range_guard<T: quote::ToTokens>(min: &Option<T>, max: &Option<T>) -> TokenStream {
    match (min, max) {
        (Some(a), Some(b)) => quote!(if (#a..=#b).contains(&n)),
        (Some(a), None) => quote!(if n >= #a),
        (None, Some(b)) => quote!(if n <= #b),
        (None, None) => quote!(),
    }
}

/// Reading one of the strings `literals` at the cursor (a member's key, an enum value, a
/// selector value) and evaluating to its arm, else `none`: a `match` on the byte after the
/// opening quote, each arm guarded by one comparison of the whole quoted literal with the bytes
/// there (a fixed-length compare the optimizer turns into a few wide loads). The closing quote
/// is part of the compare, so a longer string never matches; a string written with an escape
/// never matches either (the walk reads it).
fn literal_switch(
    c: &Ident,
    literals: Vec<(String, TokenStream)>,
    none: &TokenStream,
) -> TokenStream {
    let arms = literals
        .into_iter()
        // A string JSON writes with an escape never stands in the text as is.
        .filter(|(text, _)| !text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20))
        .map(|(text, arm)| {
            let first = proc_macro2::Literal::byte_character(text.bytes().next().unwrap_or(b'"'));
            let quoted = proc_macro2::Literal::byte_string(format!("\"{text}\"").as_bytes());
            quote!(::core::option::Option::Some(#first) if #c.literal(#quoted) => #arm,)
        });
    quote! {
        match #c.after_quote() {
            #(#arms)*
            _ => #none,
        }
    }
}
