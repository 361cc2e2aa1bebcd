//! `install`, `uninstall` and `doctor` in temporary homes and profiles.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use gemipanel_core::native::wire::FromBridge;
use gemipanel_core::native::{EXTENSION_ID, HOST_NAME};
use serde_json::Value;
use support::*;

const OTHER_ID: &str = "abcdefghijklmnopabcdefghijklmnop";

fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(bridge_binary())
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .output()
        .expect("the bridge runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn manifest_at(profile: &Path) -> std::path::PathBuf {
    profile.join("NativeMessagingHosts").join(format!("{HOST_NAME}.json"))
}

#[test]
fn install_into_a_profile_then_doctor_then_uninstall() {
    let home = tempfile::tempdir().unwrap();
    let profile = home.path().join("profile");
    let profile_arg = profile.to_str().unwrap();

    let before = run(home.path(), &["doctor", "--user-data-dir", profile_arg]);
    assert!(!before.status.success());
    assert!(text(&before).contains("no host manifest"), "{}", text(&before));

    let install =
        run(home.path(), &["install", "--user-data-dir", profile_arg, "--extension-id", OTHER_ID]);
    assert!(install.status.success(), "{}", text(&install));
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(manifest_at(&profile)).unwrap()).unwrap();
    assert_eq!(manifest["name"], HOST_NAME);
    assert_eq!(manifest["type"], "stdio");
    assert_eq!(
        Path::new(manifest["path"].as_str().unwrap()),
        bridge_binary().canonicalize().unwrap()
    );
    assert_eq!(
        manifest["allowed_origins"],
        serde_json::json!([
            format!("chrome-extension://{EXTENSION_ID}/"),
            format!("chrome-extension://{OTHER_ID}/")
        ])
    );

    let doctor = run(home.path(), &["doctor", "--user-data-dir", profile_arg]);
    assert!(doctor.status.success(), "{}", text(&doctor));
    assert!(text(&doctor).starts_with("ok:"), "{}", text(&doctor));

    // The added extension may now start the bridge too.
    let mut other =
        Bridge::start_with(&format!("chrome-extension://{OTHER_ID}/"), &[], Some(home.path()));
    other.send(&gemipanel_core::native::wire::ToBridge::Hello {
        protocol: gemipanel_core::native::PROTOCOL_VERSION,
    });
    assert!(matches!(other.recv(), FromBridge::Hello { .. }));

    let uninstall = run(home.path(), &["uninstall", "--user-data-dir", profile_arg]);
    assert!(uninstall.status.success(), "{}", text(&uninstall));
    assert!(!manifest_at(&profile).exists());
    let again = run(home.path(), &["uninstall", "--user-data-dir", profile_arg]);
    assert!(text(&again).contains("nothing to remove"), "{}", text(&again));
}

#[test]
fn doctor_names_what_is_wrong_with_a_manifest() {
    let home = tempfile::tempdir().unwrap();
    let profile = home.path().join("p");
    let profile_arg = profile.to_str().unwrap();
    assert!(run(home.path(), &["install", "--user-data-dir", profile_arg]).status.success());
    let path = manifest_at(&profile);
    let good: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let not_executable = home.path().join("plain-file");
    std::fs::write(&not_executable, "").unwrap();
    // The field to damage (the whole manifest when `None`), its new value, what doctor says.
    let cases: Vec<(Option<&str>, Value, &str)> = vec![
        (Some("allowed_origins"), serde_json::json!([]), "is not allowed"),
        (Some("path"), "/nonexistent/bridge".into(), "does not exist"),
        (Some("path"), not_executable.to_str().unwrap().into(), "not executable"),
        (Some("path"), "relative/bridge".into(), "not an absolute path"),
        (Some("type"), "socket".into(), "type is `socket`"),
        (Some("name"), "other.host".into(), "names the host `other.host`"),
        (None, "garbage".into(), "is not a host manifest"),
    ];
    for (field, value, expected) in cases {
        let mut manifest = good.clone();
        match field {
            Some(field) => manifest[field] = value,
            None => manifest = value,
        }
        std::fs::write(&path, manifest.to_string()).unwrap();
        let doctor = run(home.path(), &["doctor", "--user-data-dir", profile_arg]);
        assert!(!doctor.status.success(), "{expected}: {}", text(&doctor));
        let said = text(&doctor);
        assert!(said.contains(expected), "expected `{expected}` in: {said}");
        assert!(said.contains("gemipanel-bridge install --user-data-dir"), "{said}");
    }
}

#[test]
fn install_without_flags_goes_to_each_browser_in_use() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config");
    // Chromium and Brave have profiles here; Chrome and Edge do not.
    std::fs::create_dir_all(config.join("chromium")).unwrap();
    std::fs::create_dir_all(config.join("BraveSoftware/Brave-Browser")).unwrap();
    let install = run(home.path(), &["install"]);
    assert!(install.status.success(), "{}", text(&install));
    assert!(manifest_at(&config.join("chromium")).exists());
    assert!(manifest_at(&config.join("BraveSoftware/Brave-Browser")).exists());
    assert!(!config.join("google-chrome").exists());
    assert!(run(home.path(), &["doctor"]).status.success());
    // One browser by name.
    assert!(run(home.path(), &["install", "--browser", "edge"]).status.success());
    assert!(manifest_at(&config.join("microsoft-edge")).exists());
    let doctor = run(home.path(), &["doctor", "--browser", "chrome"]);
    assert!(
        text(&doctor).contains("gemipanel-bridge install --browser chrome"),
        "{}",
        text(&doctor)
    );
    assert!(run(home.path(), &["uninstall"]).status.success());
    assert!(!manifest_at(&config.join("chromium")).exists());
}

#[test]
fn a_bad_extension_id_and_a_bare_start_are_explained() {
    let home = tempfile::tempdir().unwrap();
    let bad = run(home.path(), &["install", "--extension-id", "not-an-id"]);
    assert!(!bad.status.success());
    assert!(text(&bad).contains("32 letters from a to p"), "{}", text(&bad));
    let bare = run(home.path(), &[]);
    assert!(!bare.status.success());
    assert!(text(&bare).contains("gemipanel-bridge install"), "{}", text(&bare));
}
