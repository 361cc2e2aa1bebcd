//! The HTTP requests sign-in makes and the rules every answer passes: no redirect is followed,
//! no body is larger than [`MAX_DOCUMENT_BYTES`], JSON is read through the document's serde type.

use base64::Engine;
use serde::de::DeserializeOwned;

use super::error::{Error, Step};
use crate::mcp::{redact_url, HttpRequest, HttpResponse, Method};

/// A complete answer: the driver reads the body (at most [`MAX_DOCUMENT_BYTES`] + 1 bytes is
/// enough for the cap to be seen) before handing it over.
pub type Response = HttpResponse<Vec<u8>>;

/// The largest metadata, registration or token document accepted. Real ones are a few KB.
pub const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

/// A request whose signatures the driver adds before it leaves: they need the host's keys,
/// which this crate never holds.
#[derive(Debug, Clone)]
pub struct SignedRequest {
    pub request: HttpRequest,
    /// Add a DPoP proof of the request's method and URL (RFC 9449 §5), with the server's last
    /// nonce; an answer asking for a new nonce gets the request once more.
    pub proof: bool,
    /// Authenticate the client with a JWT signed by its private key (RFC 7523 §2.2), added to
    /// the form as `client_assertion`.
    pub assertion: Option<ClientAssertion>,
}

impl SignedRequest {
    pub fn plain(request: HttpRequest) -> SignedRequest {
        SignedRequest { request, proof: false, assertion: None }
    }
}

/// What a client assertion says: the client is both its issuer and its subject, for the
/// authorization server (`audience`, its issuer identifier).
#[derive(Debug, Clone)]
pub struct ClientAssertion {
    pub client_id: String,
    pub audience: String,
    /// PEM, PKCS #8, P-256.
    pub private_key: crate::settings::Secret,
}

/// RFC 7523 §2.2.
pub const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

pub(crate) fn get_json(url: &str) -> HttpRequest {
    HttpRequest {
        method: Method::Get,
        url: url.to_owned(),
        headers: vec![("Accept".into(), "application/json".into())],
        body: None,
    }
}

pub(crate) fn post_json(url: &str, body: String) -> HttpRequest {
    HttpRequest {
        method: Method::Post,
        url: url.to_owned(),
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("Accept".into(), "application/json".into()),
        ],
        body: Some(body),
    }
}

/// An `application/x-www-form-urlencoded` POST, with HTTP Basic client authentication when
/// `basic` holds an id and a secret.
pub(crate) fn post_form(
    url: &str,
    pairs: &[(&str, &str)],
    basic: Option<(&str, &str)>,
) -> HttpRequest {
    let mut headers = vec![
        ("Content-Type".into(), "application/x-www-form-urlencoded".into()),
        ("Accept".into(), "application/json".into()),
    ];
    if let Some((id, secret)) = basic {
        headers.push(("Authorization".into(), basic_authorization(id, secret)));
    }
    HttpRequest { method: Method::Post, url: url.to_owned(), headers, body: Some(form(pairs)) }
}

pub(crate) fn form(pairs: &[(&str, &str)]) -> String {
    let mut serializer = form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs {
        serializer.append_pair(name, value);
    }
    serializer.finish()
}

/// RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded.
fn basic_authorization(id: &str, secret: &str) -> String {
    let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let pair = format!("{}:{}", encode(id), encode(secret));
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair))
}

/// Refuses redirects and oversized bodies, whatever the step.
pub(crate) fn check(step: Step, url: &str, response: &Response) -> Result<(), Error> {
    if (300..400).contains(&response.status) {
        return Err(Error::Redirected { step, url: redact_url(url), status: response.status });
    }
    if response.body.len() > MAX_DOCUMENT_BYTES {
        return Err(Error::TooLarge { step, url: redact_url(url), limit: MAX_DOCUMENT_BYTES });
    }
    Ok(())
}

pub(crate) fn is_success(response: &Response) -> bool {
    (200..300).contains(&response.status)
}

/// The body as `T`. Serde's message says which field is wrong; it is cut short, since it may
/// quote a (non-secret) value of any length.
pub(crate) fn decode<T: DeserializeOwned>(step: Step, url: &str, body: &[u8]) -> Result<T, Error> {
    serde_json::from_slice(body).map_err(|e| {
        let detail: String = e.to_string().chars().take(200).collect();
        Error::Malformed { step, url: redact_url(url), detail }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_are_form_encoded_first() {
        assert_eq!(basic_authorization("client", "secret"), "Basic Y2xpZW50OnNlY3JldA==");
        // "a:b" / "p w&" → "a%3Ab:p+w%26"
        assert_eq!(basic_authorization("a:b", "p w&"), "Basic YSUzQWI6cCt3JTI2");
    }

    #[test]
    fn forms_are_url_encoded() {
        assert_eq!(
            form(&[("resource", "https://x.example/mcp"), ("scope", "a b")]),
            "resource=https%3A%2F%2Fx.example%2Fmcp&scope=a+b"
        );
    }
}
