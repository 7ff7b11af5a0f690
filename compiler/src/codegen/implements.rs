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
use super::tool::{Def, Lowered, RType, field_type};
use crate::ir::{Ir, Tool};
use crate::plan::{ActionPlan, ToolPlan, TypePlan};

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
fn converter(ty: &RType<'_>) -> Result<Option<TokenStream>, String> {
    let rt = rt();
    Ok(match (ty.plan, &ty.def) {
        (
            TypePlan::Integer {
                minimum: Some(m), ..
            },
            _,
        ) if *m >= 0 => Some(quote!(#rt::FromNonNegative::from_non_negative)),
        (_, Def::Enum { .. }) => Some(quote!(::core::convert::Into::into)),
        (_, Def::Array(items)) => converter(items)?
            .map(|each| quote!(|__items| ::core::iter::IntoIterator::into_iter(__items).map(#each).collect())),
        (_, Def::Object { name, .. }) => {
            return Err(format!(
                "an object field ({name}) cannot be implemented by a runtime type yet"
            ));
        }
        _ => None,
    })
}

/// The conversion of the generated value `v` of type `ty` into the runtime's.
fn convert(ty: &RType<'_>, v: TokenStream) -> Result<TokenStream, String> {
    Ok(match (&ty.def, converter(ty)?) {
        (_, None) => v,
        (Def::Array(items), Some(_)) => match converter(items)? {
            Some(each) => quote!(#v.into_iter().map(#each).collect()),
            None => v,
        },
        (_, Some(f)) => quote!(#f(#v)),
    })
}

/// `impl From<Enum> for <module>::Enum` for every enum type among `fields`, once each.
fn enum_conversions(module: &TokenStream, fields: &[&RType<'_>]) -> Vec<TokenStream> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut stack: Vec<&RType<'_>> = fields.to_vec();
    while let Some(ty) = stack.pop() {
        match &ty.def {
            Def::Array(items) => stack.push(items),
            Def::Enum { name, variants } if !seen.contains(&name.to_string()) => {
                seen.push(name.to_string());
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
fn default_value(ty: &RType<'_>, v: &serde_json::Value) -> Result<(TokenStream, bool), String> {
    use proc_macro2::Literal;
    use serde_json::Value as J;
    let refused = || format!("the default {v} does not fit the field's type");
    Ok(match (&ty.def, ty.plan, v) {
        (Def::Enum { name, variants }, TypePlan::Enum { values, .. }, J::String(s)) => {
            let at = values.iter().position(|v| v == s).ok_or_else(refused)?;
            let variant = variants.get(at).ok_or_else(refused)?;
            (quote!(#name::#variant), true)
        }
        (Def::Array(items), _, J::Array(vs)) => {
            let each = vs
                .iter()
                .map(|v| default_value(items, v).map(|(e, _)| e))
                .collect::<Result<Vec<_>, _>>()?;
            (quote!(::std::vec![#(#each),*]), false)
        }
        (Def::Object { .. } | Def::Json { .. }, _, _) | (_, TypePlan::Any, _) => {
            return Err(format!(
                "the default {v} of an object or JSON-valued field cannot be applied by the \
                 conversion yet"
            ));
        }
        (_, TypePlan::String { .. }, J::String(s)) => {
            (quote!(::std::string::String::from(#s)), false)
        }
        (_, TypePlan::Integer { .. }, J::Number(n)) => {
            let n = n.as_i64().ok_or_else(refused)?;
            (Literal::i64_suffixed(n).into_token_stream(), true)
        }
        (_, TypePlan::Number { .. }, J::Number(n)) => {
            let n = n.as_f64().ok_or_else(refused)?;
            (Literal::f64_suffixed(n).into_token_stream(), true)
        }
        (_, TypePlan::Boolean, J::Bool(b)) => (quote!(#b), true),
        _ => return Err(refused()),
    })
}

/// One field initializer `name: <converted c.name>`. An optional field with a `default:` is
/// filled with it, so the runtime type holds the plain value (not an `Option`): a default its
/// field cannot hold is a compile error of this code, like any other disagreement.
fn init(
    field: &str,
    ty: &RType<'_>,
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

/// The field initializers of one action (the plan action's fields, declaration order).
fn inits(action: &ActionPlan, lowered: &Lowered<'_>) -> Result<Vec<TokenStream>, String> {
    action
        .object
        .fields
        .iter()
        .filter_map(|f| field_type(lowered, &f.name).map(|t| (f, t)))
        .map(|(f, t)| init(&f.name, t, f.required, f.default.as_ref()))
        .collect()
}

/// The conversions for `tool` (empty without `implements:`), planned as `tp`. `action_idents`
/// are the generated action struct names (empty for a plain tool); `lowered` the generated
/// type of each field.
pub(super) fn conversions(
    tool: &Tool,
    tp: &ToolPlan,
    action_idents: &[Ident],
    lowered: &Lowered<'_>,
) -> TokenStream {
    let Some(path) = &tool.implements else {
        return TokenStream::new();
    };
    match conversion_items(tp, path, action_idents, lowered) {
        Ok(items) => items,
        Err(problem) => {
            let msg = format!("tool `{}` implements `{path}`: {problem}", tool.name);
            quote!(::core::compile_error!(#msg);)
        }
    }
}

fn conversion_items(
    tp: &ToolPlan,
    path: &str,
    action_idents: &[Ident],
    lowered: &Lowered<'_>,
) -> Result<TokenStream, String> {
    let target = path_tokens(path);
    let module = module_tokens(path);
    let used: Vec<&RType<'_>> = lowered
        .iter()
        .filter(|(name, _)| tp.takes(name))
        .map(|(_, t)| t)
        .collect();
    let enums = enum_conversions(&module, &used);
    let plain = tp.selector.is_none();
    let body = if plain {
        let action = tp
            .actions
            .first()
            .ok_or_else(|| "a plain tool without its action".to_owned())?;
        let fields = inits(action, lowered)?;
        quote!(#target { #(#fields,)* })
    } else {
        let mut arms = Vec::new();
        for (action, id) in tp.actions.iter().zip(action_idents) {
            let fields = inits(action, lowered)?;
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
    let binding = if plain && used.is_empty() {
        quote!(_c)
    } else {
        quote!(c)
    };
    let body = if plain && used.is_empty() {
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
