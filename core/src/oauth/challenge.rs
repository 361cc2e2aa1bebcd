//! The `WWW-Authenticate` header (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1).
//!
//! One header can hold several challenges, and commas separate both challenges and their
//! parameters: `Basic realm="a", Bearer error="invalid_token", scope="a b"`. A name followed by
//! `=` continues the current challenge; a name followed by anything else starts the next one.
//! Parameter values are tokens or quoted strings with `\` escapes; a challenge may instead carry
//! one token68 (`Negotiate abc==`). What does not fit the grammar is skipped up to the next
//! comma, so one malformed part costs only itself.

/// One challenge: a scheme and its parameters (names lower-cased, as they compare
/// case-insensitively) or a token68.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub scheme: String,
    pub token68: Option<String>,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The first value of a parameter, by its case-insensitive name.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// What a `Bearer` challenge tells a client about signing in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BearerChallenge {
    /// RFC 9728: where the protected-resource metadata is.
    pub resource_metadata: Option<String>,
    /// The scopes the request needs, space-separated in the header.
    pub scopes: Vec<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// The first `Bearer` challenge of a header, else its first `DPoP` one (RFC 9449 §7.1: a
    /// resource server taking only bound tokens challenges with `DPoP`, with the same
    /// parameters), if there is one.
    pub fn from_header(header: &str) -> Option<BearerChallenge> {
        let challenges = parse(header);
        let scheme = |name: &'static str| move |c: &&Challenge| c.scheme.eq_ignore_ascii_case(name);
        let challenge = challenges
            .iter()
            .find(scheme("bearer"))
            .or_else(|| challenges.iter().find(scheme("dpop")))?;
        let text = |name| challenge.param(name).map(str::to_owned);
        Some(BearerChallenge {
            resource_metadata: text("resource_metadata").filter(|v| !v.is_empty()),
            scopes: super::scopes::split(challenge.param("scope").unwrap_or_default()),
            error: text("error").filter(|v| !v.is_empty()),
            error_description: text("error_description"),
        })
    }

    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Every challenge in the header, in order.
pub fn parse(header: &str) -> Vec<Challenge> {
    let mut cursor = Cursor { bytes: header.as_bytes(), at: 0 };
    let mut challenges = Vec::new();
    loop {
        cursor.skip_while(|b| b == b',' || is_space(b));
        if cursor.done() {
            return challenges;
        }
        let Some(scheme) = cursor.token() else {
            cursor.skip_past_comma();
            continue;
        };
        let mut challenge = Challenge { scheme, token68: None, params: Vec::new() };
        let spaced = cursor.skip_while(is_space) > 0;
        if spaced {
            if let Some(token68) = cursor.token68() {
                challenge.token68 = Some(token68);
            } else {
                read_params(&mut cursor, &mut challenge.params);
            }
        }
        challenges.push(challenge);
    }
}

/// Parameters up to the end of the header or the start of the next challenge.
fn read_params(cursor: &mut Cursor<'_>, params: &mut Vec<(String, String)>) {
    loop {
        cursor.skip_while(|b| b == b',' || is_space(b));
        if cursor.done() || !cursor.at_param() {
            return;
        }
        match cursor.param() {
            Some(param) => params.push(param),
            None => cursor.skip_past_comma(),
        }
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn peek_at(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    /// Advances over bytes matching `keep`; how many.
    fn skip_while(&mut self, keep: impl Fn(u8) -> bool) -> usize {
        let start = self.at;
        while self.peek().is_some_and(&keep) {
            self.at += 1;
        }
        self.at - start
    }

    fn skip_past_comma(&mut self) {
        self.skip_while(|b| b != b',');
        self.at += usize::from(!self.done());
    }

    fn slice(&self, from: usize, to: usize) -> String {
        String::from_utf8_lossy(self.bytes.get(from..to).unwrap_or_default()).into_owned()
    }

    fn token(&mut self) -> Option<String> {
        let start = self.at;
        (self.skip_while(is_tchar) > 0).then(|| self.slice(start, self.at))
    }

    /// A token68 that fills the rest of the challenge (up to a comma or the end); leaves the
    /// cursor alone when what follows is a parameter instead.
    fn token68(&mut self) -> Option<String> {
        let mut end = self.at;
        while self.peek_at(end).is_some_and(is_token68_char) {
            end += 1;
        }
        if end == self.at {
            return None;
        }
        while self.peek_at(end) == Some(b'=') {
            end += 1;
        }
        let mut after = end;
        while self.peek_at(after).is_some_and(is_space) {
            after += 1;
        }
        if !matches!(self.peek_at(after), None | Some(b',')) {
            return None;
        }
        let value = self.slice(self.at, end);
        self.at = after;
        Some(value)
    }

    /// Whether the cursor is at `name =` (a parameter) rather than a new scheme.
    fn at_param(&self) -> bool {
        let mut at = self.at;
        while self.peek_at(at).is_some_and(is_tchar) {
            at += 1;
        }
        if at == self.at {
            return false;
        }
        while self.peek_at(at).is_some_and(is_space) {
            at += 1;
        }
        self.peek_at(at) == Some(b'=')
    }

    fn param(&mut self) -> Option<(String, String)> {
        let name = self.token()?.to_ascii_lowercase();
        self.skip_while(is_space);
        if self.peek() != Some(b'=') {
            return None;
        }
        self.at += 1;
        self.skip_while(is_space);
        let value = if self.peek() == Some(b'"') { self.quoted()? } else { self.token()? };
        self.skip_while(is_space);
        match self.peek() {
            None | Some(b',') => Some((name, value)),
            Some(_) => None,
        }
    }

    /// A quoted string, unescaped; `None` when it never closes.
    fn quoted(&mut self) -> Option<String> {
        self.at += 1;
        let mut value = Vec::new();
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(String::from_utf8_lossy(&value).into_owned());
                }
                b'\\' => {
                    self.at += 1;
                    value.push(self.peek()?);
                    self.at += 1;
                }
                other => {
                    value.push(other);
                    self.at += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    #[test]
    fn several_challenges_with_quoted_and_token_values() {
        let header = r#"Basic realm="a, b", Bearer error=invalid_token, scope="x y",
            resource_metadata="https://r.example/.well-known/oauth-protected-resource", Negotiate abc=="#;
        let parsed = parse(header);
        assert_eq!(parsed.len(), 3, "{parsed:#?}");
        assert_eq!(parsed[0].scheme, "Basic");
        assert_eq!(parsed[0].params, params(&[("realm", "a, b")]));
        assert_eq!(parsed[1].scheme, "Bearer");
        assert_eq!(parsed[1].param("SCOPE"), Some("x y"));
        assert_eq!(parsed[1].param("error"), Some("invalid_token"));
        assert_eq!(parsed[2].token68.as_deref(), Some("abc=="));
    }

    #[test]
    fn escapes_and_odd_spacing() {
        let parsed = parse(r#"bearer  realm = "a \"quoted\" \\ word" ,  scope="s""#);
        assert_eq!(parsed[0].params, params(&[("realm", r#"a "quoted" \ word"#), ("scope", "s")]));
        let bearer = BearerChallenge::from_header(r#"Bearer scope="  a   b ""#).unwrap();
        assert_eq!(bearer.scopes, vec!["a", "b"]);
    }

    #[test]
    fn malformed_parts_are_skipped() {
        assert!(parse("").is_empty());
        assert_eq!(parse("Bearer").len(), 1);
        let parsed = parse(r#"Bearer realm="never closed"#);
        assert_eq!(parsed[0].params, vec![]);
        // `a=b c` is not a parameter and `=x` not a scheme: both go, the rest stays.
        let parsed = parse(r#"Bearer a=b c, scope="s", =x, Basic"#);
        assert_eq!(parsed.len(), 2, "{parsed:#?}");
        assert_eq!(parsed[0].params, params(&[("scope", "s")]));
        assert_eq!(parsed[1].scheme, "Basic");
    }

    #[test]
    fn the_bearer_challenge_is_found_among_others() {
        let header = r#"DPoP algs="ES256", Bearer error="insufficient_scope", scope="files:read files:write""#;
        let bearer = BearerChallenge::from_header(header).unwrap();
        assert!(bearer.is_insufficient_scope());
        assert_eq!(bearer.scopes, vec!["files:read", "files:write"]);
        assert_eq!(BearerChallenge::from_header("Basic realm=x"), None);
    }

    #[test]
    fn a_server_taking_only_bound_tokens_challenges_with_dpop() {
        // The conformance suite's DPoP server, asking for sign-in.
        let header = r#"DPoP resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp""#;
        let challenge = BearerChallenge::from_header(header).unwrap();
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("http://localhost:1/.well-known/oauth-protected-resource/mcp")
        );
    }
}
