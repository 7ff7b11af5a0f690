//! `surface!` on tool-defs expands to the same surface build.rs compiled into
//! `toolsurface::standard`: same parses, same tables, same published bytes (with skills too).

mod surface {
    toolsurface::surface!("tool-defs");
}

use surface::{Call, Family, Role, Skill};

#[test]
fn surface_macro_on_tool_defs_matches_build_rs() {
    let args = r#"{"action":"kill","session_id":4242}"#;
    let ours = Call::parse(Role::SideChat, Family::Chat, "shell_session", args).unwrap();
    assert_eq!(ours.display_name(), "shell_session kill");
    assert!(ours.is_follow_up());
    let err = Call::parse(
        Role::SideChat,
        Family::Chat,
        "shell_session",
        r#"{"action":"kill","session_id":1,"timeout_s":3}"#,
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "action=kill: unexpected field timeout_s (it belongs to wait)"
    );
    for (i, role) in Role::ALL.iter().enumerate() {
        for (j, family) in Family::ALL.iter().enumerate() {
            let std_role = toolsurface::standard::Role::ALL[i];
            let std_family = toolsurface::standard::Family::ALL[j];
            assert_eq!(role.as_str(), std_role.as_str());
            assert_eq!(family.as_str(), std_family.as_str());
            assert_eq!(
                surface::published(*role, *family),
                toolsurface::standard::published(std_role, std_family)
            );
            assert_eq!(
                surface::published_sha256(*role, *family),
                toolsurface::standard::published_sha256(std_role, std_family)
            );
            for (k, skill) in Skill::ALL.iter().enumerate() {
                let std_skill = toolsurface::standard::Skill::ALL[k];
                assert_eq!(skill.description(), std_skill.description());
                assert_eq!(
                    surface::published_with_skills(*role, *family, &[*skill]),
                    toolsurface::standard::published_with_skills(
                        std_role,
                        std_family,
                        &[std_skill]
                    )
                );
                assert_eq!(
                    surface::published_mcp_with_skills(*role, *family, &[*skill]),
                    toolsurface::standard::published_mcp_with_skills(
                        std_role,
                        std_family,
                        &[std_skill]
                    )
                );
            }
        }
    }
}
