//! `surface!("path")`: the toolsurface generator as a proc-macro. Holds no logic: it parses
//! the path literal, has the compiler load, check and generate, and turns diagnostics into
//! `compile_error!`s on the literal.

use proc_macro::TokenStream;
use quote::quote;

/// Expand the definitions folder at `path` (relative to the crate's `CARGO_MANIFEST_DIR`) into
/// the same items build.rs generates for the standard surface: `Role`, `Family`, `Tool`,
/// per-tool modules, `Call` with `Call::parse` and the trait tables, `Handlers`,
/// `published()`. Every definitions file is `include_str!`ed, so editing one rebuilds.
///
/// A path may start with `$NAME/` to resolve against an environment variable instead, e.g.
/// definitions a build script wrote: `surface!("$OUT_DIR/defs")`.
///
/// ```text
/// mod surface { toolsurface::surface!("tool-defs"); }
/// ```
///
/// (Not a doctest: this crate cannot depend on the facade the expansion names. The same
/// usage is compiled and run by `tests/surface_macro/` in the facade.)
#[proc_macro]
pub fn surface(input: TokenStream) -> TokenStream {
    let lit = match syn::parse::<syn::LitStr>(input) {
        Ok(lit) => lit,
        Err(e) => return e.to_compile_error().into(),
    };
    expand(&lit).unwrap_or_else(|e| e).into()
}

fn expand(lit: &syn::LitStr) -> Result<proc_macro2::TokenStream, proc_macro2::TokenStream> {
    let span = lit.span();
    let error = |msg: String| syn::Error::new(span, msg).to_compile_error();
    let rel = lit.value();
    let root = resolve(&rel).map_err(error)?;
    if !root.is_dir() {
        return Err(error(format!(
            "surface!: {rel} is not a definitions folder (paths are relative to \
             CARGO_MANIFEST_DIR, or to $NAME when written `$NAME/…`)"
        )));
    }
    let folder = toolsurface_compiler::compile_folder(&root, &rel)
        .map_err(|e| error(format!("surface!: cannot read {rel}: {e}")))?;
    let includes: Vec<_> = folder
        .sources
        .files
        .iter()
        .map(|f| {
            let path = root.join(&f.path).display().to_string();
            quote!(
                const _: &str = include_str!(#path);
            )
        })
        .collect();
    let ir = match folder.into_valid() {
        Ok(valid) => valid.ir,
        Err(folder) => {
            let mut errors: Vec<proc_macro2::TokenStream> = folder
                .compiled
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| error(d.render(&folder.sources).trim_end().to_owned()))
                .collect();
            if errors.is_empty() {
                errors.push(error(format!("surface!: {rel} did not compile")));
            }
            return Err(quote!(#(#errors)* #(#includes)*));
        }
    };
    let tokens = toolsurface_compiler::codegen::generate(&ir)
        .map_err(|e| error(format!("surface!: {e}")))?;
    Ok(quote! {
        #(#includes)*
        #tokens
    })
}

/// `path` against `CARGO_MANIFEST_DIR`, or against `$NAME` when it starts with `$NAME/`.
fn resolve(path: &str) -> Result<std::path::PathBuf, String> {
    let (var, rest) = match path.strip_prefix('$') {
        Some(r) => match r.split_once('/') {
            Some((var, rest)) => (var, rest),
            None => (r, ""),
        },
        None => ("CARGO_MANIFEST_DIR", path),
    };
    let base = std::env::var_os(var).ok_or_else(|| format!("surface!: ${var} is not set"))?;
    Ok(std::path::PathBuf::from(base).join(rest))
}
