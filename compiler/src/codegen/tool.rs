//! One tool's module: a strict struct per action (real Rust types, enums for enum fields,
//! nested structs for objects), the per-tool action enum, and the hand-written validating walk
//! that turns a JSON object into them with model-facing error texts. All of it is generated
//! from the tool's plan (`plan::lower_tool`) and its fields' plan types (`plan::lower_type`):
//! the IR's types are lowered by that one rule, and this module only names what it defines.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::names::{ident, pascal_str, snake, unique_pascal};
use super::rt;
use crate::ir::Tool;
use crate::plan::{self, ActionPlan, MemberPlan, ObjectPlan, Presence, ToolPlan, TypePlan};

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
    /// The static holding a string's compiled pattern.
    Pattern(Ident),
    /// The enum type (`ALL`, `as_str`) and its variants, in the plan's value order.
    Enum {
        name: Ident,
        variants: Vec<Ident>,
    },
    /// An array's item type.
    Array(Box<RType<'p>>),
    /// The struct and its walk (`parse_<name>`).
    Object {
        name: Ident,
        parse_fn: Ident,
    },
    /// `null`, `const` or a union: the function converting a value to its JSON typed value.
    Check(Ident),
}

impl RType<'_> {
    fn rust(&self) -> TokenStream {
        match &self.def {
            Def::Enum { name, .. } | Def::Object { name, .. } => quote!(#name),
            Def::Array(items) => {
                let t = items.rust();
                quote!(::std::vec::Vec<#t>)
            }
            Def::Plain | Def::Pattern(_) | Def::Check(_) => match self.plan {
                TypePlan::String { .. } => quote!(::std::string::String),
                TypePlan::Integer { .. } => quote!(i64),
                TypePlan::Number { .. } => quote!(f64),
                TypePlan::Boolean => quote!(bool),
                _ if self.holds_json() => {
                    let rt = rt();
                    quote!(#rt::serde_json::Value)
                }
                _ => undefined(self),
            },
        }
    }

    /// Whether the typed value is JSON itself (`any`, `null`, `const`, a union).
    fn holds_json(&self) -> bool {
        match self.plan {
            TypePlan::Any | TypePlan::Null | TypePlan::Const { .. } | TypePlan::Union { .. } => {
                true
            }
            TypePlan::String { .. }
            | TypePlan::Integer { .. }
            | TypePlan::Number { .. }
            | TypePlan::Boolean
            | TypePlan::Enum { .. }
            | TypePlan::Array { .. }
            | TypePlan::Object { .. } => false,
        }
    }

    /// The typed value `e` of this type as JSON (what a union or an open object keeps).
    fn json_value(&self, e: TokenStream) -> TokenStream {
        if self.holds_json() {
            return e;
        }
        let rt = rt();
        quote!(#rt::to_value(#e))
    }
}

/// What generated code says where a type lacks the definition [`lower`] gives its kind: a
/// generator bug, reported by rustc rather than hidden.
fn undefined(ty: &RType<'_>) -> TokenStream {
    let msg = format!("toolsurface codegen: {:?} was not lowered", ty.plan);
    quote!(::core::compile_error!(#msg))
}

/// A piece of an error-message path: literal text or a runtime expression (`prefix`, an index).
#[derive(Clone)]
enum Part {
    Lit(String),
    Expr(TokenStream),
}

/// The path an error message starts with, e.g. `action=wait: timeout_s`.
#[derive(Clone, Default)]
struct Ctx(Vec<Part>);

impl Ctx {
    fn lit(s: &str) -> Ctx {
        Ctx(vec![Part::Lit(s.to_owned())])
    }
    fn plus_lit(&self, s: &str) -> Ctx {
        let mut c = self.clone();
        c.0.push(Part::Lit(s.to_owned()));
        c
    }
    fn plus_expr(&self, e: TokenStream) -> Ctx {
        let mut c = self.clone();
        c.0.push(Part::Expr(e));
        c
    }
    /// An expression of type `&str`; allocates only when the path has runtime parts.
    fn render(&self) -> TokenStream {
        if self.0.iter().all(|p| matches!(p, Part::Lit(_))) {
            let s: String = self
                .0
                .iter()
                .map(|p| match p {
                    Part::Lit(s) => s.as_str(),
                    Part::Expr(_) => "",
                })
                .collect();
            return quote!(#s);
        }
        let mut fmt = String::new();
        let mut args = Vec::new();
        for p in &self.0 {
            match p {
                Part::Lit(s) => fmt.push_str(&s.replace('{', "{{").replace('}', "}}")),
                Part::Expr(e) => {
                    fmt.push_str("{}");
                    args.push(e.clone());
                }
            }
        }
        quote!(&::std::format!(#fmt, #(#args),*))
    }
}

/// Per-module naming and the definitions collected while lowering field types.
struct ModCx<'p> {
    used: BTreeSet<String>,
    defs: Vec<TokenStream>,
    patterns: usize,
    /// Conversion functions of JSON-valued kinds defined so far (`value_<n>`).
    values: usize,
    depth: usize,
    /// The tool's other keys (`parameters: additional_properties`): their type and the
    /// action structs' member holding them.
    open_root: Option<(RType<'p>, Ident)>,
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

/// Define what the module needs for the plan's type `ty`; `hint` is the PascalCase base for
/// any type it defines.
fn lower<'p>(cx: &mut ModCx<'p>, ty: &'p TypePlan, hint: &str) -> RType<'p> {
    let rt = rt();
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
        TypePlan::Array { items, .. } => {
            Def::Array(Box::new(lower(cx, items, &format!("{hint}Item"))))
        }
        TypePlan::Object { object } => lower_object(cx, object, hint),
        TypePlan::Null | TypePlan::Const { .. } | TypePlan::Union { .. } => {
            Def::Check(lower_json(cx, ty, hint))
        }
        TypePlan::String { pattern: None, .. }
        | TypePlan::Integer { .. }
        | TypePlan::Number { .. }
        | TypePlan::Boolean
        | TypePlan::Any => Def::Plain,
    };
    RType { plan: ty, def }
}

/// [`lower`] for `null`, `const` and unions: the module's function converting a value to its
/// JSON typed value, or refusing it as the plan interpreter does (`<path>: expected null`,
/// `expected <the constant>`; a union: the first accepting branch's value, `expected <the
/// branches>` when none accepts, and for `one_of` `expected exactly one of <…>` when a second
/// accepts). The path is built only for a refusal.
fn lower_json<'p>(cx: &mut ModCx<'p>, ty: &'p TypePlan, hint: &str) -> Ident {
    let rt = rt();
    cx.values += 1;
    let check = format_ident!("value_{}", cx.values);
    let body = match ty {
        TypePlan::Null => {
            let e = refuse_json("null");
            quote! {
                match __v {
                    #rt::Val::Null => ::core::result::Result::Ok(#rt::serde_json::Value::Null),
                    __v => #e,
                }
            }
        }
        TypePlan::Const { value, expected } => {
            let e = refuse_json(expected);
            let text = value.to_string();
            let stat = format_ident!("CONST_{}", cx.values);
            cx.defs.push(quote! {
                static #stat: ::std::sync::LazyLock<#rt::serde_json::Value> =
                    ::std::sync::LazyLock::new(|| #rt::serde_json::from_str(#text).unwrap_or_default());
            });
            quote! {
                if #rt::json_equal(&#rt::to_json(::core::clone::Clone::clone(&__v)), &#stat) {
                    ::core::result::Result::Ok(::core::clone::Clone::clone(&*#stat))
                } else {
                    #e
                }
            }
        }
        TypePlan::Union {
            branches,
            one,
            expected,
            ambiguous,
        } => union_body(cx, branches, *one, (expected, ambiguous), hint),
        _ => quote!(::core::result::Result::Ok(#rt::to_json(__v))),
    };
    cx.defs.push(quote! {
        #[allow(clippy::redundant_closure_call)]
        fn #check(
            __v: #rt::Val<'_>,
            __path: &dyn ::core::ops::Fn() -> ::std::string::String,
        ) -> ::core::result::Result<#rt::serde_json::Value, #rt::CallError> {
            #body
        }
    });
    check
}

/// The `format!` string of a JSON-valued kind's refusal: `<path>: expected <expected>`.
fn refusal_format(expected: &str) -> String {
    format!(
        "{{}}: expected {}",
        expected.replace('{', "{{").replace('}', "}}")
    )
}

/// A JSON-valued kind's conversion function refusing `__v` at `__path()`.
fn refuse_json(expected: &str) -> TokenStream {
    let rt = rt();
    let fmt = refusal_format(expected);
    quote!(::core::result::Result::Err(#rt::invalid(&::std::format!(#fmt, __path()), &__v)))
}

/// The body of a union's conversion function: each branch tried in order on a copy of the
/// value (its own refusal is dropped); `one` (`one_of`) refuses a second accepting branch.
/// `texts` are the plan's `expected` and `ambiguous`.
fn union_body<'p>(
    cx: &mut ModCx<'p>,
    branches: &'p [TypePlan],
    one: bool,
    (expected, ambiguous): (&str, &str),
    hint: &str,
) -> TokenStream {
    let rt = rt();
    let ambiguous = refusal_format(ambiguous);
    let b = format_ident!("__b");
    let inner = Ctx(vec![Part::Expr(quote!(__path()))]);
    let tries: Vec<TokenStream> = branches
        .iter()
        .enumerate()
        .map(|(i, branch)| {
            let rty = lower(cx, branch, &format!("{hint}Branch{}", i + 1));
            let tried = match &rty.def {
                // A branch that is itself a JSON kind: its own conversion function.
                Def::Check(f) => {
                    quote!(#f(::core::clone::Clone::clone(&__v), __path))
                }
                _ => {
                    let conv = convert(cx, &rty, &b, &inner);
                    let value = rty.json_value(quote!(#conv));
                    quote! {
                        (|| -> ::core::result::Result<#rt::serde_json::Value, #rt::CallError> {
                            let #b = ::core::clone::Clone::clone(&__v);
                            ::core::result::Result::Ok(#value)
                        })()
                    }
                }
            };
            if one {
                quote! {
                    if let ::core::result::Result::Ok(__x) = #tried {
                        if __accepted.is_some() {
                            return ::core::result::Result::Err(#rt::invalid(&::std::format!(#ambiguous, __path()), &__v));
                        }
                        __accepted = ::core::option::Option::Some(__x);
                    }
                }
            } else {
                quote! {
                    if let ::core::result::Result::Ok(__x) = #tried {
                        return ::core::result::Result::Ok(__x);
                    }
                }
            }
        })
        .collect();
    let refuse = refuse_json(expected);
    if one {
        quote! {
            let mut __accepted: ::core::option::Option<#rt::serde_json::Value> = ::core::option::Option::None;
            #(#tries)*
            match __accepted {
                ::core::option::Option::Some(__x) => ::core::result::Result::Ok(__x),
                ::core::option::Option::None => #refuse,
            }
        }
    } else {
        quote! {
            #(#tries)*
            #refuse
        }
    }
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

/// [`lower`] for an object field: its struct and its own walk (`parse_<name>`) defined in
/// the module.
fn lower_object<'p>(cx: &mut ModCx<'p>, object: &'p ObjectPlan, hint: &str) -> Def<'p> {
    let rt = rt();
    let name = cx.fresh(hint);
    let parse_fn = format_ident!("parse_{}", name.to_string().to_lowercase());
    let props: Vec<WalkField> = object
        .fields
        .iter()
        .map(|p| WalkField {
            name: p.name.clone(),
            ident: snake(&p.name),
            ty: lower(cx, &p.ty, &format!("{name}{}", pascal_str(&p.name))),
            required: p.required,
        })
        .collect();
    let other = object.additional.as_deref().map(|t| {
        let ty = lower(cx, t, &format!("{name}Other"));
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
    let walk = walk(
        cx,
        &Walk {
            prefix: Ctx(vec![Part::Expr(quote!(__prefix))]),
            prefix_expr: quote!(__prefix),
            selector: None,
            object,
            fields: &props,
            additional: other.as_ref(),
            build: quote!(#name),
        },
    );
    cx.defs.push(quote! {
        fn #parse_fn(__obj: #rt::Pairs<'_>, __prefix: &str) -> ::core::result::Result<#name, #rt::CallError> {
            #walk
        }
    });
    Def::Object { name, parse_fn }
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

fn struct_field(f: &WalkField<'_>) -> TokenStream {
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

/// Conversion of the owned value `v` to `ty`; `path` names it in errors. Evaluates to the
/// typed value or returns the error from the enclosing function.
fn convert(cx: &mut ModCx<'_>, ty: &RType<'_>, v: &Ident, path: &Ctx) -> TokenStream {
    let rt = rt();
    let err = |expected: &str| {
        let msg = path.plus_lit(&format!(": expected {expected}")).render();
        quote!(return ::core::result::Result::Err(#rt::invalid(#msg, &#v)))
    };
    match (ty.plan, &ty.def) {
        (
            TypePlan::Integer {
                minimum,
                maximum,
                expected,
            },
            _,
        ) => {
            let e = err(expected);
            let guard = range_guard(minimum, maximum);
            quote! {
                match #rt::as_int(&#v) { ::core::option::Option::Some(n) #guard => n, _ => #e }
            }
        }
        (
            TypePlan::Number {
                minimum,
                maximum,
                expected,
            },
            _,
        ) => {
            let e = err(expected);
            let guard = range_guard(minimum, maximum);
            quote! {
                match #rt::as_num(&#v) { ::core::option::Option::Some(n) #guard => n, _ => #e }
            }
        }
        (TypePlan::Boolean, _) => {
            let e = err("true or false");
            quote! {
                match #rt::as_bool(&#v) { ::core::option::Option::Some(b) => b, _ => #e }
            }
        }
        (TypePlan::String { expected, .. }, def) => {
            let e = err(expected);
            let checks = string_checks(ty.plan, def);
            if checks.is_empty() {
                return quote! {
                    match #v {
                        #rt::Val::Str(s) => s.into_owned(),
                        #v => #e,
                    }
                };
            }
            quote! {
                match #rt::as_str(&#v) {
                    ::core::option::Option::Some(s) if #(#checks)&&* => #rt::into_string(#v),
                    _ => #e,
                }
            }
        }
        (TypePlan::Enum { values, expected }, Def::Enum { name, variants }) => {
            let e = err(expected);
            let arms = values
                .iter()
                .zip(variants)
                .map(|(s, var)| quote!(::core::option::Option::Some(#s) => #name::#var,));
            quote! {
                match #rt::as_str(&#v) { #(#arms)* _ => #e }
            }
        }
        (
            TypePlan::Array {
                min_items,
                max_items,
                expected,
                ..
            },
            Def::Array(items),
        ) => convert_array(cx, items, (min_items, max_items), v, path, err(expected)),
        (TypePlan::Object { .. }, Def::Object { parse_fn, .. }) => {
            let e = err("an object");
            let prefix = path.plus_lit(": ").render();
            quote! {
                match #v {
                    #rt::Val::Obj(o) => #parse_fn(o, #prefix)?,
                    #v => #e,
                }
            }
        }
        (TypePlan::Any, _) => quote!(#rt::to_json(#v)),
        (_, Def::Check(f)) => {
            let p = path.render();
            quote!(#f(#v, &|| ::std::string::String::from(#p))?)
        }
        _ => undefined(ty),
    }
}

/// A string's checks on `s` beyond its type (its length in characters, its pattern), as the
/// walk and the decoder both test them.
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

/// [`convert`] for an array: each item converted (its path `name[i]`), then the length
/// checked against `bounds`; `e` is the refusal.
fn convert_array(
    cx: &mut ModCx<'_>,
    items: &RType<'_>,
    bounds: (&Option<u64>, &Option<u64>),
    v: &Ident,
    path: &Ctx,
    e: TokenStream,
) -> TokenStream {
    let rt = rt();
    let (min, max) = bounds;
    cx.depth += 1;
    let d = cx.depth;
    let i = format_ident!("__i{d}");
    let item = format_ident!("__item{d}");
    let list = format_ident!("__list{d}");
    let out = format_ident!("__out{d}");
    let item_path = path.plus_lit("[").plus_expr(quote!(#i)).plus_lit("]");
    let conv = convert(cx, items, &item, &item_path);
    cx.depth -= 1;
    let guard = array_length_range(*min, *max)
        .map(|range| quote!(if #range.contains(&#list.len())))
        .unwrap_or_default();
    quote! {
        match #v {
            #rt::Val::Arr(#list) #guard => {
                let mut #out = ::std::vec::Vec::with_capacity(#list.len());
                for (#i, #item) in #list.into_iter().enumerate() {
                    let _ = #i;
                    #out.push(#conv);
                }
                #out
            }
            #v => #e,
        }
    }
}

struct WalkField<'p> {
    name: String,
    ident: Ident,
    ty: RType<'p>,
    required: bool,
}

struct Walk<'a, 'p> {
    /// The message prefix (`action=wait: `, `read_file: `, or the nested `__prefix`).
    prefix: Ctx,
    /// `prefix` as a `&str` expression.
    prefix_expr: TokenStream,
    selector: Option<&'a str>,
    /// The plan's object: its `belongs` lists and constraints.
    object: &'a ObjectPlan,
    /// Its fields with their generated types.
    fields: &'a [WalkField<'p>],
    /// An open object's other keys: their type and the struct member holding them.
    additional: Option<&'a (RType<'p>, Ident)>,
    /// The struct path to build.
    build: TokenStream,
}

/// The validating walk over one object: every key checked against the accepted fields, values
/// converted, then required fields and constraints. Evaluates to `Result<Struct, CallError>`.
fn walk(cx: &mut ModCx<'_>, w: &Walk<'_, '_>) -> TokenStream {
    let rt = rt();
    let prefix = &w.prefix_expr;
    let locals: Vec<Ident> = w
        .fields
        .iter()
        .map(|f| format_ident!("f_{}", f.name))
        .collect();
    let types: Vec<TokenStream> = w.fields.iter().map(|f| f.ty.rust()).collect();
    let v = format_ident!("__v");
    let mut arms = Vec::new();
    for (f, local) in w.fields.iter().zip(&locals) {
        let name = &f.name;
        let path = w.prefix.plus_lit(name);
        let conv = convert(cx, &f.ty, &v, &path);
        arms.push(quote! {
            #name => {
                if #v.is_null() { continue; }
                if #local.is_some() {
                    return ::core::result::Result::Err(#rt::duplicate(#prefix, #name));
                }
                #local = ::core::option::Option::Some(#conv);
            }
        });
    }
    let (selector_state, selector_arm) = match w.selector {
        Some(sel) => (
            quote!(let mut __selector_seen = false;),
            quote! {
                #sel => {
                    if __selector_seen {
                        return ::core::result::Result::Err(#rt::duplicate(#prefix, #sel));
                    }
                    __selector_seen = true;
                }
            },
        ),
        None => (quote!(), quote!()),
    };
    let null_ok = if w.object.belongs.is_empty() {
        quote!()
    } else {
        quote! {
            if #v.is_null() && BELONGS.iter().any(|(f, _)| *f == &*__k) { continue; }
        }
    };
    let finish = walk_finish(w, &locals);
    let build = &w.build;
    let mut inits: Vec<TokenStream> = w
        .fields
        .iter()
        .zip(&locals)
        .map(|(f, local)| {
            let id = &f.ident;
            quote!(#id: #local)
        })
        .collect();
    let (tables, extra_state, other) = other_keys(cx, w, &v, &mut inits);
    quote! {
        #tables
        #selector_state
        #extra_state
        #( let mut #locals: ::core::option::Option<#types> = ::core::option::Option::None; )*
        for (__k, #v) in __obj {
            match &*__k {
                #selector_arm
                #(#arms)*
                _ => {
                    #null_ok
                    #other
                }
            }
        }
        #(#finish)*
        ::core::result::Result::Ok(#build { #(#inits),* })
    }
}

/// What [`walk`] does with a key that is no field: an open object's other key (null counts as
/// absent, a second one is a duplicate; converted and kept as JSON), else refused. Returns the
/// walk's tables, its state for the other keys and the arm's body; pushes the struct member's
/// initializer onto `inits`.
fn other_keys(
    cx: &mut ModCx<'_>,
    w: &Walk<'_, '_>,
    v: &Ident,
    inits: &mut Vec<TokenStream>,
) -> (TokenStream, TokenStream, TokenStream) {
    let rt = rt();
    let prefix = &w.prefix_expr;
    let accepted = w.fields.iter().map(|f| f.name.as_str());
    let belongs = &w.object.belongs;
    let belongs_pairs = belongs.iter().map(|b| {
        let (f, to) = (&b.field, &b.actions);
        quote!((#f, #to))
    });
    match w.additional {
        Some((ty, id)) => {
            inits.push(quote!(#id: __extra));
            let path = w.prefix.plus_expr(quote!(__k));
            let conv = convert(cx, ty, v, &path);
            let value = ty.json_value(quote!(#conv));
            let belongs = (!belongs.is_empty())
                .then(|| quote!(const BELONGS: &[(&str, &str)] = &[#(#belongs_pairs),*];));
            (
                quote!(#belongs),
                quote!(let mut __extra = #rt::serde_json::Map::new();),
                quote! {
                    if #v.is_null() { continue; }
                    if __extra.contains_key(&*__k) {
                        return ::core::result::Result::Err(#rt::duplicate(#prefix, &__k));
                    }
                    let __x = #value;
                    __extra.insert(::std::string::String::from(&*__k), __x);
                },
            )
        }
        None => (
            quote! {
                const ACCEPTED: &[&str] = &[#(#accepted),*];
                const BELONGS: &[(&str, &str)] = &[#(#belongs_pairs),*];
            },
            quote!(),
            quote!(return ::core::result::Result::Err(#rt::unexpected_field(#prefix, &__k, ACCEPTED, BELONGS));),
        ),
    }
}

/// The end of [`walk`]: required fields present, then `exactly_one_of` and `forbidden_with`,
/// each refusal worded with the walk's prefix. `locals` hold the fields' values.
fn walk_finish(w: &Walk<'_, '_>, locals: &[Ident]) -> Vec<TokenStream> {
    let rt = rt();
    let prefix = &w.prefix_expr;
    let mut finish = Vec::new();
    for (f, local) in w.fields.iter().zip(locals) {
        if f.required {
            let name = &f.name;
            finish.push(quote! {
                let ::core::option::Option::Some(#local) = #local else {
                    return ::core::result::Result::Err(#rt::missing(#prefix, #name));
                };
            });
        }
    }
    for group in &w.object.exactly_one_of {
        let names: Vec<&str> = group.iter().map(|m| m.field.as_str()).collect();
        let flags = group.iter().map(given);
        let n = names.len();
        finish.push(quote! {
            {
                const GROUP: [&str; #n] = [#(#names),*];
                let given = [#(#flags),*];
                if given.iter().filter(|g| **g).count() != 1 {
                    let named: ::std::vec::Vec<&str> = GROUP
                        .iter()
                        .zip(given)
                        .filter(|(_, g)| *g)
                        .map(|(n, _)| *n)
                        .collect();
                    return ::core::result::Result::Err(#rt::exactly_one(#prefix, &GROUP, &named));
                }
            }
        });
    }
    for fw in &w.object.forbidden_with {
        let a = given(&fw.field);
        let b = given(&fw.with);
        let msg = &fw.message;
        finish.push(quote! {
            if #a && #b {
                return ::core::result::Result::Err(#rt::constraint(#prefix, #msg));
            }
        });
    }
    finish
}

/// Whether a constraint counts its member given, by the plan's presence rule, tested on the
/// member's local (`f_<name>`, the walk's and the decoder's both; a required one is no
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
        values: 0,
        depth: 0,
        open_root: None,
    };
    // Action struct names first, so field types yield to them.
    let action_idents = action_idents(&mut cx, tp);
    let lowered: Vec<(String, RType<'_>)> = types
        .iter()
        .map(|(name, ty)| ((*name).to_owned(), lower(&mut cx, ty, &pascal_str(name))))
        .collect();
    cx.open_root = other.as_ref().map(|t| {
        let ty = lower(&mut cx, t, "OtherKey");
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

/// A plain tool's items: the `Call` struct, `parse`, the walk and the decoder.
fn plain_items(
    cx: &mut ModCx<'_>,
    tp: &ToolPlan,
    action: &ActionPlan,
    outer: &Ident,
    lowered: &Lowered<'_>,
) -> Vec<TokenStream> {
    let rt = rt();
    let d = derives(false);
    let (st, walk_fn) = action_items(cx, action, &ident("Call"), None, lowered);
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

            /// The validating walk: decides what the decoder left, and words every refusal.
            #[inline(never)]
            fn walk(__obj: #rt::Obj<'_>) -> ::core::result::Result<Call, #rt::CallError> {
                let __obj = __obj.into_pairs()?;
                #walk_fn
            }

            #decode
        },
    ]
}

/// One action of a tool with a selector: its selector value, struct name and walk function.
struct Variant {
    name: String,
    strukt: Ident,
    walk_fn: Ident,
}

/// A selector tool's items: a struct per action, the `Call` and `Action` enums, `parse`, the
/// walk (selector first, then the action's walk) and the decoder.
fn selector_items(
    cx: &mut ModCx<'_>,
    tp: &ToolPlan,
    action_idents: &[Ident],
    outer: &Ident,
    lowered: &Lowered<'_>,
) -> Vec<TokenStream> {
    let rt = rt();
    let d = derives(false);
    let selector = tp.selector.as_deref().unwrap_or("action");
    let mut items = Vec::new();
    let mut variants = Vec::new();
    let mut parse_fns = Vec::new();
    for (action, id) in tp.actions.iter().zip(action_idents) {
        let aname = action.name.clone().unwrap_or_default();
        let (st, walk_fn) = action_items(cx, action, id, Some(selector), lowered);
        let doc = format!(" `{selector}: {aname}`");
        items.push(quote! { #[doc = #doc] #d #st });
        let f = format_ident!(
            "parse_{}",
            aname.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        parse_fns.push(quote! {
            fn #f(__obj: #rt::Pairs<'_>) -> ::core::result::Result<#id, #rt::CallError> {
                #walk_fn
            }
        });
        variants.push(Variant {
            name: aname,
            strukt: id.clone(),
            walk_fn: f,
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
    items.push(selector_call(
        selector,
        &tp.expected_actions,
        &variants,
        outer,
        &parse_fns,
        &decode,
    ));
    items
}

/// The `Call` and `Action` enums of a selector tool, `parse`, and the walk that reads the
/// selector and hands the rest to the action's walk. `expected` is the plan's
/// `expected_actions`.
fn selector_call(
    selector: &str,
    expected: &str,
    variants: &[Variant],
    outer: &Ident,
    parse_fns: &[TokenStream],
    decode: &TokenStream,
) -> TokenStream {
    let rt = rt();
    let d = derives(false);
    let strs: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
    let ids: Vec<&Ident> = variants.iter().map(|v| &v.strukt).collect();
    let fns: Vec<&Ident> = variants.iter().map(|v| &v.walk_fn).collect();
    let n = strs.len();
    let missing_msg = format!("missing {selector}: expected one of {expected}");
    let bad_type = format!("{selector}: expected one of {expected}");
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

        /// The validating walk: decides what the decoder left, and words every refusal.
        #[inline(never)]
        fn walk(__obj: #rt::Obj<'_>) -> ::core::result::Result<Call, #rt::CallError> {
            let __obj = __obj.into_pairs()?;
            let __action = match __obj.iter().find(|(k, _)| &**k == #selector) {
                ::core::option::Option::None | ::core::option::Option::Some((_, #rt::Val::Null)) => {
                    return ::core::result::Result::Err(#rt::missing_selector(#missing_msg));
                }
                ::core::option::Option::Some((_, v)) => match #rt::as_str(v) {
                    #( ::core::option::Option::Some(#strs) => Action::#ids, )*
                    ::core::option::Option::Some(other) => {
                        return ::core::result::Result::Err(#rt::unknown_action(#selector, other, #expected));
                    }
                    ::core::option::Option::None => {
                        return ::core::result::Result::Err(#rt::invalid(#bad_type, v));
                    }
                },
            };
            match __action {
                #( Action::#ids => #fns(__obj).map(Call::#ids), )*
            }
        }

        #(#parse_fns)*

        #decode
    }
}

/// The struct for one action and the body of its walk: the plan action's fields (declaration
/// order) with their generated types, its prefix, `belongs` lists and constraints.
fn action_items(
    cx: &mut ModCx<'_>,
    action: &ActionPlan,
    name: &Ident,
    selector: Option<&str>,
    lowered: &Lowered<'_>,
) -> (TokenStream, TokenStream) {
    let fields: Vec<WalkField<'_>> = action
        .object
        .fields
        .iter()
        .filter_map(|f| {
            field_type(lowered, &f.name).map(|t| WalkField {
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
    let prefix = &action.prefix;
    let walk_body = walk(
        cx,
        &Walk {
            prefix: Ctx::lit(prefix),
            prefix_expr: quote!(#prefix),
            selector,
            object: &action.object,
            fields: &fields,
            additional: open.as_ref(),
            build: quote!(#name),
        },
    );
    (st, walk_body)
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
        (TypePlan::Object { .. }, Def::Object { parse_fn, .. }) => {
            quote! {
                match #c.value_at(#depth)? {
                    #rt::Val::Obj(o) => #parse_fn(o, "").ok()?,
                    _ => #none,
                }
            }
        }
        (TypePlan::Any, _) => quote!(#rt::to_json(#c.value_at(#depth)?)),
        (_, Def::Check(f)) => {
            quote!(#f(#c.value_at(#depth)?, &::std::string::String::new).ok()?)
        }
        _ => undefined(ty),
    }
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
