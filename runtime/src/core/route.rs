//! Which host a call runs on. Follow-up calls go to the host owning the session they name
//! (session ids are unique across hosts), whatever host the thread is bound to; everything
//! else follows the call's `route()`.

use crate::call::CallInfo;
use crate::call::Route;
use crate::call::SessionTarget;
use crate::call::ToolError;
use crate::registry::SessionRegistry;

/// The host name `Route::Local` calls get in `CallContext::host`.
pub const LOCAL_HOST: &str = "local";

/// Route `call` for a thread bound to `bound_host`. Errors are meant for the model.
pub fn route_call<C: CallInfo>(
    call: &C,
    bound_host: &str,
    registry: &SessionRegistry,
) -> Result<String, ToolError> {
    let route = call.route();
    if (call.is_follow_up() || route == Route::SessionHost)
        && let Some(target) = call.session_target()
    {
        return session_host(target, registry);
    }
    Ok(match route {
        Route::ThreadHost | Route::SessionHost => bound_host.to_owned(),
        Route::Local => LOCAL_HOST.to_owned(),
    })
}

/// The host owning `target.id`, checked against the host the call names, if any.
pub fn session_host(
    target: SessionTarget<'_>,
    registry: &SessionRegistry,
) -> Result<String, ToolError> {
    let Some(owner) = registry.owner(target.id) else {
        return Err(ToolError::Model(unknown_session(target.id, registry)));
    };
    match target.host {
        Some(named) if named != owner => Err(ToolError::Model(format!(
            "session {} belongs to host {owner}, not {named}; name host {owner} or leave the host out",
            target.id
        ))),
        _ => Ok(owner),
    }
}

fn unknown_session(id: i64, registry: &SessionRegistry) -> String {
    let known = registry.list();
    if known.is_empty() {
        return format!("unknown session {id}: no sessions are known on any host");
    }
    let listed = known
        .iter()
        .map(|(id, host)| format!("{id} ({host})"))
        .collect::<Vec<_>>()
        .join(", ");
    format!("unknown session {id}; known sessions: {listed}")
}
