//! DPoP (RFC 9449): tokens bound to a key pair this client holds, so a token copied out of
//! storage is of no use without the key. What the profile asks of a client:
//!
//! * a proof JWT per request (§4.2): header `typ: dpop+jwt`, `alg`, the public `jwk`; claims
//!   `jti` (fresh each time), `htm`, `htu` (the URL without query and fragment), `iat`, and with
//!   an access token `ath` (its SHA-256, base64url) and with a server's nonce `nonce`;
//! * proofs on token requests (§5), bound tokens presented as `Authorization: DPoP …` (§7.1);
//! * a nonce a server hands out in `DPoP-Nonce` used from then on, and a request refused with
//!   `use_dpop_nonce` retried once with it (§8 for the authorization server, §9 for the
//!   resource server).
//!
//! The signing happens in the host ([`ProofSigner`]: WebCrypto with a non-extractable key kept
//! in IndexedDB in the worker, the p256 crate natively); the claims, the nonces and the
//! challenges are decided here.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::challenge;
use super::jose::{self, PublicJwk, ES256};
use super::token::ErrorResponse;
use crate::mcp::{Method, ProofOfPossession};
use crate::web_url;

/// What a proof needs from the host: the key, the clock and random bytes.
pub trait ProofSigner {
    /// The public half of the key, sent in every proof.
    fn public_jwk(&self) -> &PublicJwk;
    /// The ES256 signature (`r || s`, 64 bytes) of `input`.
    fn sign<'a>(
        &'a self,
        input: &'a [u8],
    ) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + 'a>>;
    fn now_ms(&self) -> u64;
    /// 16 fresh random bytes, for `jti`.
    fn random_id(&self) -> [u8; 16];
}

/// One server's DPoP key with the nonces its servers handed out.
pub struct Dpop {
    signer: Rc<dyn ProofSigner>,
    thumbprint: String,
    /// The last `DPoP-Nonce` per origin (the authorization server's and the MCP server's).
    nonces: RefCell<Vec<(String, String)>>,
}

impl std::fmt::Debug for Dpop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dpop").field("thumbprint", &self.thumbprint).finish_non_exhaustive()
    }
}

impl Dpop {
    pub fn new(signer: Rc<dyn ProofSigner>) -> Rc<Dpop> {
        let thumbprint = signer.public_jwk().thumbprint();
        Rc::new(Dpop { signer, thumbprint, nonces: RefCell::default() })
    }

    /// The key's RFC 7638 thumbprint: what a bound token's `cnf.jkt` names.
    pub fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// A proof for one request; `access_token` when the request presents one (`ath`).
    pub async fn make_proof(
        &self,
        method: Method,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<String, String> {
        let header = json!({ "typ": "dpop+jwt", "alg": ES256, "jwk": self.signer.public_jwk() });
        let mut claims = json!({
            "jti": jose::base64url(&self.signer.random_id()),
            "htm": method.as_str(),
            "htu": htu(url),
            "iat": self.signer.now_ms() / 1000,
        });
        if let Some(token) = access_token {
            claims["ath"] = Value::String(ath(token));
        }
        if let Some(nonce) = self.nonce_for(url) {
            claims["nonce"] = Value::String(nonce);
        }
        let input = jose::signing_input(&header, &claims);
        let signature = self.signer.sign(input.as_bytes()).await?;
        jose::compact(&input, &signature)
    }

    /// Keeps the nonce an answer from `url` carries (`DPoP-Nonce`), for the next proof there.
    pub fn learn(&self, url: &str, headers: &[(String, String)]) {
        let Some(nonce) = header(headers, "DPoP-Nonce").filter(|n| is_nonce(n)) else { return };
        let Some(origin) = origin(url) else { return };
        let mut nonces = self.nonces.borrow_mut();
        nonces.retain(|(o, _)| *o != origin);
        nonces.push((origin, nonce.to_owned()));
    }

    fn nonce_for(&self, url: &str) -> Option<String> {
        let origin = origin(url)?;
        self.nonces.borrow().iter().find(|(o, _)| *o == origin).map(|(_, n)| n.clone())
    }
}

/// What the MCP client asks of a bound token's key: a proof per request, and a second try
/// when the MCP server asks for a new nonce (RFC 9449 §9).
impl ProofOfPossession for Dpop {
    fn proof<'a>(
        &'a self,
        method: Method,
        url: &'a str,
        access_token: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<String, String>> + 'a>> {
        Box::pin(self.make_proof(method, url, Some(access_token)))
    }

    fn answered(&self, url: &str, status: u16, headers: &[(String, String)]) -> bool {
        self.learn(url, headers);
        is_resource_nonce_challenge(status, headers)
    }
}

/// RFC 9449 §4.2: the request's URL without query and fragment.
pub fn htu(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].to_owned()
}

/// RFC 9449 §4.2: the base64url SHA-256 of the access token's ASCII.
pub fn ath(access_token: &str) -> String {
    jose::base64url(&Sha256::digest(access_token.as_bytes()))
}

/// RFC 9449 §8: the authorization server refused a token request for want of (a fresh) nonce
/// and sent one: `400 {"error": "use_dpop_nonce"}` with `DPoP-Nonce`.
pub fn is_token_nonce_challenge(status: u16, headers: &[(String, String)], body: &[u8]) -> bool {
    let asks =
        serde_json::from_slice::<ErrorResponse>(body).is_ok_and(|e| e.error == "use_dpop_nonce");
    status == 400 && asks && header(headers, "DPoP-Nonce").is_some_and(is_nonce)
}

/// RFC 9449 §9: the resource server refused a request for want of (a fresh) nonce and sent
/// one: `401` with `WWW-Authenticate: DPoP error="use_dpop_nonce"` and `DPoP-Nonce`.
pub fn is_resource_nonce_challenge(status: u16, headers: &[(String, String)]) -> bool {
    let asks = header(headers, "WWW-Authenticate").is_some_and(|value| {
        challenge::parse(value).iter().any(|c| {
            c.scheme.eq_ignore_ascii_case("dpop") && c.param("error") == Some("use_dpop_nonce")
        })
    });
    status == 401 && asks && header(headers, "DPoP-Nonce").is_some_and(is_nonce)
}

/// RFC 9449 §8.1: a nonce is `1*NQCHAR` (printable ASCII but `"` and `\`); bounded here.
fn is_nonce(nonce: &str) -> bool {
    let printable = |b: u8| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\';
    !nonce.is_empty() && nonce.len() <= 1024 && nonce.bytes().all(printable)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn origin(url: &str) -> Option<String> {
    web_url::parse(url).map(|u| u.origin())
}

#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use p256::ecdsa::signature::{Signer, Verifier};
    use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
    use std::cell::Cell;

    /// A key in memory, a fixed clock and counted ids: what the tests sign with.
    pub(crate) struct TestSigner {
        key: SigningKey,
        jwk: PublicJwk,
        ids: Cell<u8>,
    }

    impl TestSigner {
        pub(crate) fn new(seed: u8) -> Rc<TestSigner> {
            let key = SigningKey::from_bytes(&[seed; 32].into()).expect("a valid scalar");
            let point = key.verifying_key().to_encoded_point(false);
            let jwk = PublicJwk::p256(point.x().unwrap(), point.y().unwrap());
            Rc::new(TestSigner { key, jwk, ids: Cell::new(0) })
        }
    }

    impl ProofSigner for TestSigner {
        fn public_jwk(&self) -> &PublicJwk {
            &self.jwk
        }
        fn sign<'a>(
            &'a self,
            input: &'a [u8],
        ) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + 'a>> {
            let signature: Signature = self.key.sign(input);
            Box::pin(std::future::ready(Ok(signature.to_bytes().to_vec())))
        }
        fn now_ms(&self) -> u64 {
            1_800_000_000_123
        }
        fn random_id(&self) -> [u8; 16] {
            self.ids.set(self.ids.get() + 1);
            [self.ids.get(); 16]
        }
    }

    /// The header and claims of a proof, after checking its signature against its own `jwk`.
    pub(crate) fn verified(proof: &str) -> (Value, Value) {
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let decode = |p: &str| URL_SAFE_NO_PAD.decode(p).unwrap();
        let header: Value = serde_json::from_slice(&decode(parts[0])).unwrap();
        let claims: Value = serde_json::from_slice(&decode(parts[1])).unwrap();
        let jwk: PublicJwk = serde_json::from_value(header["jwk"].clone()).unwrap();
        let mut sec1 = vec![4];
        sec1.extend(decode(&jwk.x));
        sec1.extend(decode(&jwk.y));
        let key = VerifyingKey::from_sec1_bytes(&sec1).unwrap();
        let signature = Signature::from_slice(&decode(parts[2])).unwrap();
        key.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .expect("the proof verifies with the key it names");
        (header, claims)
    }

    fn run<T>(future: impl Future<Output = T>) -> T {
        futures::executor::block_on(future)
    }

    #[test]
    fn a_proof_carries_what_rfc_9449_asks_and_verifies() {
        let dpop = Dpop::new(TestSigner::new(3));
        let proof =
            run(dpop.make_proof(Method::Post, "https://mcp.example.com/mcp?x=1#f", Some("tok")))
                .unwrap();
        let (header, claims) = verified(&proof);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["iat"], 1_800_000_000);
        assert_eq!(claims["ath"], ath("tok"));
        assert!(claims.get("nonce").is_none());
        let again =
            run(dpop.make_proof(Method::Post, "https://mcp.example.com/mcp", None)).unwrap();
        let (_, second) = verified(&again);
        assert_ne!(claims["jti"], second["jti"], "a fresh jti each time");
        assert!(second.get("ath").is_none());
    }

    #[test]
    fn ath_is_the_base64url_sha256_of_the_token() {
        // RFC 9449 §7.1's example token and its `ath`.
        assert_eq!(
            ath("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
            "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
        );
    }

    #[test]
    fn a_nonce_is_used_at_the_origin_that_gave_it() {
        let dpop = Dpop::new(TestSigner::new(3));
        let from_as = vec![("dpop-nonce".to_owned(), "as-nonce".to_owned())];
        dpop.learn("https://auth.example.com/token", &from_as);
        let at = |url: &str| {
            let (_, claims) = verified(&run(dpop.make_proof(Method::Post, url, None)).unwrap());
            claims.get("nonce").and_then(Value::as_str).map(str::to_owned)
        };
        assert_eq!(at("https://auth.example.com/other").as_deref(), Some("as-nonce"));
        assert_eq!(at("https://mcp.example.com/mcp"), None);
        dpop.learn("https://auth.example.com/token", &[("DPoP-Nonce".into(), "next".into())]);
        assert_eq!(at("https://auth.example.com/token").as_deref(), Some("next"));
        // A value that is no nonce is ignored.
        dpop.learn("https://auth.example.com/token", &[("DPoP-Nonce".into(), "a \"b\"".into())]);
        assert_eq!(at("https://auth.example.com/token").as_deref(), Some("next"));
    }

    #[test]
    fn nonce_challenges_of_both_servers_are_recognised() {
        let nonce = vec![("DPoP-Nonce".to_owned(), "n1".to_owned())];
        assert!(is_token_nonce_challenge(400, &nonce, br#"{"error":"use_dpop_nonce"}"#));
        assert!(!is_token_nonce_challenge(400, &[], br#"{"error":"use_dpop_nonce"}"#));
        assert!(!is_token_nonce_challenge(400, &nonce, br#"{"error":"invalid_grant"}"#));
        let mut refused = nonce.clone();
        refused.push((
            "WWW-Authenticate".into(),
            r#"DPoP error="use_dpop_nonce", error_description="fresh one""#.into(),
        ));
        assert!(is_resource_nonce_challenge(401, &refused));
        assert!(!is_resource_nonce_challenge(403, &refused));
        let bearer = vec![
            ("DPoP-Nonce".to_owned(), "n1".to_owned()),
            ("WWW-Authenticate".to_owned(), r#"Bearer error="invalid_token""#.to_owned()),
        ];
        assert!(!is_resource_nonce_challenge(401, &bearer));
    }
}
