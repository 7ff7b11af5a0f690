//! A host's own definitions: host traits (bool and enum), keyword and odd names, nested objects,
//! arrays of objects and of arrays, a `session` key, and a `Handlers` implementation.

use std::future::Future;

use toolsurface::__private::{CallContext, CallInfo, HandlerResult, Route, ToolOutput};

mod surface {
    toolsurface::surface!("tests/trybuild/fixtures/host");
}

use surface::{Call, Family, Role, Tier, Tool, echo, jobs};

/// `count`'s `implements:` type: the fields with a `default:` are plain values (the generated
/// conversion fills the default), the one without stays an `Option`.
#[derive(Debug, PartialEq)]
pub struct CountRequest {
    pub limit: u64,
    pub step: Step,
    pub label: String,
    pub start: Option<u64>,
}

#[derive(Debug, PartialEq)]
pub enum Step {
    One,
    Two,
}

struct Handlers;

impl surface::Handlers for Handlers {
    fn count(
        &self,
        _ctx: &CallContext,
        req: CountRequest,
    ) -> impl Future<Output = HandlerResult> + Send {
        async move { Ok(ToolOutput::text(format!("{req:?}"))) }
    }
    fn echo(
        &self,
        _ctx: &CallContext,
        call: echo::Call,
    ) -> impl Future<Output = HandlerResult> + Send {
        async move { Ok(ToolOutput::text(call.text)) }
    }
    fn jobs(
        &self,
        _ctx: &CallContext,
        call: jobs::Call,
    ) -> impl Future<Output = HandlerResult> + Send {
        async move { Ok(ToolOutput::text(call.action().as_str())) }
    }
}

/// Dispatch is Send for a Sync handler set (compile-time check only).
#[allow(dead_code)]
fn dispatch_is_send(call: Call, ctx: &CallContext) {
    fn is_send<T: Send>(_: &T) {}
    let fut = call.dispatch(&Handlers, ctx);
    is_send(&fut);
}

#[test]
fn surface_macro_on_a_host_fixture() {
    let p = |name: &str, args: &str| Call::parse(Role::Solo, Family::Chat, name, args);
    let echo = p("echo", r#"{"text":"hi","type":"self"}"#).unwrap();
    let Call::Echo(e) = &echo else { panic!() };
    assert_eq!(e.r#type, Some(echo::Type::SelfValue));
    assert_eq!(
        echo::Type::ALL.map(|t| t.as_str()),
        ["plain", "self", "x-y", "2d"]
    );
    assert!(echo.is_parallel_safe() && !echo.needs_network() && !echo.is_costly());
    assert_eq!(echo.tier(), Tier::LowCost);
    assert_eq!(
        serde_json::to_string(&echo).unwrap(),
        r#"{"name":"echo","arguments":{"text":"hi","type":"self"}}"#
    );

    let start = p("jobs", r#"{"op":"start","spec":{"cmd":"make","env":[{"key":"CC","value":"clang"}]},"matrix":[[1,2],[3]]}"#).unwrap();
    assert!(start.needs_network() && start.is_costly());
    assert_eq!(start.tier(), Tier::SelfValue);
    assert_eq!(start.display_name(), "jobs start");
    assert_eq!(CallInfo::route(&start), Route::SessionHost);
    assert!(
        !CallInfo::is_poll(&start),
        "a runtime trait left at its default answers false"
    );
    assert_eq!(start.session_target(), None);
    let Call::Jobs(jobs::Call::Start(s)) = &start else {
        panic!()
    };
    assert_eq!(s.spec.env.as_ref().unwrap()[0].key, "CC");
    assert_eq!(s.matrix.as_ref().unwrap()[1], vec![3.0]);

    let stop = p("jobs", r#"{"op":"stop","job_id":7}"#).unwrap();
    assert_eq!(stop.tier(), Tier::Double);
    assert_eq!(stop.session_target().map(|t| t.id), Some(7));

    let err = |args: &str| p("jobs", args).unwrap_err().message;
    assert_eq!(
        err(r#"{"op":"start","spec":{"cmd":"make","env":[{"key":"cc"}]}}"#),
        r#"op=start: spec: env[0]: key: expected a string matching ^[A-Z_]+$, got "cc""#
    );
    assert_eq!(
        err(r#"{"op":"start","spec":{"cmd":"make","envv":[]}}"#),
        "op=start: spec: unexpected field envv (did you mean env?)"
    );
    assert_eq!(
        err(r#"{"op":"start","spec":{}}"#),
        "op=start: spec: missing field cmd"
    );
    assert_eq!(
        err(r#"{"op":"start","spec":{"cmd":"m"},"matrix":[[1],[-1]]}"#),
        "op=start: matrix[1][0]: expected a number of at least 0, got -1"
    );
    assert_eq!(err(r#"{"op":"stop"}"#), "op=stop: missing field job_id");

    // A host's own `implements:` type: an absent field with a `default:` arrives as the
    // default, a given one as given, and a field without a default as `None`.
    let count = |args: &str| {
        let Call::Count(c) = p("count", args).unwrap() else {
            panic!("count")
        };
        CountRequest::from(c)
    };
    assert_eq!(
        count("{}"),
        CountRequest {
            limit: 10,
            step: Step::One,
            label: "n".into(),
            start: None,
        }
    );
    assert_eq!(
        count(r#"{"limit":3,"step":"two","label":"x","start":5}"#),
        CountRequest {
            limit: 3,
            step: Step::Two,
            label: "x".into(),
            start: Some(5),
        }
    );
    // The parsed call keeps what the model sent: the default is the conversion's.
    assert_eq!(
        serde_json::to_string(&p("count", "{}").unwrap()).unwrap(),
        r#"{"name":"count","arguments":{}}"#
    );

    // `echo` is declared for chat only.
    assert!(Call::parse(Role::Solo, Family::Claude, "echo", r#"{"text":"x"}"#).is_err());
    assert!(!Tool::Echo.in_family(Family::Claude));
}
