//! `implements:` (typify's `replace`): for a tool that names the Rust type its typed call
//! becomes, `impl From<Call> for that type`, built field by field from the parsed call, so the
//! definition and the type are one declaration. The generated `Handlers` method then takes the
//! named type and `Call::dispatch` converts; a field, variant or type the two disagree on is a
//! compile error of the generated code, not a silent difference.
//!
//! The shape the named type must have (docs/definition-language.md, "implements"):
//! - a plain tool: a struct with the tool's fields, named as in the definition;
//! - a tool with actions: an enum with one tuple variant per action, named as the generated
//!   action struct (PascalCase action name), holding the type of that name beside the enum
//!   (same module), a struct with the action's fields;
//! - an enum field: the enum of the generated name (PascalCase field name) beside the type,
//!   one variant per value (PascalCase);
//! - an integer field with `minimum` ≥ 0: any type implementing `FromNonNegative` (i64, u64,
//!   usize), because `Call::parse` already refused a negative one; other integers are `i64`,
//!   numbers `f64`, strings `String`, booleans `bool`, arrays `Vec<_>` of the item's type, and
//!   optional fields `Option<_>`;
//! - an optional field with a `default:` holds the plain type: the conversion fills the
//!   default, so the runtime receives a concrete value and keeps no default of its own.

use proc_macro2::{Ident, TokenStream};
use quote::{ToTokens, quote};

use super::names::{ident, snake};
use super::rt;
use super::tool::RType;
use crate::ir::{Ir, Tool};

/// `a_crate::module::Type` as tokens (the loader checked it is an identifier path).
fn path_tokens(path: &str) -> TokenStream {
    let segments = path.split("::").map(ident);
    quote!(#(#segments)::*)
}

/// The module the named type lives in (its enum fields' and actions' types are beside it).
fn module_tokens(path: &str) -> TokenStream {
    let segments: Vec<&str> = path.split("::").collect();
    let module = segments[..segments.len().saturating_sub(1)]
        .iter()
        .map(|s| ident(s));
    quote!(#(#module)::*)
}

/// The `Handlers` parameter type of `tool`: its `implements:` type, or the generated `Call`.
pub(super) fn handler_type(tool: &Tool) -> TokenStream {
    match &tool.implements {
        Some(path) => path_tokens(path),
        None => {
            let module = snake(&tool.name);
            quote!(#module::Call)
        }
    }
}

/// A function value turning the generated value of `ty` into the runtime's, or `None` when it
/// moves as is.
fn converter(ty: &RType) -> Result<Option<TokenStream>, String> {
    let rt = rt();
    Ok(match ty {
        RType::Str { .. } | RType::Num { .. } | RType::Bool | RType::Json { .. } => None,
        RType::Int { min: Some(m), .. } if *m >= 0 => {
            Some(quote!(#rt::FromNonNegative::from_non_negative))
        }
        RType::Int { .. } => None,
        RType::Enum { .. } => Some(quote!(::core::convert::Into::into)),
        RType::Array { items, .. } => converter(items)?
            .map(|each| quote!(|__items| ::core::iter::IntoIterator::into_iter(__items).map(#each).collect())),
        RType::Object { name, .. } => {
            return Err(format!(
                "an object field ({name}) cannot be implemented by a runtime type yet"
            ));
        }
    })
}

/// The conversion of the generated value `v` of type `ty` into the runtime's.
fn convert(ty: &RType, v: TokenStream) -> Result<TokenStream, String> {
    Ok(match (ty, converter(ty)?) {
        (_, None) => v,
        (RType::Array { items, .. }, Some(_)) => match converter(items)? {
            Some(each) => quote!(#v.into_iter().map(#each).collect()),
            None => v,
        },
        (_, Some(f)) => quote!(#f(#v)),
    })
}

/// `impl From<Enum> for <module>::Enum` for every enum type among `fields`, once each.
fn enum_conversions(module: &TokenStream, fields: &[&RType]) -> Vec<TokenStream> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut stack: Vec<&RType> = fields.to_vec();
    while let Some(ty) = stack.pop() {
        match ty {
            RType::Array { items, .. } => stack.push(items),
            RType::Enum { name, values, .. } if !seen.contains(&name.to_string()) => {
                seen.push(name.to_string());
                let variants = values.iter().map(|(_, v)| v);
                out.push(quote! {
                    impl ::core::convert::From<#name> for #module::#name {
                        fn from(v: #name) -> Self {
                            match v { #( #name::#variants => #module::#name::#variants, )* }
                        }
                    }
                });
            }
            _ => {}
        }
    }
    out.reverse();
    out
}

/// The generated value of type `ty` that the JSON value `v` (a `default:`, which `check`
/// held to the field's type) stands for, as an expression, and whether it is a constant
/// (a scalar or an enum value: `unwrap_or`) rather than an allocation (`unwrap_or_else`).
fn default_value(ty: &RType, v: &serde_json::Value) -> Result<(TokenStream, bool), String> {
    use proc_macro2::Literal;
    use serde_json::Value as J;
    let refused = || format!("the default {v} does not fit the field's type");
    Ok(match (ty, v) {
        (RType::Str { .. }, J::String(s)) => (quote!(::std::string::String::from(#s)), false),
        (RType::Int { .. }, J::Number(n)) => {
            let n = n.as_i64().ok_or_else(refused)?;
            (Literal::i64_suffixed(n).into_token_stream(), true)
        }
        (RType::Num { .. }, J::Number(n)) => {
            let n = n.as_f64().ok_or_else(refused)?;
            (Literal::f64_suffixed(n).into_token_stream(), true)
        }
        (RType::Bool, J::Bool(b)) => (quote!(#b), true),
        (RType::Enum { name, values, .. }, J::String(s)) => {
            let (_, variant) = values.iter().find(|(v, _)| v == s).ok_or_else(refused)?;
            (quote!(#name::#variant), true)
        }
        (RType::Array { items, .. }, J::Array(vs)) => {
            let each = vs
                .iter()
                .map(|v| default_value(items, v).map(|(e, _)| e))
                .collect::<Result<Vec<_>, _>>()?;
            (quote!(::std::vec![#(#each),*]), false)
        }
        (RType::Object { .. } | RType::Json { .. }, _) => {
            return Err(format!(
                "the default {v} of an object or JSON-valued field cannot be applied by the \
                 conversion yet"
            ));
        }
        _ => return Err(refused()),
    })
}

/// One field initializer `name: <converted c.name>`. An optional field with a `default:` is
/// filled with it, so the runtime type holds the plain value (not an `Option`): a default its
/// field cannot hold is a compile error of this code, like any other disagreement.
fn init(
    field: &str,
    ty: &RType,
    required: bool,
    default: Option<&serde_json::Value>,
) -> Result<TokenStream, String> {
    let id = snake(field);
    let value = quote!(c.#id);
    let converted = match (required, default) {
        (true, _) => convert(ty, value)?,
        (false, Some(d)) => {
            let (d, copy) = default_value(ty, d)?;
            let filled = if copy {
                quote!(#value.unwrap_or(#d))
            } else {
                quote!(#value.unwrap_or_else(|| #d))
            };
            convert(ty, filled)?
        }
        (false, None) => match converter(ty)? {
            Some(f) => quote!(#value.map(#f)),
            None => value,
        },
    };
    Ok(quote!(#id: #converted))
}

/// The field initializers of one action (declaration order, the action's fields only).
fn inits(
    tool: &Tool,
    action: &crate::ir::Action,
    lowered: &[(String, RType)],
) -> Result<Vec<TokenStream>, String> {
    tool.fields
        .iter()
        .filter(|f| action.uses(&f.name))
        .filter_map(|f| field_type(lowered, &f.name).map(|t| (f, t)))
        .map(|(f, t)| {
            let default = f.ty.peel().1.and_then(|a| a.default.as_ref());
            init(&f.name, t, action.is_required(&f.name), default)
        })
        .collect()
}

fn field_type<'l>(lowered: &'l [(String, RType)], name: &str) -> Option<&'l RType> {
    lowered.iter().find(|(n, _)| n == name).map(|(_, t)| t)
}

/// The conversions for `tool` (empty without `implements:`). `action_idents` are the generated
/// action struct names (empty for a plain tool); `lowered` the lowered type of each field.
pub(super) fn conversions(
    tool: &Tool,
    action_idents: &[Ident],
    lowered: &[(String, RType)],
) -> TokenStream {
    let Some(path) = &tool.implements else {
        return TokenStream::new();
    };
    match conversion_items(tool, path, action_idents, lowered) {
        Ok(items) => items,
        Err(problem) => {
            let msg = format!("tool `{}` implements `{path}`: {problem}", tool.name);
            quote!(::core::compile_error!(#msg);)
        }
    }
}

fn conversion_items(
    tool: &Tool,
    path: &str,
    action_idents: &[Ident],
    lowered: &[(String, RType)],
) -> Result<TokenStream, String> {
    let target = path_tokens(path);
    let module = module_tokens(path);
    let used: Vec<&RType> = tool
        .fields
        .iter()
        .filter(|f| tool.actions.iter().any(|a| a.uses(&f.name)))
        .filter_map(|f| field_type(lowered, &f.name))
        .collect();
    let enums = enum_conversions(&module, &used);
    let body = if tool.is_plain() {
        let action = tool
            .actions
            .first()
            .ok_or_else(|| "a plain tool without its action".to_owned())?;
        let fields = inits(tool, action, lowered)?;
        quote!(#target { #(#fields,)* })
    } else {
        let mut arms = Vec::new();
        for (action, id) in tool.actions.iter().zip(action_idents) {
            let fields = inits(tool, action, lowered)?;
            let bound = if fields.is_empty() {
                quote!(_)
            } else {
                quote!(c)
            };
            arms.push(quote!(Call::#id(#bound) => #target::#id(#module::#id { #(#fields,)* }),));
        }
        quote!(match c { #(#arms)* })
    };
    let doc = format!(" The typed call as `{path}` (the tool's `implements:`).");
    let binding = if tool.is_plain() && used.is_empty() {
        quote!(_c)
    } else {
        quote!(c)
    };
    let body = if tool.is_plain() && used.is_empty() {
        quote!(#target {})
    } else {
        body
    };
    Ok(quote! {
        #[doc = #doc]
        impl ::core::convert::From<Call> for #target {
            fn from(#binding: Call) -> Self { #body }
        }
        #(#enums)*
    })
}

/// `TOOL_NAMES`: each `implements:` type with its tool's name, the runtime's only source of
/// tool names for its texts (`ToolNames::of::<Request>()`).
pub(super) fn tool_names(ir: &Ir) -> TokenStream {
    let rt = rt();
    let entries = ir.tools.iter().filter_map(|t| {
        let path = path_tokens(t.implements.as_deref()?);
        let name = &t.name;
        Some(quote! {
            (::core::any::TypeId::of::<#path> as fn() -> ::core::any::TypeId, #name)
        })
    });
    quote! {
        /// The tool each runtime request type belongs to (the tools' `implements:`), handed to
        /// the runtime in every call's context so its texts name tools as this surface does.
        pub static TOOL_NAMES: #rt::ToolNames = #rt::ToolNames::new(&[#(#entries),*]);
    }
}
