//! The add/edit server form. Checks run as the person types (see `form.rs`).

use gemipanel_browser::chrome::{counted_message, message, word};
use gemipanel_core::settings::{Field, SignInMethod, DEFAULT_TIMEOUT_MS};
use gemipanel_core::url_policy::{RefusalKind, UrlRefusal};
use yew::prelude::*;

use super::field::{CheckField, Note, TextField};
use super::run_line::RunLineView;
use super::test_result::TestResult;
use crate::form::{FormEdit, LiveErrors, LocalField, ServerForm, ServerKind};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub form: ServerForm,
    pub on_edit: Callback<FormEdit>,
    pub on_test: Callback<()>,
    pub on_save: Callback<()>,
    pub on_cancel: Callback<()>,
    /// `nativeMessaging` is granted (or not known yet): no line about Chrome's prompt.
    pub local_allowed: bool,
}

#[function_component]
pub fn ServerFormView(props: &Props) -> Html {
    let form = &props.form;
    crate::hooks::use_bridge_line(form, &props.on_edit);
    let live = form.live_errors();
    let saved = |field: Field| saved_error(form, field);
    let general = match &form.save_error {
        Some((None, message)) if !message.is_empty() => Some(message.clone()),
        _ => None,
    };
    let edit = |make: fn(String) -> FormEdit| props.on_edit.reform(make);
    let tick = |make: fn(bool) -> FormEdit| props.on_edit.reform(make);
    let title = if form.editing.is_some() { "popupEditServer" } else { "popupAddServer" };
    let can_test = form.draft().is_some() && !form.test.is_running();
    html! {
        <form class="server-form" data-testid="server-form" aria-labelledby="server-form-title"
            onsubmit={props.on_save.reform(|e: SubmitEvent| e.prevent_default())}>
            <h3 id="server-form-title">{ message(title, &[]) }</h3>
            { kind_choice(form.kind, &props.on_edit) }
            <TextField id="server-name" label={message("popupServerName", &[])}
                value={form.name.clone()} oninput={edit(FormEdit::Name)} error={saved(Field::Name)} />
            if form.kind == ServerKind::Remote {
                { remote_fields(props, &live) }
            } else {
                { local_fields(props, &live) }
            }
            <TextField id="server-timeout" label={message("popupTimeout", &[])} inputmode="decimal"
                value={form.timeout.clone()} oninput={edit(FormEdit::Timeout)}
                placeholder={(DEFAULT_TIMEOUT_MS / 1000).to_string()}
                error={live.timeout.then(|| message("popupTimeoutInvalid", &[])).or_else(|| saved(Field::Timeout))} />
            <TextField id="server-include" label={message("popupIncludeTools", &[])}
                value={form.include.clone()} oninput={edit(FormEdit::Include)}
                hint={message("popupIncludeHint", &[])} error={saved(Field::ToolFilters)} />
            <TextField id="server-exclude" label={message("popupExcludeTools", &[])}
                value={form.exclude.clone()} oninput={edit(FormEdit::Exclude)}
                hint={message("popupExcludeHint", &[])} />
            <CheckField id="server-trust" label={message("popupTrust", &[])} checked={form.trust}
                onchange={tick(FormEdit::Trust)} hint={message("popupTrustHint", &[])} />
            <CheckField id="server-enabled" label={message("popupEnabledByDefault", &[])}
                checked={form.enabled_by_default} onchange={tick(FormEdit::EnabledByDefault)} />
            if form.kind == ServerKind::Remote { { sign_in_client(props) } }
            <TestResult test={form.test.clone()} />
            <Note id="server-form-note" error={general} hint={None::<String>} />
            <div class="actions">
                // For a local server, Test runs the command shown above, once, in the person's click.
                <button type="button" class="secondary" data-testid="test-connection"
                    disabled={!can_test} onclick={props.on_test.reform(|_: MouseEvent| ())}>
                    { message("popupTestConnection", &[]) }</button>
                <span class="grow"></span>
                <button type="button" class="secondary" onclick={props.on_cancel.reform(|_: MouseEvent| ())}>
                    { message("popupCancel", &[]) }</button>
                <button type="submit" class="primary" data-testid="save-server"
                    disabled={form.saving || live.any() || form.draft().is_none()}>
                    { message("popupSave", &[]) }</button>
            </div>
        </form>
    }
}

/// Remote or Local: native radio buttons (arrow keys move between them) drawn as two segments.
fn kind_choice(kind: ServerKind, on_edit: &Callback<FormEdit>) -> Html {
    let option = |value: ServerKind, key: &str, testid: &'static str| {
        let onchange = on_edit.reform(move |_: Event| FormEdit::Kind(value));
        html! {
            <label class="segment">
                <input type="radio" name="server-kind" data-testid={testid}
                    checked={kind == value} {onchange} />
                { message(key, &[]) }
            </label>
        }
    };
    html! {
        <fieldset class="segmented" data-testid="server-kind">
            <legend class="visually-hidden">{ message("popupServerKind", &[]) }</legend>
            { option(ServerKind::Remote, "popupKindRemote", "server-kind-remote") }
            { option(ServerKind::Local, "popupKindLocal", "server-kind-local") }
        </fieldset>
    }
}

/// The address and how to reach it: URL, local network, headers.
fn remote_fields(props: &Props, live: &LiveErrors) -> Html {
    let form = &props.form;
    let saved = |field: Field| saved_error(form, field);
    let edit = |make: fn(String) -> FormEdit| props.on_edit.reform(make);
    let tick = |make: fn(bool) -> FormEdit| props.on_edit.reform(make);
    let headers_hint = if form.editing.is_some() && !form.headers_touched && form.stored_headers > 0
    {
        counted_message(
            "popupHeadersKept",
            form.stored_headers,
            &[&form.stored_headers.to_string()],
        )
    } else {
        message("popupHeadersHint", &[])
    };
    html! {
        <>
            <TextField id="server-url" label={message("popupServerUrl", &[])} input_type="url"
                value={form.url.clone()} oninput={edit(FormEdit::Url)}
                placeholder="https://example.com/mcp"
                error={live.url.as_ref().map(url_refusal_text).or_else(|| saved(Field::Url))} />
            <CheckField id="server-local" label={message("popupLocalNetwork", &[])}
                checked={form.local_network} onchange={tick(FormEdit::LocalNetwork)}
                hint={message("popupLocalNetworkHint", &[])} />
            <TextField id="server-headers" label={message("popupHeaders", &[])} multiline=true
                value={form.headers.clone()} oninput={edit(FormEdit::Headers)}
                placeholder={r#"{"Authorization": "Bearer …"}"#}
                error={live.headers.as_ref().map(word).or_else(|| saved(Field::Headers))} hint={headers_hint} />
            if form.needs_header_confirmation() {
                <CheckField id="server-headers-move" label={counted_message("popupHeadersToNewOrigin", form.stored_headers, &[&form.stored_headers.to_string()])}
                    checked={form.headers_to_new_origin} onchange={tick(FormEdit::HeadersToNewOrigin)}
                    hint={message("popupHeadersToNewOriginHint", &[])} />
            }
        </>
    }
}

/// The program the bridge runs, its arguments, environment and folder, and the line that
/// saving will allow to run.
fn local_fields(props: &Props, live: &LiveErrors) -> Html {
    let form = &props.form;
    let edit = |make: fn(String) -> FormEdit| props.on_edit.reform(make);
    let local_error = |field: LocalField| live.local_at(field).map(word);
    let env_hint = match form.keeps_env_values() {
        true => message("popupEnvKept", &[]),
        false => message("popupEnvHint", &[]),
    };
    html! {
        <>
            if !props.local_allowed {
                <p class="note" data-testid="local-permission-why">{ message("popupLocalPermissionWhy", &[]) }</p>
            }
            <TextField id="server-command" label={message("popupCommand", &[])}
                value={form.command.clone()} oninput={edit(FormEdit::Command)} placeholder="npx"
                hint={message("popupCommandHint", &[])}
                error={local_error(LocalField::Command).or_else(|| saved_error(form, Field::Command))} />
            <TextField id="server-args" label={message("popupArgs", &[])} multiline=true
                value={form.args.clone()} oninput={edit(FormEdit::Args)}
                placeholder={"-y\n@modelcontextprotocol/server-filesystem\n/path/to/folder"}
                error={local_error(LocalField::Args)} />
            <TextField id="server-env" label={message("popupEnv", &[])} multiline=true
                value={form.env.clone()} oninput={edit(FormEdit::Env)} placeholder="API_KEY=…"
                hint={env_hint} error={local_error(LocalField::Env)} />
            <TextField id="server-cwd" label={message("popupCwd", &[])}
                value={form.cwd.clone()} oninput={edit(FormEdit::Cwd)}
                hint={message("popupCwdHint", &[])} error={local_error(LocalField::Cwd)} />
            if let Some(line) = form.command_preview() {
                <div class="command-preview" data-testid="command-preview">
                    <span class="command-label">{ message("popupCommandRuns", &[]) }</span>
                    <RunLineView {line} testid="command-preview-line" />
                    <p class="note">{ message("popupCommandSaveAllows", &[]) }</p>
                </div>
            }
        </>
    }
}

/// How the worker signs in to a remote server (Advanced): the method, then what it needs.
fn sign_in_client(props: &Props) -> Html {
    let form = &props.form;
    let open = !form.client_id.is_empty()
        || !form.client_metadata_url.is_empty()
        || form.sign_in_method != SignInMethod::Browser;
    html! {
        <details class="advanced" open={open} data-testid="sign-in-settings">
            <summary>{ message("popupAdvanced", &[]) }</summary>
            { method_choice(form.sign_in_method, &props.on_edit) }
            if let Some(error) = saved_error(form, Field::SignIn) {
                <p class="note error" role="alert">{ error }</p>
            }
            if form.sign_in_method == SignInMethod::Enterprise {
                { identity_provider(props) }
                <p class="note">{ message("popupEnterpriseClientHint", &[]) }</p>
            } else if form.sign_in_method == SignInMethod::Browser {
                <p class="note">{ message("popupSignInClientHint", &[]) }</p>
            }
            { own_client(props) }
            if form.sign_in_method == SignInMethod::Browser {
                <TextField id="server-client-metadata" label={message("popupClientMetadataUrl", &[])}
                    input_type="url" value={form.client_metadata_url.clone()}
                    oninput={props.on_edit.reform(FormEdit::ClientMetadataUrl)}
                    placeholder="https://…/client.json" />
            }
        </details>
    }
}

/// In a browser window, through the organization, or as a client without a window: radio
/// buttons (arrow keys move between them), each with what it means.
fn method_choice(method: SignInMethod, on_edit: &Callback<FormEdit>) -> Html {
    let option = |value: SignInMethod, key: &str, hint: &str, testid: &'static str| {
        let onchange = on_edit.reform(move |_: Event| FormEdit::SignInMethod(value));
        let id = format!("{testid}-input");
        html! {
            <div class="choice">
                <input type="radio" name="sign-in-method" id={id.clone()} data-testid={testid}
                    checked={method == value} {onchange} aria-describedby={format!("{id}-note")} />
                <label for={id.clone()}>{ message(key, &[]) }</label>
                <p class="note" id={format!("{id}-note")}>{ message(hint, &[]) }</p>
            </div>
        }
    };
    html! {
        <fieldset class="choices" data-testid="sign-in-method">
            <legend>{ message("popupSignInMethod", &[]) }</legend>
            { option(SignInMethod::Browser, "popupMethodBrowser", "popupMethodBrowserHint", "method-browser") }
            { option(SignInMethod::Enterprise, "popupMethodEnterprise", "popupMethodEnterpriseHint", "method-enterprise") }
            { option(SignInMethod::ClientCredentials, "popupMethodClientCredentials", "popupMethodClientCredentialsHint", "method-client-credentials") }
        </fieldset>
    }
}

/// The organization's identity provider and GemiPanel's client there.
fn identity_provider(props: &Props) -> Html {
    let form = &props.form;
    // What the organization registers for that client: where its sign-in comes back to.
    let redirect = gemipanel_browser::chrome::redirect_url("oauth").ok();
    let edit = |make: fn(String) -> FormEdit| props.on_edit.reform(make);
    html! {
        <>
            <TextField id="server-idp-issuer" label={message("popupIdpIssuer", &[])} input_type="url"
                value={form.idp_issuer.clone()} oninput={edit(FormEdit::IdpIssuer)}
                placeholder="https://login.example.com" hint={message("popupIdpIssuerHint", &[])} />
            <TextField id="server-idp-client-id" label={message("popupIdpClientId", &[])}
                value={form.idp_client_id.clone()} oninput={edit(FormEdit::IdpClientId)}
                hint={redirect.map(|uri| message("popupIdpRedirectHint", &[&uri]))} />
            <TextField id="server-idp-client-secret" label={message("popupIdpClientSecret", &[])}
                input_type="password" value={form.idp_client_secret.clone()}
                oninput={edit(FormEdit::IdpClientSecret)}
                hint={form.has_stored_idp_secret.then(|| message("popupClientSecretKept", &[]))} />
        </>
    }
}

/// A client of the person's own at the server's authorization server: its id, its secret or
/// private key, and that authorization server, the only one they go to.
fn own_client(props: &Props) -> Html {
    let form = &props.form;
    let live = form.live_errors();
    let edit = |make: fn(String) -> FormEdit| props.on_edit.reform(make);
    let key_hint = match form.has_stored_key {
        true => message("popupPrivateKeyKept", &[]),
        false => message("popupPrivateKeyHint", &[]),
    };
    let issuer_error = live.issuer_missing.then(|| message("popupIssuerNeeded", &[]));
    html! {
        <>
            <TextField id="server-client-id" label={message("popupClientId", &[])}
                value={form.client_id.clone()} oninput={edit(FormEdit::ClientId)} />
            <TextField id="server-client-secret" label={message("popupClientSecret", &[])}
                input_type="password" value={form.client_secret.clone()}
                oninput={edit(FormEdit::ClientSecret)}
                hint={form.has_stored_secret.then(|| message("popupClientSecretKept", &[]))} />
            if form.sign_in_method == SignInMethod::ClientCredentials {
                <TextField id="server-private-key" label={message("popupPrivateKey", &[])}
                    multiline=true value={form.private_key.clone()} oninput={edit(FormEdit::PrivateKey)}
                    placeholder="-----BEGIN PRIVATE KEY-----" hint={key_hint}
                    error={live.private_key.as_ref().map(word)} />
            }
            if !form.client_id.trim().is_empty() {
                <TextField id="server-issuer" label={message("popupIssuer", &[])} input_type="url"
                    value={form.issuer.clone()} oninput={edit(FormEdit::Issuer)}
                    placeholder="https://auth.example.com" hint={message("popupIssuerHint", &[])}
                    error={issuer_error} />
            }
        </>
    }
}

/// A refusal from Save, shown next to the field it is about.
fn saved_error(form: &ServerForm, field: Field) -> Option<String> {
    match &form.save_error {
        Some((Some(f), message)) if *f == field => Some(message.clone()),
        _ => None,
    }
}

/// The refusal in the person's language; core's English sentence for anything unforeseen.
pub fn url_refusal_text(refusal: &UrlRefusal) -> String {
    let key = match refusal.kind() {
        RefusalKind::Unparsable => "popupUrlUnparsable",
        RefusalKind::Scheme => "popupUrlScheme",
        RefusalKind::UserInfo => "popupUrlUserInfo",
        RefusalKind::Fragment => "popupUrlFragment",
        RefusalKind::NoHost => "popupUrlNoHost",
        RefusalKind::Insecure => "popupUrlInsecure",
        RefusalKind::NeedsLocalNetwork => "popupUrlNeedsLocalNetwork",
        RefusalKind::Metadata => "popupUrlMetadata",
        RefusalKind::Unroutable => "popupUrlUnroutable",
        RefusalKind::NotPublic => return word(&refusal.text()),
    };
    message(key, &[])
}
