//! Which callers the bridge serves: Chrome passes the caller's origin as the first argument.

use gemipanel_core::native::EXTENSION_ID;

/// Whether `id` looks like an extension id: 32 letters from `a` to `p`.
pub fn is_extension_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b))
}

pub fn origin_of(id: &str) -> String {
    format!("chrome-extension://{id}/")
}

/// The pinned id, then the ones added at install.
pub fn allowed_ids(extra: &[String]) -> Vec<String> {
    let mut ids = vec![EXTENSION_ID.to_owned()];
    for id in extra {
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    ids
}

/// Whether `origin` (`chrome-extension://<id>/`) is one of `allowed`.
pub fn is_allowed(origin: &str, allowed: &[String]) -> bool {
    let id = origin
        .strip_prefix("chrome-extension://")
        .map(|rest| rest.strip_suffix('/').unwrap_or(rest));
    id.is_some_and(|id| is_extension_id(id) && allowed.iter().any(|a| a == id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_extension_origins_pass() {
        let other = "abcdefghijklmnopabcdefghijklmnop".to_owned();
        let allowed = allowed_ids(std::slice::from_ref(&other));
        let cases = [
            ("chrome-extension://kllodkfcinihfdkamgbfclpklodomgdp/", true),
            ("chrome-extension://kllodkfcinihfdkamgbfclpklodomgdp", true),
            ("chrome-extension://abcdefghijklmnopabcdefghijklmnop/", true),
            ("chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/", false),
            ("chrome-extension://kllodkfcinihfdkamgbfclpklodomgdp/x", false),
            ("https://kllodkfcinihfdkamgbfclpklodomgdp/", false),
            ("kllodkfcinihfdkamgbfclpklodomgdp", false),
            ("", false),
        ];
        for (origin, expected) in cases {
            assert_eq!(is_allowed(origin, &allowed), expected, "{origin}");
        }
    }

    #[test]
    fn extension_ids_are_32_letters_a_to_p() {
        assert!(is_extension_id(EXTENSION_ID));
        assert!(!is_extension_id("kllodkfcinihfdkamgbfclpklodomgdq"));
        assert!(!is_extension_id("kllodkfcinihfdkamgbfclpklodomgd"));
        assert!(!is_extension_id("KLLODKFCINIHFDKAMGBFCLPKLODOMGDP"));
    }
}
