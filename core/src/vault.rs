//! Secrets at rest, locked with a passphrase the person may set (issue 26, item 6).
//!
//! Without a passphrase nothing changes. With one, every secret the worker keeps in
//! `chrome.storage.local` is sealed (AES-GCM, 256-bit key, a fresh 96-bit IV each time) under
//! a key derived from the passphrase with PBKDF2-SHA256 ([`ITERATIONS`], a random 16-byte
//! salt): the Gemini key, header values, local servers' environment values and sign-in
//! secrets inside the settings document (each [`Secret`] replaced by its [`Envelope`] text, so
//! the document keeps its shape and version), and the sign-in documents (credentials,
//! registered clients, identity providers' sign-ins) as a whole.
//!
//! Here: the envelope's text form, the record of the vault ([`VaultRecord`]), which secrets a
//! settings document has, and the state a page is told. The cryptography is WebCrypto's, in
//! the worker.

use serde::{Deserialize, Serialize};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use crate::settings::{Secret, Settings};

/// PBKDF2-SHA256 iterations: OWASP's recommendation for it (2023), about half a second in a
/// browser here. Unlocking happens once a browser session.
pub const ITERATIONS: u32 = 600_000;

/// What the vault's check envelope holds: opening it proves the passphrase.
pub const CHECK_TEXT: &str = "gemipanel vault v1";

/// The storage key of the [`VaultRecord`] in `chrome.storage.local`.
pub const RECORD_KEY: &str = "vault";

/// The text a sealed value starts with.
const PREFIX: &str = "gpv1.";

/// One sealed value: `gpv1.<iv>.<ciphertext with its tag>`, both base64url.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    pub iv: Vec<u8>,
    pub ciphertext: Vec<u8>,
}

impl Envelope {
    pub fn to_text(&self) -> String {
        format!(
            "{PREFIX}{}.{}",
            URL_SAFE_NO_PAD.encode(&self.iv),
            URL_SAFE_NO_PAD.encode(&self.ciphertext)
        )
    }

    /// The envelope a text holds; `None` for anything else (a plain secret).
    pub fn parse(text: &str) -> Option<Envelope> {
        let (iv, ciphertext) = text.strip_prefix(PREFIX)?.split_once('.')?;
        let iv = URL_SAFE_NO_PAD.decode(iv).ok().filter(|iv| iv.len() == 12)?;
        // AES-GCM's tag alone is 16 bytes.
        let ciphertext = URL_SAFE_NO_PAD.decode(ciphertext).ok().filter(|c| c.len() >= 16)?;
        Some(Envelope { iv, ciphertext })
    }
}

/// Whether a stored value is sealed.
pub fn is_sealed(text: &str) -> bool {
    Envelope::parse(text).is_some()
}

/// What `chrome.storage.local` keeps about the vault: never the key, only how to derive it
/// again and a value to check a passphrase against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VaultRecord {
    pub version: u32,
    /// base64url, 16 random bytes.
    pub salt: String,
    pub iterations: u32,
    /// [`CHECK_TEXT`], sealed.
    pub check: String,
}

/// Whether secrets are locked, as the pages are told.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VaultState {
    /// No passphrase: secrets are stored as they are.
    #[default]
    Off,
    /// A passphrase is set and not entered in this browser session: nothing that needs a secret
    /// works until it is.
    Locked,
    /// A passphrase is set and was entered in this browser session.
    Unlocked,
}

impl VaultState {
    pub fn is_off(&self) -> bool {
        *self == VaultState::Off
    }
}

/// Whether any secret of a settings document is sealed.
pub fn has_sealed(settings: &Settings) -> bool {
    let sealed = |s: &Secret| is_sealed(s.expose());
    settings.gemini.api_key.as_ref().is_some_and(sealed)
        || settings.servers.iter().any(|server| {
            server.headers.values().any(sealed)
                || server.local.as_ref().is_some_and(|l| l.env.values().any(sealed))
                || [&server.oauth.client_secret, &server.oauth.private_key]
                    .into_iter()
                    .flatten()
                    .any(sealed)
                || server
                    .oauth
                    .identity_provider
                    .as_ref()
                    .and_then(|p| p.client_secret.as_ref())
                    .is_some_and(sealed)
        })
}

/// Every secret of a settings document, in a fixed order: the Gemini key, then per server its
/// header values, its local command's environment values and its sign-in secrets.
pub fn secrets_mut(settings: &mut Settings) -> Vec<&mut Secret> {
    let mut secrets: Vec<&mut Secret> = settings.gemini.api_key.iter_mut().collect();
    for server in &mut settings.servers {
        secrets.extend(server.headers.values_mut());
        if let Some(local) = &mut server.local {
            secrets.extend(local.env.values_mut());
        }
        secrets.extend(server.oauth.secrets_mut());
    }
    secrets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{IdentityProvider, LocalCommand, OAuthClient, Server, ServerId};

    #[test]
    fn an_envelope_reads_back_and_plain_text_is_no_envelope() {
        let sealed = Envelope { iv: vec![1; 12], ciphertext: vec![2; 40] };
        let text = sealed.to_text();
        assert!(text.starts_with("gpv1."));
        assert_eq!(Envelope::parse(&text), Some(sealed));
        assert!(is_sealed(&text));
        for plain in ["", "AIzaSy-not-sealed", "gpv1.", "gpv1.AAAA.AAAA", "gpv1.!!!.???"] {
            assert!(!is_sealed(plain), "{plain}");
        }
    }

    #[test]
    fn every_secret_of_a_document_is_found() {
        let mut server = Server::blank(ServerId::generate([1; 16]), "a".into());
        server.headers.insert("X-Key".into(), Secret::new("h"));
        server.local = Some(LocalCommand {
            env: [("TOKEN".to_owned(), Secret::new("e"))].into_iter().collect(),
            ..LocalCommand::new("npx", vec![])
        });
        server.oauth = OAuthClient {
            client_secret: Some(Secret::new("c")),
            private_key: Some(Secret::new("k")),
            identity_provider: Some(IdentityProvider {
                client_secret: Some(Secret::new("i")),
                ..IdentityProvider::default()
            }),
            ..OAuthClient::default()
        };
        let mut settings = Settings { servers: vec![server], ..Settings::default() };
        settings.gemini.api_key = Some(Secret::new("g"));
        let found: Vec<String> =
            secrets_mut(&mut settings).iter().map(|s| s.expose().to_owned()).collect();
        assert_eq!(found, ["g", "h", "e", "c", "k", "i"]);
        assert!(!has_sealed(&settings));
        let sealed = Envelope { iv: vec![1; 12], ciphertext: vec![2; 20] }.to_text();
        for n in 0..6 {
            let mut copy = settings.clone();
            *secrets_mut(&mut copy)[n] = Secret::new(sealed.clone());
            assert!(has_sealed(&copy), "secret {n}");
        }
    }
}
