//! The published bytes as generated statics: per role × family the tool array in the
//! family's dialect and in the mcp dialect (with sha256), each skill's tools, and per turn
//! kind the request fragment with its static pieces, plus the lookups over them
//! (`published`, `published_with_skills`, `skill_json`, `request_fragment`, …). Every byte
//! comes from `emit`; the generated lookups only pick statics or join them, so a host does
//! no per-request work for the static part.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::names::upper;
use super::{CodegenError, Gen, rt};
use crate::emit::request::{RequestParts, TurnKind};
use crate::emit::{self, Emitted};
use crate::ir::{Dialect, SkillStrategy, SurfaceInstance};

/// What the per-surface pass collects: the statics and the match arms of each lookup.
#[derive(Default)]
struct Collected {
    consts: Vec<TokenStream>,
    arrays: Vec<TokenStream>,
    sha: Vec<TokenStream>,
    mcp: Vec<TokenStream>,
    skill_tools: Vec<TokenStream>,
    skill_json: Vec<TokenStream>,
    skill_mcp: Vec<TokenStream>,
    summaries: Vec<TokenStream>,
    mcp_summaries: Vec<TokenStream>,
    skill_summaries: Vec<TokenStream>,
    requests: Vec<TokenStream>,
    used_names: Vec<String>,
}

impl Collected {
    /// A static's name, made unique (`X`, `X_2`, …).
    fn unique(&mut self, base: String) -> Ident {
        let mut name = base.clone();
        let mut n = 2;
        while self.used_names.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.used_names.push(name.clone());
        format_ident!("{}", name)
    }
}

/// `(name, description)` tuples of emitted tools.
fn summaries(tools: &[&emit::EmittedTool]) -> Vec<TokenStream> {
    tools
        .iter()
        .map(|t| {
            let (n, d) = (&t.name, &t.description);
            quote!((#n, #d))
        })
        .collect()
}

fn emit_err(e: emit::EmitError) -> CodegenError {
    CodegenError(e.to_string())
}

impl Gen<'_> {
    /// Every published static and lookup (see the module docs).
    pub(super) fn published(&self) -> Result<TokenStream, CodegenError> {
        let mut c = Collected::default();
        for s in &self.ir.surfaces {
            self.published_surface(s, &mut c)?;
        }
        let lookups = self.array_lookups(&c);
        let skills = self.skill_lookups(&c);
        let requests = self.request_lookup(&c);
        let tables = self.role_and_skill_tables();
        let consts = &c.consts;
        Ok(quote! {
            #(#consts)*
            #lookups
            #skills
            #requests
            #tables
        })
    }

    /// One role × family: its arrays, its skills' tools and its request fragments.
    fn published_surface(
        &self,
        s: &SurfaceInstance,
        c: &mut Collected,
    ) -> Result<(), CodegenError> {
        let ir = self.ir;
        let (Some(r), Some(f)) = (self.role_ix(&s.role), self.family_ix(&s.family)) else {
            return Ok(());
        };
        let own = emit::surface(ir, &s.role, &s.family, None).map_err(emit_err)?;
        let mcp = emit::surface(ir, &s.role, &s.family, Some(Dialect::Mcp)).map_err(emit_err)?;
        let base = format!("{}_{}", upper(&s.role), upper(&s.family));
        let k = format_ident!("SURFACE_{}", base);
        let k_sha = format_ident!("SURFACE_{}_SHA256", base);
        let m = format_ident!("SURFACE_{}_MCP", base);
        let m_sha = format_ident!("SURFACE_{}_MCP_SHA256", base);
        let (bytes, sha, mbytes, msha) = (&own.bytes, &own.sha256, &mcp.bytes, &mcp.sha256);
        let doc = format!(
            " The `{}` × `{}` tool array ({}, skills: {}).",
            s.role,
            s.family,
            s.dialect.as_str(),
            own.skill_strategy.as_str()
        );
        let mdoc = format!(
            " The `{}` × `{}` tool array in the mcp dialect (skills: {}).",
            s.role,
            s.family,
            mcp.skill_strategy.as_str()
        );
        c.consts.push(quote! {
            #[doc = #doc]
            pub const #k: &str = #bytes;
            pub const #k_sha: &str = #sha;
            #[doc = #mdoc]
            pub const #m: &str = #mbytes;
            pub const #m_sha: &str = #msha;
        });
        let ks = c.unique(format!("SUMMARIES_{base}"));
        let ms = c.unique(format!("SUMMARIES_{base}_MCP"));
        let (own_sum, mcp_sum) = (
            summaries(&own.published_tools()),
            summaries(&mcp.published_tools()),
        );
        c.consts.push(quote! {
            static #ks: &[(&str, &str)] = &[#(#own_sum),*];
            static #ms: &[(&str, &str)] = &[#(#mcp_sum),*];
        });
        c.summaries.push(quote!((Role::#r, Family::#f) => #ks,));
        c.mcp_summaries.push(quote!((Role::#r, Family::#f) => #ms,));
        c.arrays.push(quote!((Role::#r, Family::#f) => #k,));
        c.sha.push(quote!((Role::#r, Family::#f) => #k_sha,));
        c.mcp.push(quote!((Role::#r, Family::#f) => #m,));
        self.published_skills(s, &own, &mcp, &base, c)?;
        self.published_requests(s, &own, &base, c)
    }

    /// Each skill's tools of one surface, in the family's dialect and in mcp.
    fn published_skills(
        &self,
        s: &SurfaceInstance,
        own: &Emitted,
        mcp: &Emitted,
        base: &str,
        c: &mut Collected,
    ) -> Result<(), CodegenError> {
        let (Some(r), Some(f)) = (self.role_ix(&s.role), self.family_ix(&s.family)) else {
            return Ok(());
        };
        for sk in &own.skills {
            if sk.tools.is_empty() {
                continue;
            }
            let Some(skid) = self.skill_ix(&sk.name) else {
                continue;
            };
            let msk = mcp.skill(&sk.name).ok_or_else(|| {
                CodegenError(format!(
                    "skill {} of {} × {} has no mcp rendering",
                    sk.name, s.role, s.family
                ))
            })?;
            let tools: Vec<&Ident> = sk
                .tools
                .iter()
                .filter_map(|t| self.tool_ix(&t.name))
                .collect();
            let json = sk.tools.iter().map(|t| t.json.as_str());
            let mjson = msk.tools.iter().map(|t| t.json.as_str());
            let k = c.unique(format!("SKILL_{base}_{}", upper(&sk.name)));
            let mk = c.unique(format!("SKILL_{base}_{}_MCP", upper(&sk.name)));
            let kdoc = format!(
                " The tools of skill `{}` for `{}` × `{}` ({}), one canonical JSON object each, \
                 as `tools` carries them (skills: {}).",
                sk.name,
                s.role,
                s.family,
                s.dialect.as_str(),
                own.skill_strategy.as_str()
            );
            let mkdoc = format!(
                " The tools of skill `{}` for `{}` × `{}` in the mcp dialect.",
                sk.name, s.role, s.family
            );
            c.consts.push(quote! {
                #[doc = #kdoc]
                pub const #k: &[&str] = &[#(#json),*];
                #[doc = #mkdoc]
                pub const #mk: &[&str] = &[#(#mjson),*];
            });
            let ks = c.unique(format!("SKILL_SUMMARIES_{base}_{}", upper(&sk.name)));
            let sum = summaries(&sk.tools.iter().collect::<Vec<_>>());
            c.consts.push(quote! {
                static #ks: &[(&str, &str)] = &[#(#sum),*];
            });
            c.skill_summaries
                .push(quote!((Role::#r, Family::#f, Skill::#skid) => #ks,));
            c.skill_tools
                .push(quote!((Role::#r, Family::#f, Skill::#skid) => &[#(Tool::#tools),*],));
            c.skill_json
                .push(quote!((Role::#r, Family::#f, Skill::#skid) => #k,));
            c.skill_mcp
                .push(quote!((Role::#r, Family::#f, Skill::#skid) => #mk,));
        }
        Ok(())
    }

    /// Per turn kind: the fragment with no active skill, and its static pieces.
    fn published_requests(
        &self,
        s: &SurfaceInstance,
        own: &Emitted,
        base: &str,
        c: &mut Collected,
    ) -> Result<(), CodegenError> {
        let (Some(r), Some(f)) = (self.role_ix(&s.role), self.family_ix(&s.family)) else {
            return Ok(());
        };
        let rt = rt();
        for turn in TurnKind::FRAGMENTS {
            let fragment = own.request(turn, &[]).map_err(emit_err)?;
            let k = c.unique(format!("REQUEST_{base}_{}", upper(turn.as_str())));
            let kp = c.unique(format!("REQUEST_PARTS_{base}_{}", upper(turn.as_str())));
            let parts = parts_tokens(&own.request_parts(turn));
            let doc = format!(
                " The request fragment of a {} turn for `{}` × `{}` with no skill active.",
                turn.as_str(),
                s.role,
                s.family
            );
            c.consts.push(quote! {
                #[doc = #doc]
                pub const #k: &str = #fragment;
                static #kp: #rt::publish::RequestParts = #parts;
            });
            let rehearsal = turn == TurnKind::Rehearsal;
            c.requests
                .push(quote!((Role::#r, Family::#f, #rehearsal) => (#k, &#kp),));
        }
        Ok(())
    }

    /// `published`, `published_sha256`, `published_mcp` and the `_with_skills` variants.
    fn array_lookups(&self, c: &Collected) -> TokenStream {
        let ir = self.ir;
        let complete = ir.surfaces.len() == ir.roles.len() * ir.families.len();
        let wild = if complete {
            quote!()
        } else {
            quote!(_ => "[]",)
        };
        let body = |arms: &[TokenStream]| {
            if ir.roles.is_empty() || ir.families.is_empty() {
                quote!(let _ = (role, family); "[]")
            } else {
                quote!(match (role, family) { #(#arms)* #wild })
            }
        };
        let (b1, b2, b3) = (body(&c.arrays), body(&c.sha), body(&c.mcp));
        let empty_body = |arms: &[TokenStream]| {
            if ir.roles.is_empty() || ir.families.is_empty() {
                quote!(let _ = (role, family); &[])
            } else if complete {
                quote!(match (role, family) { #(#arms)* })
            } else {
                quote!(match (role, family) { #(#arms)* _ => &[], })
            }
        };
        let (b4, b5) = (empty_body(&c.summaries), empty_body(&c.mcp_summaries));
        let own = self.with_skills_body(
            |f| f.skills,
            quote!(published(role, family)),
            quote!(skill_json(role, family, *s)),
        );
        let mcp = self.with_skills_body(
            |f| f.strategy_in(Dialect::Mcp),
            quote!(published_mcp(role, family)),
            quote!(skill_json_mcp(role, family, *s)),
        );
        quote! {
            /// The tool array sent with every request for `role` on `family` (borrowed static
            /// bytes, byte-stable). Under `skills: defer` and `allow_list` it already holds
            /// every offered skill's tools; under `append` activation appends after it.
            pub fn published(role: Role, family: Family) -> &'static str { #b1 }
            /// Lowercase hex sha256 of [`published`].
            pub fn published_sha256(role: Role, family: Family) -> &'static str { #b2 }
            /// The same array in the mcp dialect (what `toolsurface serve` lists).
            pub fn published_mcp(role: Role, family: Family) -> &'static str { #b3 }
            /// Name and published description of every tool of [`published`], in order
            /// (the emitter's typed facts: nothing re-reads the bytes).
            pub fn published_summaries(role: Role, family: Family) -> &'static [(&'static str, &'static str)] { #b4 }
            /// [`published_summaries`] of [`published_mcp`].
            pub fn published_mcp_summaries(role: Role, family: Family) -> &'static [(&'static str, &'static str)] { #b5 }

            /// The array for `role` on `family` after activating `skills` (in activation
            /// order). Under `defer` and `allow_list` it is [`published`], borrowed: activation
            /// never changes the tools. Under `append`: the resident array's bytes up to its
            /// closing `]`, unchanged, then each skill's tools. A skill the role does not offer
            /// (see [`Role::skills`]) adds nothing.
            pub fn published_with_skills(
                role: Role,
                family: Family,
                skills: &[Skill],
            ) -> ::std::borrow::Cow<'static, str> {
                #own
            }
            /// [`published_with_skills`] in the mcp dialect.
            pub fn published_mcp_with_skills(
                role: Role,
                family: Family,
                skills: &[Skill],
            ) -> ::std::borrow::Cow<'static, str> {
                #mcp
            }
        }
    }

    /// The body of a `_with_skills` lookup: borrowed `published` for the families whose
    /// strategy (`strategy_of`) keeps the tools, `append_tools` for the `append` ones.
    fn with_skills_body(
        &self,
        strategy_of: impl Fn(&crate::ir::Family) -> SkillStrategy,
        published: TokenStream,
        skill_json: TokenStream,
    ) -> TokenStream {
        let rt = rt();
        let appending: Vec<&Ident> = self
            .ir
            .families
            .iter()
            .zip(&self.families)
            .filter(|(f, _)| strategy_of(f) == SkillStrategy::Append)
            .map(|(_, id)| id)
            .collect();
        let append = quote!(#rt::publish::append_tools(
            #published,
            skills.iter().map(|s| #skill_json),
        ));
        let keep = quote!(::std::borrow::Cow::Borrowed(#published));
        if appending.is_empty() {
            quote!(let _ = skills; #keep)
        } else if appending.len() == self.families.len() {
            append
        } else {
            quote! {
                if ::core::matches!(family, #(Family::#appending)|*) { #append } else { #keep }
            }
        }
    }

    /// `skill_tools`, `skill_json`, `skill_json_mcp`.
    fn skill_lookups(&self, c: &Collected) -> TokenStream {
        let skill_body = |arms: &[TokenStream]| {
            quote! {
                let _ = (&role, &family, &skill);
                #[allow(unreachable_patterns)]
                match (role, family, skill) { #(#arms)* _ => &[], }
            }
        };
        let (s1, s2, s3, s4) = (
            skill_body(&c.skill_tools),
            skill_body(&c.skill_json),
            skill_body(&c.skill_mcp),
            skill_body(&c.skill_summaries),
        );
        quote! {
            /// The tools of `skill` for `role` on `family`, in published order (empty when the
            /// role does not offer the skill or the family has none of its tools).
            pub fn skill_tools(role: Role, family: Family, skill: Skill) -> &'static [Tool] { #s1 }
            /// The canonical JSON of each of [`skill_tools`], in the family's dialect, as the
            /// tools array carries them (`defer_loading` where the family defers).
            pub fn skill_json(role: Role, family: Family, skill: Skill) -> &'static [&'static str] { #s2 }
            /// [`skill_json`] in the mcp dialect.
            pub fn skill_json_mcp(role: Role, family: Family, skill: Skill) -> &'static [&'static str] { #s3 }
            /// Name and published description of each of [`skill_tools`].
            pub fn skill_summaries(role: Role, family: Family, skill: Skill) -> &'static [(&'static str, &'static str)] { #s4 }
        }
    }

    /// `request_fragment`: the static fragment, or the static pieces joined with the active
    /// skills' entries.
    fn request_lookup(&self, c: &Collected) -> TokenStream {
        let ir = self.ir;
        let rt = rt();
        let arms = &c.requests;
        let complete = ir.surfaces.len() == ir.roles.len() * ir.families.len();
        let empty = quote! {
            static NO_REQUEST_PARTS: #rt::publish::RequestParts = #rt::publish::RequestParts {
                open: "{\"tools\":",
                close_tools: "",
                restriction: ::core::option::Option::None,
                tail: "}",
            };
        };
        let no_surface = ir.roles.is_empty() || ir.families.is_empty();
        let prelude = if complete && !no_surface {
            quote!()
        } else {
            empty
        };
        let lookup = if no_surface {
            quote!(let _ = (role, family, rehearsal); ("{\"tools\":[]}", &NO_REQUEST_PARTS))
        } else if complete {
            quote!(match (role, family, rehearsal) { #(#arms)* })
        } else {
            quote!(match (role, family, rehearsal) { #(#arms)* _ => ("{\"tools\":[]}", &NO_REQUEST_PARTS), })
        };
        quote! {
            #prelude
            /// Every request field the surface owns for a `turn` of `role` on `family` with
            /// `skills` active, as one JSON object to merge into the provider request: `tools`
            /// (the same bytes for every turn kind, and under `defer` / `allow_list` for every
            /// activation), and where the dialect has them the turn's allowed-tools restriction
            /// (`tool_choice`, Gemini `toolConfig`) and `parallel_tool_calls`. Heartbeat and
            /// scheduled turns use the normal fragment; rehearsal allows only tools whose every
            /// action is read-only (Anthropic has no such mechanism: the runtime refuses).
            /// Borrowed static bytes whenever the active skills change nothing.
            pub fn request_fragment(
                role: Role,
                family: Family,
                turn: #rt::TurnKind,
                skills: &[Skill],
            ) -> ::std::borrow::Cow<'static, str> {
                let rehearsal = ::core::matches!(turn, #rt::TurnKind::Rehearsal);
                let (fragment, parts): (&'static str, &'static #rt::publish::RequestParts) = #lookup;
                #rt::publish::request_fragment(
                    fragment,
                    parts,
                    published_with_skills(role, family, skills),
                    skills.iter().map(|s| s.as_str()),
                )
            }
        }
    }

    /// `Role::skills` and `Skill::description`.
    fn role_and_skill_tables(&self) -> TokenStream {
        let ir = self.ir;
        let role_skill_arms = ir.roles.iter().zip(&self.roles).map(|(role, r)| {
            let sks: Vec<&Ident> = role
                .skills
                .iter()
                .filter_map(|s| self.skill_ix(s))
                .collect();
            quote!(Role::#r => &[#(Skill::#sks),*],)
        });
        let descriptions = ir.skills.iter().zip(&self.skills).map(|(sk, id)| {
            let d = &sk.description;
            quote!(Skill::#id => #d,)
        });
        quote! {
            impl Role {
                /// The skills the role offers, in `roles.yaml` order.
                pub fn skills(self) -> &'static [Skill] {
                    match self { #(#role_skill_arms)* }
                }
            }

            impl Skill {
                /// The skill's description (what `introspect skills` shows a model).
                pub fn description(self) -> &'static str {
                    match self { #(#descriptions)* }
                }
            }
        }
    }
}

/// A fragment's static pieces as a `publish::RequestParts` expression.
fn parts_tokens(p: &RequestParts) -> TokenStream {
    let rt = rt();
    let (open, close_tools, tail) = (p.open, p.close_tools, p.tail);
    let restriction = match &p.restriction {
        None => quote!(::core::option::Option::None),
        Some(r) => {
            let (ro, rc, rn) = (r.open, r.close, r.none);
            let resident = &r.resident;
            let skills = r
                .skills
                .iter()
                .map(|(name, entries)| quote!((#name, &[#(#entries),*])));
            quote!(::core::option::Option::Some(#rt::publish::Restriction {
                open: #ro,
                close: #rc,
                none: #rn,
                resident: &[#(#resident),*],
                skills: &[#(#skills),*],
            }))
        }
    };
    quote!(#rt::publish::RequestParts {
        open: #open,
        close_tools: #close_tools,
        restriction: #restriction,
        tail: #tail,
    })
}
