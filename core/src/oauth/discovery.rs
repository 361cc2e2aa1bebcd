//! Where discovery looks, in the order the specifications give, and the checks on what it finds.
//!
//! * Protected-resource metadata (RFC 9728 §3.1, MCP): the URL from `WWW-Authenticate` when
//!   there is one, else `/.well-known/oauth-protected-resource` inserted before the server's
//!   path, then at the root.
//! * Authorization-server metadata (RFC 8414 §3.1 and §5, OpenID Connect Discovery §4, in the
//!   MCP order): for an issuer with a path, OAuth path-inserted, OpenID path-inserted, OpenID
//!   path-appended; without a path, OAuth then OpenID at the root.
//! * MCP 2025-03-26, for servers without protected-resource metadata: the server's origin is the
//!   authorization server, its metadata at the root, else `/authorize`, `/token`, `/register`.

use crate::web_url::WebUrl;

pub const RESOURCE_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
pub const OAUTH_WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";
pub const OPENID_WELL_KNOWN: &str = "/.well-known/openid-configuration";

/// `scheme://host[:port]`, as RFC 6454 serialises an origin.
pub fn origin(url: &WebUrl) -> String {
    match url.port {
        Some(port) => format!("{}://{}:{port}", url.scheme, url.hostname),
        None => format!("{}://{}", url.scheme, url.hostname),
    }
}

/// The path without its terminating slash: `""` for the root.
fn trimmed_path(url: &WebUrl) -> &str {
    url.pathname.trim_end_matches('/')
}

/// Where to look for the server's protected-resource metadata, without the header's URL.
pub fn resource_metadata_urls(server: &WebUrl) -> Vec<String> {
    let origin = origin(server);
    let path = trimmed_path(server);
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(format!("{origin}{RESOURCE_WELL_KNOWN}{path}"));
    }
    urls.push(format!("{origin}{RESOURCE_WELL_KNOWN}"));
    urls
}

/// Where to look for an issuer's metadata.
pub fn server_metadata_urls(issuer: &WebUrl) -> Vec<String> {
    let origin = origin(issuer);
    let path = trimmed_path(issuer);
    if path.is_empty() {
        vec![format!("{origin}{OAUTH_WELL_KNOWN}"), format!("{origin}{OPENID_WELL_KNOWN}")]
    } else {
        vec![
            format!("{origin}{OAUTH_WELL_KNOWN}{path}"),
            format!("{origin}{OPENID_WELL_KNOWN}{path}"),
            format!("{origin}{path}{OPENID_WELL_KNOWN}"),
        ]
    }
}

/// MCP 2025-03-26: the metadata of the server's origin, whatever the server's path.
pub fn legacy_metadata_url(server: &WebUrl) -> String {
    format!("{}{OAUTH_WELL_KNOWN}", origin(server))
}

/// The MCP 2025-03-26 endpoints of a server without any metadata.
pub struct DefaultEndpoints {
    pub authorization: String,
    pub token: String,
    pub registration: String,
}

pub fn default_endpoints(server: &WebUrl) -> DefaultEndpoints {
    let origin = origin(server);
    DefaultEndpoints {
        authorization: format!("{origin}/authorize"),
        token: format!("{origin}/token"),
        registration: format!("{origin}/register"),
    }
}

/// RFC 9728 as the issue reads it: the metadata's `resource` is the server's origin and a
/// prefix of its path, whole segments only (`/mc` does not cover `/mcp`). A resource with a
/// fragment is no resource identifier at all (RFC 8707 §2).
pub fn resource_matches(server: &WebUrl, resource: &str) -> bool {
    let Some(resource) = crate::web_url::parse(resource) else { return false };
    if resource.fragment.is_some() || origin(&resource) != origin(server) {
        return false;
    }
    let prefix = trimmed_path(&resource);
    let path = trimmed_path(server);
    prefix.is_empty()
        || path == prefix
        || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
}

/// The server's URL as an RFC 8707 resource when it publishes no metadata naming one: no query
/// (it may hold credentials), no fragment, no trailing slash on a bare origin.
pub fn canonical_resource(server: &WebUrl) -> String {
    let path = if server.pathname == "/" { "" } else { server.pathname.as_str() };
    format!("{}{path}", origin(server))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web_url::parse;

    fn url(s: &str) -> WebUrl {
        parse(s).unwrap()
    }

    #[test]
    fn resource_metadata_locations() {
        assert_eq!(
            resource_metadata_urls(&url("https://example.com/public/mcp?key=SECRET")),
            vec![
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls(&url("http://localhost:3000/")),
            vec!["http://localhost:3000/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn server_metadata_locations_in_the_specified_order() {
        assert_eq!(
            server_metadata_urls(&url("https://auth.example.com/tenant1/")),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            server_metadata_urls(&url("https://auth.example.com")),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn resources_match_by_origin_and_whole_path_segments() {
        let server = url("https://mcp.example.com/api/mcp");
        for (resource, matches) in [
            ("https://mcp.example.com/api/mcp", true),
            ("https://mcp.example.com/api/mcp/", true),
            ("https://mcp.example.com/api", true),
            ("https://mcp.example.com", true),
            ("https://MCP.example.com:443/", true),
            ("https://mcp.example.com/ap", false),
            ("https://mcp.example.com/api/mcp/more", false),
            ("http://mcp.example.com/api/mcp", false),
            ("https://mcp.example.com:8443/api/mcp", false),
            ("https://evil.example.com/api/mcp", false),
            ("https://mcp.example.com/api/mcp#x", false),
            ("not a url", false),
        ] {
            assert_eq!(resource_matches(&server, resource), matches, "{resource}");
        }
    }

    #[test]
    fn canonical_resources_drop_query_and_root_slash() {
        assert_eq!(canonical_resource(&url("https://a.example/")), "https://a.example");
        assert_eq!(
            canonical_resource(&url("https://A.example:8443/mcp?k=1")),
            "https://a.example:8443/mcp"
        );
    }
}
