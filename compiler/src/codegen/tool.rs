//! One tool's module: a strict struct per action (real Rust types, enums for enum fields,
//! nested structs for objects), the per-tool action enum, and the hand-written validating walk
//! that turns a JSON object into them with model-facing error texts.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::names::{and_list, ident, pascal_str, snake, unique_pascal};
use super::rt;
use crate::ir::{Action, Tool, Type};

/// A field type lowered to what the generated code needs.
#[derive(Clone)]
pub(super) enum RType {
    Str {
        min: Option<u64>,
        max: Option<u64>,
        /// The static holding the compiled pattern.
        pattern: Option<Ident>,
        expected: String,
    },
    Int {
        min: Option<i64>,
        max: Option<i64>,
        expected: String,
    },
    Num {
        min: Option<f64>,
        max: Option<f64>,
        expected: String,
    },
    Bool,
    Enum {
        name: Ident,
        values: Vec<(String, Ident)>,
        expected: String,
    },
    Array {
        items: Box<RType>,
        min: Option<u64>,
        max: Option<u64>,
        expected: String,
    },
    Object {
        name: Ident,
        parse_fn: Ident,
    },
    /// A kind whose typed value is JSON (`any`, `null`, `const`, a union): `check` is the
    /// module's function converting a value to it (`None` for `any`, which takes every value).
    Json {
        check: Option<Ident>,
    },
}

impl RType {
    fn rust(&self) -> TokenStream {
        match self {
            RType::Str { .. } => quote!(::std::string::String),
            RType::Int { .. } => quote!(i64),
            RType::Num { .. } => quote!(f64),
            RType::Bool => quote!(bool),
            RType::Enum { name, .. } | RType::Object { name, .. } => quote!(#name),
            RType::Array { items, .. } => {
                let t = items.rust();
                quote!(::std::vec::Vec<#t>)
            }
            RType::Json { .. } => {
                let rt = rt();
                quote!(#rt::serde_json::Value)
            }
        }
    }

    /// The typed value `e` of this type as JSON (what a union or an open object keeps).
    fn json_value(&self, e: TokenStream) -> TokenStream {
        match self {
            RType::Json { .. } => e,
            _ => {
                let rt = rt();
                quote!(#rt::to_value(#e))
            }
        }
    }
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
struct ModCx {
    used: BTreeSet<String>,
    defs: Vec<TokenStream>,
    patterns: usize,
    /// Conversion functions of JSON-valued kinds defined so far (`value_<n>`).
    values: usize,
    depth: usize,
    /// The tool's other keys (`parameters: additional_properties`): their type and the
    /// action structs' member holding them.
    open_root: Option<(RType, Ident)>,
}

impl ModCx {
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

fn bounds_text<T: std::fmt::Display>(min: Option<T>, max: Option<T>, unit: &str) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!(" from {a} to {b}{unit}"),
        (Some(a), None) => format!(" of at least {a}{unit}"),
        (None, Some(b)) => format!(" of at most {b}{unit}"),
        (None, None) => String::new(),
    }
}

fn length_text(min: Option<u64>, max: Option<u64>, unit: &str) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!(" of {a} to {b} {unit}"),
        (Some(a), None) => format!(" of at least {a} {unit}"),
        (None, Some(b)) => format!(" of at most {b} {unit}"),
        (None, None) => String::new(),
    }
}

/// What the model is told a field expects (`a number from 0 to 300`).
pub fn expected_text(ty: &Type) -> String {
    match ty {
        Type::String {
            min_length,
            max_length,
            pattern,
        } => {
            let mut s = format!(
                "a string{}",
                length_text(*min_length, *max_length, "characters")
            );
            if let Some(p) = pattern {
                s.push_str(" matching ");
                s.push_str(p);
            }
            s
        }
        Type::Integer { minimum, maximum } => {
            format!("an integer{}", bounds_text(*minimum, *maximum, ""))
        }
        Type::Number { minimum, maximum } => {
            format!("a number{}", bounds_text(*minimum, *maximum, ""))
        }
        Type::Boolean => "true or false".to_owned(),
        Type::Enum { values } => format!("one of {}", values.join(", ")),
        Type::Array {
            min_items,
            max_items,
            ..
        } => format!("an array{}", length_text(*min_items, *max_items, "items")),
        Type::Object { .. } => "an object".to_owned(),
        Type::Any => "any value".to_owned(),
        Type::Null => "null".to_owned(),
        Type::Const { value, .. } => value.to_string(),
        Type::Union { branches, .. } => {
            let texts: Vec<String> = branches.iter().map(expected_text).collect();
            match texts.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
                _ => texts.concat(),
            }
        }
        Type::Annotated { ty, .. } => expected_text(ty),
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

/// Lower `ty`; `hint` is the PascalCase base for any type it needs to define.
fn lower(cx: &mut ModCx, ty: &Type, hint: &str) -> RType {
    let rt = rt();
    let expected = expected_text(ty);
    match ty {
        Type::String {
            min_length,
            max_length,
            pattern,
        } => {
            let pattern = pattern.as_ref().map(|p| {
                cx.patterns += 1;
                let name = format_ident!("PATTERN_{}", cx.patterns);
                cx.defs.push(quote! {
                    static #name: ::std::sync::LazyLock<::core::option::Option<#rt::regex::Regex>> =
                        ::std::sync::LazyLock::new(|| #rt::regex::Regex::new(#p).ok());
                });
                name
            });
            RType::Str {
                min: *min_length,
                max: *max_length,
                pattern,
                expected,
            }
        }
        Type::Integer { minimum, maximum } => RType::Int {
            min: *minimum,
            max: *maximum,
            expected,
        },
        Type::Number { minimum, maximum } => RType::Num {
            min: *minimum,
            max: *maximum,
            expected,
        },
        Type::Boolean => RType::Bool,
        Type::Enum { values } => lower_enum(cx, values, hint, expected),
        Type::Array {
            items,
            min_items,
            max_items,
        } => {
            let item = lower(cx, items, &format!("{hint}Item"));
            RType::Array {
                items: Box::new(item),
                min: *min_items,
                max: *max_items,
                expected,
            }
        }
        Type::Object {
            properties,
            additional,
            ..
        } => lower_object(cx, properties, additional.as_deref(), hint),
        Type::Annotated { ty, .. } => lower(cx, ty, hint),
        Type::Any => RType::Json { check: None },
        Type::Null | Type::Const { .. } | Type::Union { .. } => lower_json(cx, ty, hint),
    }
}

/// [`lower`] for `null`, `const` and unions: the module's function converting a value to its
/// JSON typed value, or refusing it as the plan interpreter does (`<path>: expected null`,
/// `expected <the constant>`; a union: the first accepting branch's value, `expected <the
/// branches>` when none accepts, and for `one_of` `expected exactly one of <…>` when a second
/// accepts). The path is built only for a refusal.
fn lower_json(cx: &mut ModCx, ty: &Type, hint: &str) -> RType {
    let rt = rt();
    cx.values += 1;
    let check = format_ident!("value_{}", cx.values);
    let refuse = |expected: &str| {
        let fmt = format!(
            "{{}}: expected {}",
            expected.replace('{', "{{").replace('}', "}}")
        );
        quote!(::core::result::Result::Err(#rt::invalid(&::std::format!(#fmt, __path()), &__v)))
    };
    let body = match ty {
        Type::Null => {
            let e = refuse("null");
            quote! {
                match __v {
                    #rt::Val::Null => ::core::result::Result::Ok(#rt::serde_json::Value::Null),
                    __v => #e,
                }
            }
        }
        Type::Const { value, .. } => {
            let e = refuse(&expected_text(ty));
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
        Type::Union { form, branches } => union_body(cx, ty, *form, branches, hint),
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
    RType::Json { check: Some(check) }
}

/// The body of a union's conversion function: each branch tried in order on a copy of the
/// value (its own refusal is dropped).
fn union_body(
    cx: &mut ModCx,
    ty: &Type,
    form: crate::ir::UnionForm,
    branches: &[Type],
    hint: &str,
) -> TokenStream {
    let rt = rt();
    let expected = expected_text(ty);
    let fmt = |e: &str| format!("{{}}: expected {}", e.replace('{', "{{").replace('}', "}}"));
    let none = fmt(&expected);
    let ambiguous = fmt(&format!("exactly one of {expected}"));
    let one = form == crate::ir::UnionForm::OneOf;
    let b = format_ident!("__b");
    let inner = Ctx(vec![Part::Expr(quote!(__path()))]);
    let tries: Vec<TokenStream> = branches
        .iter()
        .enumerate()
        .map(|(i, branch)| {
            let rty = lower(cx, branch, &format!("{hint}Branch{}", i + 1));
            let tried = match &rty {
                // A branch that is itself a JSON kind: its own conversion function.
                RType::Json { check: Some(f) } => {
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
    let refuse =
        quote!(::core::result::Result::Err(#rt::invalid(&::std::format!(#none, __path()), &__v)));
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
fn lower_enum(cx: &mut ModCx, values: &[String], hint: &str, expected: String) -> RType {
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
    RType::Enum {
        name,
        values: values.iter().cloned().zip(variants).collect(),
        expected,
    }
}

/// [`lower`] for an object field: its struct and its own walk (`parse_<name>`) defined in
/// the module.
fn lower_object(
    cx: &mut ModCx,
    properties: &[crate::ir::Property],
    additional: Option<&Type>,
    hint: &str,
) -> RType {
    let rt = rt();
    let name = cx.fresh(hint);
    let parse_fn = format_ident!("parse_{}", name.to_string().to_lowercase());
    let props: Vec<WalkField> = properties
        .iter()
        .map(|p| WalkField {
            name: p.name.clone(),
            ident: snake(&p.name),
            ty: lower(cx, &p.ty, &format!("{name}{}", pascal_str(&p.name))),
            required: p.required,
        })
        .collect();
    let other = additional.map(|t| {
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
    let accepted: Vec<&str> = props.iter().map(|p| p.name.as_str()).collect();
    let walk = walk(
        cx,
        &Walk {
            prefix: Ctx(vec![Part::Expr(quote!(__prefix))]),
            prefix_expr: quote!(__prefix),
            selector: None,
            fields: &props,
            accepted: &accepted,
            belongs: &[],
            exactly_one_of: &[],
            forbidden_with: &[],
            additional: other.as_ref(),
            build: quote!(#name),
        },
    );
    cx.defs.push(quote! {
        fn #parse_fn(__obj: #rt::Pairs<'_>, __prefix: &str) -> ::core::result::Result<#name, #rt::CallError> {
            #walk
        }
    });
    RType::Object { name, parse_fn }
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
fn other_keys_field((_, id): &(RType, Ident)) -> TokenStream {
    let rt = rt();
    quote! {
        #[serde(flatten)]
        pub #id: #rt::serde_json::Map<::std::string::String, #rt::serde_json::Value>
    }
}

fn struct_field(f: &WalkField) -> TokenStream {
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
fn convert(cx: &mut ModCx, ty: &RType, v: &Ident, path: &Ctx) -> TokenStream {
    let rt = rt();
    let err = |expected: &str| {
        let msg = path.plus_lit(&format!(": expected {expected}")).render();
        quote!(return ::core::result::Result::Err(#rt::invalid(#msg, &#v)))
    };
    match ty {
        RType::Int { min, max, expected } => {
            let e = err(expected);
            let guard = range_guard(min, max);
            quote! {
                match #rt::as_int(&#v) { ::core::option::Option::Some(n) #guard => n, _ => #e }
            }
        }
        RType::Num { min, max, expected } => {
            let e = err(expected);
            let guard = range_guard(min, max);
            quote! {
                match #rt::as_num(&#v) { ::core::option::Option::Some(n) #guard => n, _ => #e }
            }
        }
        RType::Bool => {
            let e = err("true or false");
            quote! {
                match #rt::as_bool(&#v) { ::core::option::Option::Some(b) => b, _ => #e }
            }
        }
        RType::Str {
            min,
            max,
            pattern,
            expected,
        } => {
            let e = err(expected);
            let mut checks = Vec::new();
            if min.is_some() || max.is_some() {
                let a = min.unwrap_or(0);
                let b = max.unwrap_or(u64::MAX);
                checks.push(quote!(#rt::chars_within(s, #a, #b)));
            }
            if let Some(p) = pattern {
                checks.push(quote!(#rt::matches(&#p, s)));
            }
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
        RType::Enum {
            name,
            values,
            expected,
        } => {
            let e = err(expected);
            let arms = values
                .iter()
                .map(|(s, var)| quote!(::core::option::Option::Some(#s) => #name::#var,));
            quote! {
                match #rt::as_str(&#v) { #(#arms)* _ => #e }
            }
        }
        RType::Array {
            items,
            min,
            max,
            expected,
        } => convert_array(cx, items, (min, max), v, path, err(expected)),
        RType::Object { parse_fn, .. } => {
            let e = err("an object");
            let prefix = path.plus_lit(": ").render();
            quote! {
                match #v {
                    #rt::Val::Obj(o) => #parse_fn(o, #prefix)?,
                    #v => #e,
                }
            }
        }
        RType::Json { check: None } => quote!(#rt::to_json(#v)),
        RType::Json { check: Some(f) } => {
            let p = path.render();
            quote!(#f(#v, &|| ::std::string::String::from(#p))?)
        }
    }
}

/// [`convert`] for an array: each item converted (its path `name[i]`), then the length
/// checked against `bounds`; `e` is the refusal.
fn convert_array(
    cx: &mut ModCx,
    items: &RType,
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

struct WalkField {
    name: String,
    ident: Ident,
    ty: RType,
    required: bool,
}

struct Walk<'a> {
    /// The message prefix (`action=wait: `, `read_file: `, or the nested `__prefix`).
    prefix: Ctx,
    /// `prefix` as a `&str` expression.
    prefix_expr: TokenStream,
    selector: Option<&'a str>,
    fields: &'a [WalkField],
    accepted: &'a [&'a str],
    belongs: &'a [(String, String)],
    exactly_one_of: &'a [Vec<String>],
    forbidden_with: &'a [crate::ir::Forbidden],
    /// An open object's other keys: their type and the struct member holding them.
    additional: Option<&'a (RType, Ident)>,
    /// The struct path to build.
    build: TokenStream,
}

/// The validating walk over one object: every key checked against the accepted fields, values
/// converted, then required fields and constraints. Evaluates to `Result<Struct, CallError>`.
fn walk(cx: &mut ModCx, w: &Walk<'_>) -> TokenStream {
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
    let null_ok = if w.belongs.is_empty() {
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
    cx: &mut ModCx,
    w: &Walk<'_>,
    v: &Ident,
    inits: &mut Vec<TokenStream>,
) -> (TokenStream, TokenStream, TokenStream) {
    let rt = rt();
    let prefix = &w.prefix_expr;
    let accepted = w.accepted;
    let belongs_pairs = w.belongs.iter().map(|(f, to)| quote!((#f, #to)));
    match w.additional {
        Some((ty, id)) => {
            inits.push(quote!(#id: __extra));
            let path = w.prefix.plus_expr(quote!(__k));
            let conv = convert(cx, ty, v, &path);
            let value = ty.json_value(quote!(#conv));
            let belongs = (!w.belongs.is_empty())
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
fn walk_finish(w: &Walk<'_>, locals: &[Ident]) -> Vec<TokenStream> {
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
    let present = |field: &str, bool_false_absent: bool| -> TokenStream {
        match w.fields.iter().zip(locals).find(|(f, _)| f.name == field) {
            Some((f, _)) if f.required => quote!(true),
            Some((f, local)) if bool_false_absent && matches!(f.ty, RType::Bool) => {
                quote!(::core::matches!(#local, ::core::option::Option::Some(true)))
            }
            Some((_, local)) => quote!(#local.is_some()),
            None => quote!(false),
        }
    };
    for group in w.exactly_one_of {
        let names: Vec<&str> = group.iter().map(String::as_str).collect();
        let flags: Vec<TokenStream> = names.iter().map(|n| present(n, false)).collect();
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
    for fw in w.forbidden_with {
        // A boolean flag set to false asks for nothing, so it does not count as given.
        let a = present(&fw.field, true);
        let b = present(&fw.with, true);
        let msg = &fw.message;
        finish.push(quote! {
            if #a && #b {
                return ::core::result::Result::Err(#rt::constraint(#prefix, #msg));
            }
        });
    }
    finish
}

/// The module `pub mod <tool> { … }` and what the parent needs to call it.
pub fn tool_module(tool: &Tool, outer: &Ident) -> TokenStream {
    let module = snake(&tool.name);
    let mut cx = ModCx {
        used: ["Call", "Action"].iter().map(|s| (*s).to_owned()).collect(),
        defs: Vec::new(),
        patterns: 0,
        values: 0,
        depth: 0,
        open_root: None,
    };
    // Action struct names first, so field types yield to them.
    let action_idents = action_idents(&mut cx, tool);
    // Lower every declared field once (one definition, one type), in declaration order.
    let lowered: Vec<(String, RType)> = tool
        .fields
        .iter()
        .map(|f| {
            let hint = pascal_str(&f.name);
            (f.name.clone(), lower(&mut cx, &f.ty, &hint))
        })
        .collect();
    cx.open_root = tool.parameters.additional.as_ref().map(|t| {
        let ty = lower(&mut cx, t, "OtherKey");
        (
            ty,
            other_keys_ident(
                tool.fields
                    .iter()
                    .map(|f| snake(&f.name))
                    .collect::<Vec<_>>()
                    .iter(),
            ),
        )
    });
    let field_ty = |name: &str| lowered.iter().find(|(n, _)| n == name).map(|(_, t)| t);
    let mut items = if tool.is_plain() {
        let Some(action) = tool.actions.first() else {
            return quote!();
        };
        plain_items(&mut cx, tool, action, outer, &field_ty)
    } else {
        selector_items(&mut cx, tool, &action_idents, outer, &field_ty)
    };
    items.push(super::implements::conversions(
        tool,
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
fn action_idents(cx: &mut ModCx, tool: &Tool) -> Vec<Ident> {
    if tool.is_plain() {
        return Vec::new();
    }
    let action_names: Vec<String> = tool.actions.iter().filter_map(|a| a.name.clone()).collect();
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
fn plain_items<'t>(
    cx: &mut ModCx,
    tool: &Tool,
    action: &Action,
    outer: &Ident,
    field_ty: &dyn Fn(&str) -> Option<&'t RType>,
) -> Vec<TokenStream> {
    let rt = rt();
    let d = derives(false);
    let prefix = format!("{}: ", tool.name);
    let (st, walk_fn) = action_items(cx, tool, action, &ident("Call"), &prefix, None, field_ty);
    let decode = decoder(
        cx,
        tool,
        outer,
        field_ty,
        None,
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
fn selector_items<'t>(
    cx: &mut ModCx,
    tool: &Tool,
    action_idents: &[Ident],
    outer: &Ident,
    field_ty: &dyn Fn(&str) -> Option<&'t RType>,
) -> Vec<TokenStream> {
    let rt = rt();
    let d = derives(false);
    let selector = tool
        .selector
        .as_ref()
        .map(|s| s.name.as_str())
        .unwrap_or("action");
    let mut items = Vec::new();
    let mut variants = Vec::new();
    let mut parse_fns = Vec::new();
    for (action, id) in tool.actions.iter().zip(action_idents) {
        let aname = action.name.clone().unwrap_or_default();
        let prefix = format!("{selector}={aname}: ");
        let (st, walk_fn) = action_items(cx, tool, action, id, &prefix, Some(selector), field_ty);
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
    let targets: Vec<Target> = tool
        .actions
        .iter()
        .zip(action_idents)
        .map(|(action, id)| Target {
            action,
            strukt: id.clone(),
            variant: Some(id.clone()),
        })
        .collect();
    let decode = decoder(cx, tool, outer, field_ty, Some(selector), &targets);
    items.push(selector_call(
        selector, &variants, outer, &parse_fns, &decode,
    ));
    items
}

/// The `Call` and `Action` enums of a selector tool, `parse`, and the walk that reads the
/// selector and hands the rest to the action's walk.
fn selector_call(
    selector: &str,
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
    let expected = strs.join(", ");
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

/// The struct for one action and the body of its walk.
fn action_items<'t>(
    cx: &mut ModCx,
    tool: &Tool,
    action: &Action,
    name: &Ident,
    prefix: &str,
    selector: Option<&str>,
    field_ty: &dyn Fn(&str) -> Option<&'t RType>,
) -> (TokenStream, TokenStream) {
    // Declaration order of the tool's fields, filtered to this action.
    let fields: Vec<WalkField> = tool
        .fields
        .iter()
        .filter(|f| action.uses(&f.name))
        .filter_map(|f| {
            field_ty(&f.name).map(|t| WalkField {
                name: f.name.clone(),
                ident: snake(&f.name),
                ty: t.clone(),
                required: action.is_required(&f.name),
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
    let accepted: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    let belongs: Vec<(String, String)> = tool
        .fields
        .iter()
        .filter(|f| !action.uses(&f.name))
        .map(|f| (f.name.clone(), and_list(&tool.actions_using(&f.name))))
        .filter(|(_, to)| !to.is_empty())
        .collect();
    let walk_body = walk(
        cx,
        &Walk {
            prefix: Ctx::lit(prefix),
            prefix_expr: quote!(#prefix),
            selector,
            fields: &fields,
            accepted: &accepted,
            belongs: &belongs,
            exactly_one_of: &action.exactly_one_of,
            forbidden_with: &action.forbidden_with,
            additional: open.as_ref(),
            build: quote!(#name),
        },
    );
    (st, walk_body)
}

/// A field the decoder reads: its name, the typed local it goes into, its type.
type DecodedField<'t> = (&'t str, Ident, &'t RType);

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
    action: &'a Action,
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
fn decoder<'t>(
    cx: &mut ModCx,
    tool: &Tool,
    outer: &Ident,
    field_ty: &dyn Fn(&str) -> Option<&'t RType>,
    selector: Option<&str>,
    targets: &[Target<'_>],
) -> TokenStream {
    let rt = rt();
    // The decoder gives up on any key that is no field, so other keys are never there.
    let open = cx.open_root.as_ref().map(|(_, id)| id.clone());
    let open = open.as_ref();
    // A field no action takes is refused even when null: leave it to the walk.
    let fields: Vec<DecodedField<'_>> = tool
        .fields
        .iter()
        .filter(|f| tool.actions.iter().any(|a| a.uses(&f.name)))
        .filter_map(|f| {
            field_ty(&f.name).map(|t| (f.name.as_str(), format_ident!("f_{}", f.name), t))
        })
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
    cx: &mut ModCx,
    c: &Ident,
    selector: Option<&str>,
    targets: &[Target<'_>],
    fields: &[DecodedField<'_>],
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
    fields: &[DecodedField<'_>],
    t: &Target<'_>,
    outer: &Ident,
    open: Option<&Ident>,
) -> TokenStream {
    let none = quote!(return ::core::option::Option::None);
    let a = t.action;
    let taken = |name: &str| a.uses(name);
    let others: Vec<&Ident> = fields
        .iter()
        .filter(|(n, _, _)| !taken(n))
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
        .filter(|(n, _, _)| taken(n) && a.is_required(n))
        .map(|(_, l, _)| quote!(let #l = #l?;));
    // As the walk counts a field given (a required one always is; for forbidden_with a
    // boolean set to false asks for nothing).
    let present = |field: &str, bool_false_absent: bool| -> TokenStream {
        match fields.iter().find(|(n, _, _)| *n == field && taken(n)) {
            Some((n, _, _)) if a.is_required(n) => quote!(true),
            Some((_, l, ty)) if bool_false_absent && matches!(ty, RType::Bool) => {
                quote!(::core::matches!(#l, ::core::option::Option::Some(true)))
            }
            Some((_, l, _)) => quote!(#l.is_some()),
            None => quote!(false),
        }
    };
    let mut checks = Vec::new();
    for group in &a.exactly_one_of {
        let flags = group.iter().map(|n| present(n, false));
        checks.push(quote! {
            if [#(#flags),*].iter().filter(|g| **g).count() != 1 { #none; }
        });
    }
    for fw in &a.forbidden_with {
        let x = present(&fw.field, true);
        let y = present(&fw.with, true);
        checks.push(quote! {
            if #x && #y { #none; }
        });
    }
    let strukt = &t.strukt;
    let rt = rt();
    let inits = fields
        .iter()
        .filter(|(n, _, _)| taken(n))
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
fn read_fast(cx: &mut ModCx, ty: &RType, c: &Ident, depth: usize) -> TokenStream {
    let rt = rt();
    let none = quote!(return ::core::option::Option::None);
    match ty {
        RType::Int { min, max, .. } => {
            if min.is_none() && max.is_none() {
                return quote!(#c.int()?);
            }
            let guard = range_guard(min, max);
            quote!(match #c.int() { ::core::option::Option::Some(n) #guard => n, _ => #none })
        }
        RType::Num { min, max, .. } => {
            if min.is_none() && max.is_none() {
                return quote!(#c.num()?);
            }
            let guard = range_guard(min, max);
            quote!(match #c.num() { ::core::option::Option::Some(n) #guard => n, _ => #none })
        }
        RType::Bool => quote!(#c.bool()?),
        RType::Str {
            min, max, pattern, ..
        } => {
            let mut checks = Vec::new();
            if min.is_some() || max.is_some() {
                let a = min.unwrap_or(0);
                let b = max.unwrap_or(u64::MAX);
                checks.push(quote!(#rt::chars_within(s, #a, #b)));
            }
            if let Some(p) = pattern {
                checks.push(quote!(#rt::matches(&#p, s)));
            }
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
        RType::Enum { name, values, .. } => {
            let arms = values
                .iter()
                .map(|(s, var)| (s.clone(), quote!(#name::#var)))
                .collect();
            literal_switch(c, arms, &none)
        }
        RType::Array {
            items, min, max, ..
        } => {
            cx.depth += 1;
            let out = format_ident!("__out{}", cx.depth);
            let item = read_fast(cx, items, c, depth + 1);
            cx.depth -= 1;
            let guard = array_length_range(*min, *max)
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
        RType::Object { parse_fn, .. } => {
            quote! {
                match #c.value_at(#depth)? {
                    #rt::Val::Obj(o) => #parse_fn(o, "").ok()?,
                    _ => #none,
                }
            }
        }
        RType::Json { check: None } => quote!(#rt::to_json(#c.value_at(#depth)?)),
        RType::Json { check: Some(f) } => {
            quote!(#f(#c.value_at(#depth)?, &::std::string::String::new).ok()?)
        }
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
