//! The conformance driver: a command-line MCP client that the official
//! `@modelcontextprotocol/conformance` suite runs against its scenario servers.
//!
//! The suite starts `conformance <server-url>` (the URL is the last argument) with the scenario
//! in `MCP_CONFORMANCE_SCENARIO` and, for some scenarios, extra data as JSON in
//! `MCP_CONFORMANCE_CONTEXT`. It judges the traffic it sees and the exit code. Everything here is
//! `gemipanel_core::mcp::Client` over the native reqwest transport, so the suite tests the same
//! protocol code the extension runs.
//!
//! Authorization scenarios (`auth/…`) sign in through `core::oauth` with the headless driver of
//! `gemipanel_tests::oauth`, then connect, list the tools and call the first one, recovering from
//! every 401 and 403 the way the worker does. Scenarios whose server is hostile expect a refusal
//! of one kind ([`expected_refusal`]): refusing for that reason is this client's success.
//!
//! The driver sets the server up as a person would in the popup's form ([`setup`]): the client
//! id, secret or private key the scenario hands over, bound to the authorization server they
//! belong to (the one the scenario names, else the one the server names now, as the form's Test
//! connection finds it), and the sign-in method the scenario is about (client credentials,
//! enterprise sign-in with the identity provider's ID token already at hand). DPoP is used
//! wherever the authorization server offers it, as in the browser.
//!
//! On success the last line on stdout is `conformance driver: <scenario> ok`; `cargo xtask
//! conformance` reads it from the suite's saved `stdout.txt` to count the exit as a check.

use gemipanel_core::mcp::{
    Authorization, CallHandler, CallToolResult, Client, ContentBlock, ElicitRequest, ElicitResult,
    Error, ServerConfig, Tool,
};
use gemipanel_core::oauth::enterprise::IdpSession;
use gemipanel_core::oauth::jose;
use gemipanel_core::oauth::{self, ClientOptions, PreRegistered};
use gemipanel_core::settings::{IdentityProvider, Secret, SignInMethod};
use gemipanel_tests::oauth::{authorized, Authorizer, Failure, Interaction, OAuthHost};
use gemipanel_tests::NativeHost;
use serde_json::{json, Map, Value};
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance <server-url>  (scenario in MCP_CONFORMANCE_SCENARIO)");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("conformance driver: cannot start tokio: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&scenario, &url)) {
        Ok(()) => {
            println!("conformance driver: {scenario} ok");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("conformance driver: {scenario} failed: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(scenario: &str, url: &str) -> Result<(), String> {
    let mut config = ServerConfig::new(url);
    // The suite kills a client after 30 s; fail on our own terms well before that.
    config.request_timeout = Duration::from_secs(20);
    config.notification_timeout = Duration::from_secs(5);
    let authorization = config.authorization.clone();
    let client = Client::new(NativeHost::default(), config);
    if scenario.starts_with("auth/") {
        let result = signed_in(scenario, url, &client, authorization).await;
        let closed = client.close().await.map_err(|e| describe(&e));
        return result.and(closed);
    }
    let result = match scenario {
        "initialize" => connect_and_list(&client).await.map(drop),
        "tools_call" => tools_call(&client).await,
        "elicitation-sep1034-client-defaults" => elicitation_defaults(&client).await,
        "sse-retry" => call_only_tool(&client, "test_reconnection").await,
        // Scenarios 2026-07-28 requires beyond suite `core`.
        "sep-2322-client-request-state" => multi_round_trip(&client).await,
        "json-schema-2020-12-preservation" => schema_echo(&client).await,
        "http-invalid-tool-headers" => call_every_tool(&client).await,
        "http-custom-headers" => calls_from_context(&client).await,
        "http-standard-headers" => standard_headers(&client).await,
        // Anything else (new scenarios, auth ones we do not implement): the basic client the
        // suite's reference implementation also falls back to.
        _ => connect_and_list(&client).await.map(drop),
    };
    let closed = client.close().await.map_err(|e| describe(&e));
    result.and(closed)
}

/// The client id the conformance suite's authorization servers accept as a Client ID Metadata
/// Document URL (they do not fetch it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The refusal a hostile scenario must end in; `None` for scenarios that must sign in.
fn expected_refusal(scenario: &str) -> Option<fn(&oauth::Error) -> bool> {
    use oauth::Error::*;
    Some(match scenario {
        "auth/resource-mismatch" => |e| matches!(e, ResourceMismatch { .. }),
        "auth/iss-supported-missing" => |e| matches!(e, IssMissing { .. }),
        "auth/iss-wrong-issuer" | "auth/iss-unexpected" | "auth/iss-normalized" => {
            |e| matches!(e, IssMismatch { .. })
        }
        "auth/metadata-issuer-mismatch" => |e| matches!(e, IssuerMismatch { .. }),
        "auth/scope-retry-limit" => |e| matches!(e, InsufficientScope { .. }),
        _ => return None,
    })
}

/// An `auth/…` scenario: connect, list and call the first tool, signing in as the server asks.
async fn signed_in(
    scenario: &str,
    url: &str,
    client: &Client<NativeHost>,
    authorization: Authorization,
) -> Result<(), String> {
    let host = OAuthHost::default();
    let options = setup(scenario, url, &host).await?;
    let auth = host.authorizer(url, options, authorization);
    let outcome = use_tools(client, &auth, &host).await;
    eprintln!("authorization pages opened: {}", host.kept().pages.get());
    match (expected_refusal(scenario), outcome) {
        (None, Ok(())) => Ok(()),
        (None, Err(failure)) => Err(failure.to_string()),
        (Some(expected), Err(Failure::OAuth(error))) if expected(&error) => {
            eprintln!("refused as this scenario requires: {error}");
            Ok(())
        }
        (Some(_), Ok(())) => Err("signed in and used the server, where refusing was right".into()),
        (Some(_), Err(failure)) => Err(format!("refused, but for another reason: {failure}")),
    }
}

/// The server's sign-in as the person would set it up for this scenario, from what the scenario
/// hands over in `MCP_CONFORMANCE_CONTEXT`.
async fn setup(scenario: &str, url: &str, host: &OAuthHost) -> Result<ClientOptions, String> {
    let context: Option<Value> = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|raw| serde_json::from_str(&raw).ok());
    let text = |name: &str| {
        context.as_ref().and_then(|c| c.get(name)).and_then(Value::as_str).map(str::to_owned)
    };
    let method = if scenario.starts_with("auth/client-credentials") {
        SignInMethod::ClientCredentials
    } else if text("idp_issuer").is_some() {
        SignInMethod::Enterprise
    } else {
        SignInMethod::Browser
    };
    let issuer = match (text("client_id"), text("issuer")) {
        (Some(_), Some(issuer)) => Some(issuer),
        (Some(_), None) => {
            let found = oauth::drive::find_issuer(host, url, None).await;
            Some(found.map_err(|e| format!("finding the server's authorization server: {e}"))?)
        }
        (None, _) => None,
    };
    let identity_provider = match (text("idp_issuer"), text("idp_client_id")) {
        (Some(issuer), Some(client_id)) => {
            Some(IdentityProvider { issuer, client_id, client_secret: None })
        }
        _ => None,
    };
    // The person signed in to their identity provider before: its ID token is at hand.
    if let (Some(provider), Some(id_token)) = (&identity_provider, text("idp_id_token")) {
        let expires = jose::unverified_claims(&id_token)
            .and_then(|claims| claims.get("exp").and_then(Value::as_u64))
            .ok_or("the scenario's ID token has no expiry")?;
        host.kept().idp_sessions.borrow_mut().push(IdpSession {
            issuer: provider.issuer.clone(),
            client_id: provider.client_id.clone(),
            id_token: Secret::new(id_token),
            expires_at_ms: expires.saturating_mul(1000),
        });
    }
    Ok(ClientOptions {
        pre_registered: text("client_id").map(|client_id| PreRegistered {
            client_id,
            client_secret: text("client_secret").map(Secret::new),
            private_key: text("private_key_pem").map(Secret::new),
            issuer,
        }),
        metadata_document_url: Some(CLIENT_METADATA_URL.into()),
        method,
        identity_provider,
    })
}

async fn use_tools(
    client: &Client<NativeHost>,
    auth: &Authorizer,
    host: &OAuthHost,
) -> Result<(), Failure> {
    let session = authorized(auth, host, Interaction::Allowed, || client.connect()).await?;
    eprintln!("connected: protocol {}", session.protocol_version);
    let tools = authorized(auth, host, Interaction::Allowed, || client.list_tools()).await?;
    eprintln!("tools: {:?}", tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>());
    if let Some(tool) = tools.first() {
        let call = || client.call_tool(&tool.name, json!({}), &(), None);
        let result = authorized(auth, host, Interaction::Allowed, call).await?;
        eprintln!("{}: {}", tool.name, text_of(&result));
    }
    Ok(())
}

async fn connect_and_list(client: &Client<NativeHost>) -> Result<Vec<Tool>, String> {
    let session = client.connect().await.map_err(|e| describe(&e))?;
    eprintln!("connected: protocol {}", session.protocol_version);
    let tools = client.list_tools().await.map_err(|e| describe(&e))?;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    eprintln!("tools: {names:?}");
    Ok(tools)
}

/// `add_numbers` with two numbers; the scenario checks the arguments and the answer.
async fn tools_call(client: &Client<NativeHost>) -> Result<(), String> {
    let tools = connect_and_list(client).await?;
    require_tool(&tools, "add_numbers")?;
    let result = call(client, "add_numbers", json!({"a": 5, "b": 3}), &()).await?;
    let text = text_of(&result);
    if !text.contains('8') {
        return Err(format!("add_numbers answered {text:?}, expected the sum 8"));
    }
    Ok(())
}

/// Accepts the form with nothing filled in: core must add the schema's defaults (SEP-1034).
async fn elicitation_defaults(client: &Client<NativeHost>) -> Result<(), String> {
    struct AcceptEmpty;
    impl CallHandler for AcceptEmpty {
        async fn elicit(&self, request: ElicitRequest) -> ElicitResult {
            eprintln!("elicitation: {request:?}");
            ElicitResult::accept(Map::new())
        }
    }
    let tools = connect_and_list(client).await?;
    require_tool(&tools, "test_client_elicitation_defaults")?;
    let result = call(client, "test_client_elicitation_defaults", json!({}), &AcceptEmpty).await?;
    eprintln!("result: {}", text_of(&result));
    Ok(())
}

/// SEP-2322: `input_required` rounds. The state must come back verbatim under a new id, stay
/// out of other calls (one runs at the same time), and a result without `resultType` is final.
async fn multi_round_trip(client: &Client<NativeHost>) -> Result<(), String> {
    struct Confirm;
    impl CallHandler for Confirm {
        async fn elicit(&self, _request: ElicitRequest) -> ElicitResult {
            let mut content = Map::new();
            content.insert("confirmed".into(), json!(true));
            ElicitResult::accept(content)
        }
    }
    let tools = connect_and_list(client).await?;
    for name in ["test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state"] {
        require_tool(&tools, name)?;
    }
    let (echo, unrelated) = tokio::join!(
        call(client, "test_mrtr_echo_state", json!({}), &Confirm),
        call(client, "test_mrtr_unrelated", json!({}), &Confirm),
    );
    for result in
        [echo?, unrelated?, call(client, "test_mrtr_no_state", json!({}), &Confirm).await?]
    {
        eprintln!("result: {}", text_of(&result));
    }
    let last = call(client, "test_mrtr_no_result_type", json!({}), &Confirm).await?;
    eprintln!("result: {}", text_of(&last));
    Ok(())
}

/// SEP-1613/2106: hands the schema of one tool back to the server exactly as core parsed it.
async fn schema_echo(client: &Client<NativeHost>) -> Result<(), String> {
    let tools = connect_and_list(client).await?;
    let focal = tools
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .ok_or("the server does not list json_schema_2020_12_tool")?;
    let arguments = json!({"schema": focal.input_schema});
    call(client, "json_schema_echo", arguments, &()).await.map(drop)
}

/// Calls every tool core kept: tools with invalid `x-mcp-header` annotations must be gone.
async fn call_every_tool(client: &Client<NativeHost>) -> Result<(), String> {
    for tool in connect_and_list(client).await? {
        call(client, &tool.name, json!({}), &()).await?;
    }
    Ok(())
}

/// The calls the scenario lists in `MCP_CONFORMANCE_CONTEXT` (`toolCalls: [{name, arguments}]`).
async fn calls_from_context(client: &Client<NativeHost>) -> Result<(), String> {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|raw| serde_json::from_str(&raw).ok())
        .ok_or("MCP_CONFORMANCE_CONTEXT is missing or not JSON")?;
    let calls = context["toolCalls"].as_array().ok_or("the context lists no toolCalls")?;
    let tools = connect_and_list(client).await?;
    for planned in calls {
        let name = planned["name"].as_str().ok_or("a toolCall without a name")?;
        require_tool(&tools, name)?;
        call(client, name, planned["arguments"].clone(), &()).await?;
    }
    Ok(())
}

/// Every request kind core sends, so the scenario sees `Mcp-Method` and `Mcp-Name` on each.
async fn standard_headers(client: &Client<NativeHost>) -> Result<(), String> {
    call_every_tool(client).await?;
    for resource in client.list_resources().await.map_err(|e| describe(&e))? {
        client.read_resource(&resource.uri, &()).await.map_err(|e| describe(&e))?;
    }
    Ok(())
}

async fn call_only_tool(client: &Client<NativeHost>, name: &str) -> Result<(), String> {
    let tools = connect_and_list(client).await?;
    require_tool(&tools, name)?;
    let result = call(client, name, json!({}), &()).await?;
    eprintln!("result: {}", text_of(&result));
    Ok(())
}

async fn call<H: CallHandler>(
    client: &Client<NativeHost>,
    name: &str,
    arguments: Value,
    handler: &H,
) -> Result<CallToolResult, String> {
    let result =
        client.call_tool(name, arguments, handler, None).await.map_err(|e| describe(&e))?;
    if result.is_error() {
        return Err(format!("{name} returned an error result: {}", text_of(&result)));
    }
    Ok(result)
}

fn require_tool(tools: &[Tool], name: &str) -> Result<(), String> {
    if tools.iter().any(|t| t.name == name) {
        Ok(())
    } else {
        Err(format!("the server does not list the tool {name}"))
    }
}

fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(ContentBlock::text).collect::<Vec<_>>().join("\n")
}

fn describe(error: &Error) -> String {
    error.to_string()
}
