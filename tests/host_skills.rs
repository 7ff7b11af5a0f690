//! Skills through `StandardHost`, for every role × family × skill the standard surface
//! offers: the gate (a published skill tool refused before activation, with the message
//! naming the activation tool and the skill, both from the generated code), the tool bytes
//! under each delivery (identical before and after activation under `defer` and
//! `allow_list`; the resident prefix kept under `append`), and the activation's reply in the
//! family's shape (`take_activation` → `Activation::reply`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::host_support;

use host_support::*;
use toolsurface::runtime::ActivationReply;
use toolsurface::runtime::Outcome;
use toolsurface::runtime::SkillDelivery;
use toolsurface::runtime::ToolResultBlock;
use toolsurface::runtime::Turn;
use toolsurface::runtime::TurnKind;
use toolsurface::standard;
use toolsurface::standard::Family;
use toolsurface::standard::Role;
use toolsurface::standard::Scope;
use toolsurface::standard::Skill;

/// The refusal a skill tool gets before its skill is active, worded from generated names.
fn gate_message(role: Role, family: Family, skill: Skill, tool: &str) -> String {
    let activate = Scope::new(role, family)
        .activation_tool()
        .expect("a role offering skills publishes the activation tool");
    format!(
        "{tool} belongs to skill {skill}, which is not active in this conversation; call {} \
         with name {skill} first, then call {tool} again",
        activate.as_str()
    )
}

fn activation_arguments(skill: Skill) -> String {
    serde_json::json!({ "name": skill.as_str() }).to_string()
}

/// Every (role, family, skill) with at least one tool on that family.
fn offered() -> Vec<(Role, Family, Skill)> {
    let mut all = Vec::new();
    for role in Role::ALL {
        for family in Family::ALL {
            for &skill in role.skills() {
                if !standard::skill_tools(role, family, skill).is_empty() {
                    all.push((role, family, skill));
                }
            }
        }
    }
    assert!(!all.is_empty(), "the standard surface offers no skill");
    all
}

#[tokio::test]
async fn a_skill_tool_is_refused_before_activation_and_parses_after() {
    for (role, family, skill) in offered() {
        let fx = Fixture::new(role, family);
        let activate = Scope::new(role, family).activation_tool().unwrap();
        for tool in standard::skill_tools(role, family, skill) {
            let refused = fx.one(tool.as_str(), "{}").await;
            assert!(refused.is_error, "{role} × {family} {tool}");
            assert_eq!(refused.outcome, Outcome::Refused);
            assert_eq!(
                refused.text,
                gate_message(role, family, skill, tool.as_str()),
                "{role} × {family}"
            );
        }
        ok(&fx
            .one(activate.as_str(), &activation_arguments(skill))
            .await);
        for tool in standard::skill_tools(role, family, skill) {
            let skills = [skill];
            let scope = Scope::new(role, family).with_skills(&skills);
            assert!(scope.offers(*tool), "{role} × {family} {tool}");
            let after = fx.one(tool.as_str(), "{}").await;
            // `{}` lacks required fields: refused for its arguments, no longer by the gate.
            assert!(
                !after.text.contains("which is not active"),
                "{role} × {family} {tool}: {}",
                after.text
            );
        }
    }
}

#[tokio::test]
async fn activation_keeps_the_tool_bytes_under_defer_and_allow_list() {
    for (role, family, skill) in offered() {
        let fx = Fixture::new(role, family);
        let delivery = fx.host.skill_delivery();
        assert_eq!(delivery, family.skill_delivery());
        let before: Vec<_> = TurnKind::ALL
            .iter()
            .map(|kind| fx.host.surface(&Turn::new(*kind)).unwrap())
            .collect();
        let activated = ok(&fx.one("activate_skill", &activation_arguments(skill)).await).clone();
        let facts = structured(&activated);
        let after = fx.host.surface(&Turn::normal()).unwrap();
        let resident = standard::published(role, family);
        assert_eq!(
            facts["previous_sha256"],
            standard::published_sha256(role, family)
        );
        assert_eq!(facts["surface_sha256"], after.sha256.as_str());
        assert_eq!(facts["prefix_intact"], true);
        if delivery.keeps_tools_stable() {
            for surface in &before {
                assert_eq!(surface.bytes, after.bytes, "{role} × {family} {skill}");
            }
            assert_eq!(after.bytes, resident);
            assert_eq!(facts["surface_sha256"], facts["previous_sha256"]);
            assert_eq!(facts["diverges_at"], resident.len());
            // Every skill tool was published from the start.
            for definition in standard::skill_json(role, family, skill) {
                assert!(resident.contains(definition), "{role} × {family} {skill}");
            }
        } else {
            let body = resident.strip_suffix(']').unwrap();
            assert!(after.bytes.starts_with(body), "{role} × {family} {skill}");
            assert_eq!(facts["diverges_at"], body.len());
            assert_ne!(facts["surface_sha256"], facts["previous_sha256"]);
        }
        for kind in TurnKind::ALL {
            assert_eq!(fx.host.surface(&Turn::new(kind)).unwrap(), after);
        }
    }
}

#[tokio::test]
async fn the_activation_reply_has_the_family_shape() {
    for (role, family, skill) in offered() {
        let fx = Fixture::new(role, family);
        let result = ok(&fx.one("activate_skill", &activation_arguments(skill)).await).clone();
        let activation = fx.host.take_activation(&result.call_id).unwrap();
        assert!(
            fx.host.take_activation(&result.call_id).is_none(),
            "taken once"
        );
        assert_eq!(activation.skill, skill.as_str());
        assert_eq!(activation.text(), result.text);
        let names: Vec<&str> = standard::skill_tools(role, family, skill)
            .iter()
            .map(|t| t.as_str())
            .collect();
        assert_eq!(activation.new_tool_names(), names);
        let reply = activation.reply(&result.call_id).unwrap();
        match (fx.host.skill_delivery(), reply) {
            (SkillDelivery::ToolReference, ActivationReply::ToolResultContent(blocks)) => {
                assert_eq!(
                    blocks[0],
                    ToolResultBlock::Text {
                        text: result.text.clone()
                    }
                );
                let referenced: Vec<String> = blocks[1..]
                    .iter()
                    .map(|b| match b {
                        ToolResultBlock::ToolReference { tool_name } => tool_name.clone(),
                        other => panic!("{other:?}"),
                    })
                    .collect();
                assert_eq!(referenced, names);
            }
            (SkillDelivery::ToolSearchOutput, ActivationReply::ToolSearchOutput(item)) => {
                assert_eq!(item.call_id, result.call_id);
                let bytes: Vec<String> = item.tools.iter().map(|t| t.to_string()).collect();
                assert_eq!(
                    bytes,
                    standard::skill_json(role, family, skill).to_vec(),
                    "the full definitions, byte for byte"
                );
            }
            (SkillDelivery::AllowList | SkillDelivery::Append, ActivationReply::Text(text)) => {
                assert_eq!(text, result.text);
            }
            (delivery, reply) => panic!("{role} × {family}: {delivery:?} answered {reply:?}"),
        }
    }
}

#[tokio::test]
async fn over_mcp_every_family_allow_lists_and_keeps_the_mcp_array() {
    for (role, family, skill) in offered() {
        let fx = Fixture::new(role, family);
        let conversation = fx
            .host
            .open_conversation_rendered(toolsurface::host::Rendering::Mcp)
            .unwrap();
        assert_eq!(conversation.skill_delivery(), SkillDelivery::AllowList);
        let turn = conversation.new_turn(TurnKind::Normal);
        let calls = vec![toolsurface::host::ModelToolCall::new(
            "m1",
            "activate_skill",
            activation_arguments(skill),
        )];
        let results = conversation.handle_batch(calls, &turn).await.unwrap();
        let facts = structured(ok(&results[0]));
        let mcp = standard::published_mcp(role, family);
        assert_eq!(facts["surface_sha256"], facts["previous_sha256"]);
        assert_eq!(facts["diverges_at"], mcp.len());
        assert_eq!(conversation.surface(&turn).unwrap().bytes, mcp);
        let activation = conversation.take_activation("m1").unwrap();
        assert!(matches!(
            activation.reply("m1").unwrap(),
            ActivationReply::Text(_)
        ));
    }
}
