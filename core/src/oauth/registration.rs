//! Dynamic client registration (RFC 7591, with OpenID Connect's `application_type`) and the
//! client metadata it sends, which is also the shape of a Client ID Metadata Document.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::settings::Secret;

/// RFC 7591 §2: what a client says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientMetadata {
    /// Present in a Client ID Metadata Document (its own URL), absent in a registration request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    pub redirect_uris: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_types: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software_version: Option<String>,
    /// OpenID Connect Registration: `native` or `web`; MCP requires it in registrations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application_type: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClientMetadata {
    /// The registration request of a public client using the authorization code flow with
    /// refresh tokens. `application_type` follows the redirect URI: `web` for an https redirect
    /// to a public host (the browser's `chromiumapp.org` address), `native` otherwise (loopback
    /// or a custom scheme), as OpenID Connect registration expects.
    pub fn public_client(client_name: &str, redirect_uri: &str) -> ClientMetadata {
        ClientMetadata {
            client_id: None,
            redirect_uris: vec![redirect_uri.to_owned()],
            token_endpoint_auth_method: Some("none".into()),
            grant_types: Some(vec!["authorization_code".into(), "refresh_token".into()]),
            response_types: Some(vec!["code".into()]),
            client_name: Some(client_name.to_owned()),
            client_uri: None,
            logo_uri: None,
            scope: None,
            software_id: None,
            software_version: None,
            application_type: Some(application_type(redirect_uri).into()),
            extra: Map::new(),
        }
    }
}

fn application_type(redirect_uri: &str) -> &'static str {
    use crate::url_policy::{classify_host, HostClass};
    let web = crate::web_url::parse(redirect_uri).is_some_and(|url| {
        url.scheme == "https" && url.host().is_some_and(|h| classify_host(&h) == HostClass::Public)
    });
    if web {
        "web"
    } else {
        "native"
    }
}

/// RFC 7591 §3.2.1: what the server registered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientInformation {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id_issued_at: Option<u64>,
    /// 0 means the secret never expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_expires_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uris: Option<Vec<String>>,
    /// RFC 7592: a credential for managing the registration; kept as a secret, never used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_access_token: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_client_uri: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn application_type_follows_the_redirect_uri() {
        for (uri, expected) in [
            ("https://kllodkfcinihfdkamgbfclpklodomgdp.chromiumapp.org/oauth", "web"),
            ("http://127.0.0.1:3000/callback", "native"),
            ("http://localhost:3000/callback", "native"),
            ("com.example.app:/callback", "native"),
            ("not a url", "native"),
        ] {
            assert_eq!(application_type(uri), expected, "{uri}");
        }
    }
}
