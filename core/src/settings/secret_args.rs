//! Command-line arguments that look like secrets: `--token x`, `--api-key=x`, a secret header
//! in `--header "Authorization: Bearer x"` (the form `mcp-remote` and similar bridges take), or
//! a URL whose query may hold a key. An export without secrets blanks them and says which.
//!
//! A value that refers to an environment variable (`Bearer ${API_TOKEN}`) is kept: the secret
//! is in the environment, whose values the export blanks anyway, and the reference is what the
//! person would have to type again.

use crate::secret_words::looks_secret;
use crate::web_url;

/// Flags that carry a header, as `curl` and `mcp-remote` spell them.
const HEADER_FLAGS: [&str; 3] = ["--header", "-H", "--headers"];

/// Blanks the secret-looking values in `args`, returning what was blanked as the person reads
/// it (`--token`, `--header Authorization`, `URL query`), in order.
pub fn blank_secret_args(args: &mut [String]) -> Vec<String> {
    let mut blanked = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let (flag, inline) = match args[i].split_once('=') {
            Some((flag, value)) if flag.starts_with('-') => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (args[i].clone(), None),
        };
        let next_is_value = args.get(i + 1).is_some_and(|next| !next.starts_with('-'));
        if HEADER_FLAGS.contains(&flag.as_str()) {
            let header = match &inline {
                Some(value) => Some(value.clone()),
                None if next_is_value => Some(args[i + 1].clone()),
                None => None,
            };
            if let Some(name) = header.as_deref().and_then(secret_header_name) {
                let kept = format!("{name}:");
                match inline {
                    Some(_) => args[i] = format!("{flag}={kept}"),
                    None => args[i + 1] = kept,
                }
                blanked.push(format!("{flag} {name}"));
            }
            i += if inline.is_none() && next_is_value { 2 } else { 1 };
            continue;
        }
        if flag.starts_with('-') && looks_secret(flag.trim_start_matches('-')) {
            match inline {
                Some(value) if needs_blanking(&value) => {
                    args[i] = format!("{flag}=");
                    blanked.push(flag);
                }
                None if next_is_value && needs_blanking(&args[i + 1]) => {
                    args[i + 1] = String::new();
                    blanked.push(flag);
                    i += 1;
                }
                _ => {}
            }
        } else if let Some(url) = web_url::parse(&args[i]).filter(|u| u.query.is_some()) {
            args[i] = url.without_secrets();
            blanked.push("URL query".to_owned());
        }
        i += 1;
    }
    blanked
}

/// The header's name, when the header `Name: value` carries a secret value.
fn secret_header_name(header: &str) -> Option<&str> {
    let (name, value) = header.split_once(':')?;
    let name = name.trim();
    (looks_secret(name) && needs_blanking(value.trim())).then_some(name)
}

/// A value that is not empty and holds no `$VAR` reference.
fn needs_blanking(value: &str) -> bool {
    let refers = value.match_indices('$').any(|(at, _)| {
        value[at + 1..].starts_with(|c: char| c == '{' || c == '_' || c.is_ascii_alphabetic())
    });
    !value.is_empty() && !refers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank(args: &[&str]) -> (Vec<String>, Vec<String>) {
        let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let blanked = blank_secret_args(&mut args);
        (args, blanked)
    }

    #[test]
    fn flag_values_that_look_secret_are_blanked() {
        let (args, blanked) = blank(&[
            "-y",
            "some-server",
            "--token",
            "ghp_abc",
            "--api-key=sk-123",
            "--client-secret",
            "s3",
            "--password=hunter2",
            "--accessToken",
            "t",
            "--port",
            "8080",
        ]);
        assert_eq!(
            args,
            [
                "-y",
                "some-server",
                "--token",
                "",
                "--api-key=",
                "--client-secret",
                "",
                "--password=",
                "--accessToken",
                "",
                "--port",
                "8080"
            ]
        );
        assert_eq!(
            blanked,
            ["--token", "--api-key", "--client-secret", "--password", "--accessToken"]
        );
    }

    #[test]
    fn secret_headers_keep_their_name() {
        let (args, blanked) = blank(&[
            "mcp-remote",
            "https://example.com/mcp",
            "--header",
            "Authorization: Bearer abc",
            "-H",
            "X-Api-Key:abc",
            "--header=Cookie: a=b",
            "--header",
            "Accept: text/plain",
        ]);
        assert_eq!(
            args,
            [
                "mcp-remote",
                "https://example.com/mcp",
                "--header",
                "Authorization:",
                "-H",
                "X-Api-Key:",
                "--header=Cookie:",
                "--header",
                "Accept: text/plain"
            ]
        );
        assert_eq!(blanked, ["--header Authorization", "-H X-Api-Key", "--header Cookie"]);
    }

    #[test]
    fn references_to_the_environment_are_kept() {
        let (args, blanked) = blank(&[
            "--header",
            "Authorization: Bearer ${AUTH_TOKEN}",
            "--token",
            "$GITHUB_TOKEN",
            "--api-key=${KEY:-none}",
        ]);
        assert_eq!(
            args,
            [
                "--header",
                "Authorization: Bearer ${AUTH_TOKEN}",
                "--token",
                "$GITHUB_TOKEN",
                "--api-key=${KEY:-none}"
            ]
        );
        assert!(blanked.is_empty());
    }

    #[test]
    fn a_url_loses_its_query() {
        let (args, blanked) =
            blank(&["https://mcp.example.com/sse?api_key=abc", "https://plain.example.com/mcp"]);
        assert_eq!(args, ["https://mcp.example.com/sse", "https://plain.example.com/mcp"]);
        assert_eq!(blanked, ["URL query"]);
    }

    #[test]
    fn a_secret_flag_without_a_value_and_other_words_are_left_alone() {
        let (args, blanked) =
            blank(&["--token", "--verbose", "--keyboard-layout", "us", "--hotkey", "x", "--auth"]);
        assert_eq!(
            args,
            ["--token", "--verbose", "--keyboard-layout", "us", "--hotkey", "x", "--auth"]
        );
        assert!(blanked.is_empty());
    }
}
