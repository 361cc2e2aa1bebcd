//! What a server's MCP client is made from: the address it sends to, and what tells when a
//! changed configuration needs a new client.

use indexmap::IndexMap;

use super::{LocalCommand, Server};
use crate::native::link::LocalTransport;

impl Server {
    /// Where the server's client sends its requests: its URL, or a local server's bridge
    /// address (`stdio://<id>/`).
    pub fn client_address(&self) -> String {
        match &self.local {
            Some(_) => LocalTransport::<()>::url(self.id.as_str()),
            None => self.url.clone(),
        }
    }

    /// Whether a client made for `held` serves this configuration too: everything a client is
    /// made with is the same (address, timeout, command line and its confirmation, headers,
    /// environment, sign-in client). Compared in place, not as a key built per request: this
    /// runs for every request (the local echo's path), and a key would copy every secret.
    pub fn makes_same_client(&self, held: &Server) -> bool {
        let same_local = match (&self.local, &held.local) {
            // The same process, run only as confirmed.
            (Some(mine), Some(theirs)) => {
                self.id == held.id
                    && same_command(mine, theirs)
                    && self.confirmed_command == held.confirmed_command
                    && self.confirmed_run == held.confirmed_run
            }
            (None, None) => self.url == held.url,
            _ => false,
        };
        same_local
            && self.timeout_ms == held.timeout_ms
            && in_order(&self.headers, &held.headers)
            && self.oauth == held.oauth
    }
}

/// The same command line, environment in the same order: the confirmation's fingerprint
/// ([`LocalCommand::fingerprint`]) reads it in order, so a reordered one is confirmed again.
fn same_command(mine: &LocalCommand, theirs: &LocalCommand) -> bool {
    mine.command == theirs.command
        && mine.args == theirs.args
        && mine.cwd == theirs.cwd
        && in_order(&mine.env, &theirs.env)
}

/// `IndexMap`'s `==` ignores order; a client is made with its entries in order.
fn in_order<V: PartialEq>(mine: &IndexMap<String, V>, theirs: &IndexMap<String, V>) -> bool {
    mine.iter().eq(theirs.iter())
}

#[cfg(test)]
mod tests {
    use crate::settings::{LocalCommand, Secret, Server, ServerId};

    fn remote() -> Server {
        let mut server = Server::blank(ServerId::generate([7; 16]), "Files".into());
        server.url = "https://mcp.example.com/mcp".into();
        server
    }

    fn local() -> Server {
        let mut server = remote();
        let mut command = LocalCommand::new("npx", vec!["-y".into(), "server".into()]);
        command.env.insert("TOKEN".into(), Secret::new("one".to_owned()));
        server.local = Some(command);
        server
    }

    #[test]
    fn a_local_server_is_reached_at_its_bridge_address() {
        let server = local();
        assert_eq!(server.client_address(), format!("stdio://{}/", server.id));
        assert_eq!(remote().client_address(), "https://mcp.example.com/mcp");
    }

    #[test]
    fn the_same_configuration_keeps_its_client() {
        assert!(remote().makes_same_client(&remote()));
        let mut renamed = local();
        renamed.name = "Other name".into();
        renamed.trust = true;
        renamed.allowed_tools.insert("echo".into());
        assert!(renamed.makes_same_client(&local()));
        // A remote server's confirmations are of no command.
        let mut confirmed = remote();
        confirmed.confirmed_run = Some("fingerprint".into());
        assert!(confirmed.makes_same_client(&remote()));
    }

    #[test]
    fn whatever_the_client_is_made_with_gives_a_new_one() {
        let mut moved = remote();
        moved.url = "https://other.example.com/mcp".into();
        assert!(!moved.makes_same_client(&remote()), "a changed URL");
        // A local server's URL field is not where its client goes.
        let mut moved = local();
        moved.url = "https://other.example.com/mcp".into();
        assert!(moved.makes_same_client(&local()));
        assert!(!remote().makes_same_client(&local()), "remote made local");
        assert!(!local().makes_same_client(&remote()), "local made remote");
        type Change = (&'static str, fn(&mut Server));
        let changes: [Change; 10] = [
            ("timeout", |s| s.timeout_ms += 1),
            ("header", |s| {
                s.headers.insert("Authorization".into(), Secret::new("Bearer x".to_owned()));
            }),
            ("command", |s| s.local.as_mut().unwrap().command = "node".into()),
            ("argument", |s| s.local.as_mut().unwrap().args.push("--flag".into())),
            ("environment value", |s| {
                s.local.as_mut().unwrap().env.insert("TOKEN".into(), Secret::new("two".to_owned()));
            }),
            ("working directory", |s| s.local.as_mut().unwrap().cwd = Some("/tmp".into())),
            ("confirmation", |s| s.confirmed_run = Some("fingerprint".into())),
            ("confirmed command", |s| s.confirmed_command = Some("fingerprint".into())),
            ("client secret", |s| s.oauth.client_secret = Some(Secret::new("s".to_owned()))),
            ("client id", |s| s.oauth.client_id = Some("id".into())),
        ];
        // The confirmation reads the environment in order (`LocalCommand::fingerprint`).
        let mut reordered = local();
        let env = &mut reordered.local.as_mut().unwrap().env;
        env.insert("OTHER".into(), Secret::new("x".to_owned()));
        let mut other_order = reordered.clone();
        other_order.local.as_mut().unwrap().env.swap_indices(0, 1);
        assert!(!other_order.makes_same_client(&reordered), "a reordered environment");
        for (what, change) in changes {
            let mut changed = local();
            change(&mut changed);
            assert!(!changed.makes_same_client(&local()), "a changed {what}");
            assert!(!local().makes_same_client(&changed), "a changed {what}, the other way");
        }
    }
}
