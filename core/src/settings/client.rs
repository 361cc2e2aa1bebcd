//! What a server's MCP client is made from: the address it sends to, and the key that tells
//! when a changed configuration needs a new client.

use super::Server;
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

    /// Everything a client is made with, as one string: a changed one gets a new client. Holds
    /// header values, environment values and the client secret, so it never leaves memory. The
    /// command line as it is, not hashed: this runs for every request.
    pub fn client_key(&self) -> String {
        let mut key = format!("{}\n{}", self.client_address(), self.timeout_ms);
        if let Some(local) = &self.local {
            key.push_str(&format!("\n{}\0{}", local.command, local.args.join("\0")));
            for (name, value) in &local.env {
                key.push_str(&format!("\n{name}={}", value.expose()));
            }
            key.push_str(&format!(
                "\n{:?}\n{:?}\n{:?}",
                local.cwd, self.confirmed_command, self.confirmed_run
            ));
        }
        for (name, value) in &self.headers {
            key.push_str(&format!("\n{name}:{}", value.expose()));
        }
        // The sign-in client with its secrets (a `Secret` serialises as its value).
        key.push('\n');
        key.push_str(&serde_json::to_string(&self.oauth).unwrap_or_default());
        key
    }
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
        assert_eq!(remote().client_key(), remote().client_key());
        let mut renamed = local();
        renamed.name = "Other name".into();
        renamed.trust = true;
        assert_eq!(renamed.client_key(), local().client_key());
    }

    #[test]
    fn whatever_the_client_is_made_with_gives_a_new_one() {
        let mut moved = remote();
        moved.url = "https://other.example.com/mcp".into();
        assert_ne!(moved.client_key(), remote().client_key(), "a changed URL");
        // A local server's URL field is not where its client goes.
        let mut moved = local();
        moved.url = "https://other.example.com/mcp".into();
        assert_eq!(moved.client_key(), local().client_key());
        type Change = (&'static str, fn(&mut Server));
        let changes: [Change; 7] = [
            ("timeout", |s| s.timeout_ms += 1),
            ("header", |s| {
                s.headers.insert("Authorization".into(), Secret::new("Bearer x".to_owned()));
            }),
            ("argument", |s| s.local.as_mut().unwrap().args.push("--flag".into())),
            ("environment value", |s| {
                s.local.as_mut().unwrap().env.insert("TOKEN".into(), Secret::new("two".to_owned()));
            }),
            ("working directory", |s| s.local.as_mut().unwrap().cwd = Some("/tmp".into())),
            ("confirmation", |s| s.confirmed_run = Some("fingerprint".into())),
            ("client secret", |s| s.oauth.client_secret = Some(Secret::new("s".to_owned()))),
        ];
        for (what, change) in changes {
            let mut changed = local();
            change(&mut changed);
            assert_ne!(changed.client_key(), local().client_key(), "a changed {what}");
        }
    }
}
