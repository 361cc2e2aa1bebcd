//! Where each browser looks for native-messaging host manifests of the person running it.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::Target;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Browser {
    Chrome,
    Chromium,
    Edge,
    Brave,
}

impl Browser {
    pub const ALL: [Browser; 4] =
        [Browser::Chrome, Browser::Chromium, Browser::Edge, Browser::Brave];

    pub fn flag(self) -> &'static str {
        match self {
            Browser::Chrome => "chrome",
            Browser::Chromium => "chromium",
            Browser::Edge => "edge",
            Browser::Brave => "brave",
        }
    }

    /// The browser's default user-data folder (Linux: under `$XDG_CONFIG_HOME`, as Chrome
    /// reads it; macOS: under `~/Library/Application Support`).
    #[cfg(not(windows))]
    pub fn user_data_dir(self) -> Option<PathBuf> {
        #[cfg(target_os = "macos")]
        let (base, parts): (_, &[&str]) = (
            dirs::data_dir(),
            match self {
                Browser::Chrome => &["Google", "Chrome"],
                Browser::Chromium => &["Chromium"],
                Browser::Edge => &["Microsoft Edge"],
                Browser::Brave => &["BraveSoftware", "Brave-Browser"],
            },
        );
        #[cfg(not(target_os = "macos"))]
        let (base, parts): (_, &[&str]) = (
            dirs::config_dir(),
            match self {
                Browser::Chrome => &["google-chrome"],
                Browser::Chromium => &["chromium"],
                Browser::Edge => &["microsoft-edge"],
                Browser::Brave => &["BraveSoftware", "Brave-Browser"],
            },
        );
        base.map(|base| parts.iter().fold(base, |dir, part| dir.join(part)))
    }

    /// The registry key (under HKEY_CURRENT_USER) holding the browser's host manifests. Brave
    /// on Windows reads Chrome's (as KeePassXC's installer has it), so the two share one entry.
    #[cfg(windows)]
    pub fn registry_key(self) -> &'static str {
        match self {
            Browser::Chrome | Browser::Brave => r"Software\Google\Chrome\NativeMessagingHosts",
            Browser::Chromium => r"Software\Chromium\NativeMessagingHosts",
            Browser::Edge => r"Software\Microsoft\Edge\NativeMessagingHosts",
        }
    }

    /// The browser's own settings key, there when it is installed for this person.
    #[cfg(windows)]
    pub fn settings_key(self) -> &'static str {
        match self {
            Browser::Chrome => r"Software\Google\Chrome",
            Browser::Chromium => r"Software\Chromium",
            Browser::Edge => r"Software\Microsoft\Edge",
            Browser::Brave => r"Software\BraveSoftware\Brave-Browser",
        }
    }

    /// Whether the person seems to use this browser.
    fn is_present(self) -> bool {
        #[cfg(windows)]
        {
            crate::windows_registry::browser_key_exists(self)
        }
        #[cfg(not(windows))]
        {
            self.user_data_dir().is_some_and(|dir| dir.is_dir())
        }
    }
}

impl fmt::Display for Browser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Browser::Chrome => "Google Chrome",
            Browser::Chromium => "Chromium",
            Browser::Edge => "Microsoft Edge",
            Browser::Brave => "Brave",
        })
    }
}

/// One place a host manifest goes.
#[derive(Clone, Debug)]
pub struct Place {
    /// What to call it in messages.
    pub label: String,
    /// The `--browser` or `--user-data-dir` flag that selects it again.
    pub flag: String,
    /// The manifest file.
    pub manifest: PathBuf,
    /// On Windows, the browser whose registry key must point at the manifest.
    #[cfg_attr(not(windows), allow(dead_code))]
    pub registry: Option<Browser>,
}

/// The places `target` names: a given profile folder, a given browser, or every browser that
/// seems installed (Chrome when none does).
pub fn places(target: &Target) -> Result<Vec<Place>, String> {
    if let Some(dir) = &target.user_data_dir {
        return Ok(vec![profile_place(dir)]);
    }
    let browsers = match target.browser {
        Some(browser) => vec![browser],
        None => {
            let present: Vec<_> = Browser::ALL.into_iter().filter(|b| b.is_present()).collect();
            if present.is_empty() {
                vec![Browser::Chrome]
            } else {
                present
            }
        }
    };
    browsers.into_iter().map(browser_place).collect()
}

fn profile_place(dir: &Path) -> Place {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    Place {
        label: format!("the profile {}", dir.display()),
        flag: format!("--user-data-dir {}", dir.display()),
        manifest: manifest_in(&dir.join("NativeMessagingHosts")),
        registry: None,
    }
}

fn manifest_in(dir: &Path) -> PathBuf {
    dir.join(format!("{}.json", gemipanel_core::native::HOST_NAME))
}

#[cfg(not(windows))]
fn browser_place(browser: Browser) -> Result<Place, String> {
    let dir = browser
        .user_data_dir()
        .ok_or("the home folder is unknown (is $HOME set?)")?
        .join("NativeMessagingHosts");
    Ok(Place {
        label: browser.to_string(),
        flag: format!("--browser {}", browser.flag()),
        manifest: manifest_in(&dir),
        registry: None,
    })
}

/// On Windows the manifest can live anywhere; the registry key names it.
#[cfg(windows)]
fn browser_place(browser: Browser) -> Result<Place, String> {
    let dir = dirs::data_local_dir()
        .ok_or("the local application data folder is unknown")?
        .join("gemipanel-bridge")
        .join(browser.flag());
    Ok(Place {
        label: browser.to_string(),
        flag: format!("--browser {}", browser.flag()),
        manifest: manifest_in(&dir),
        registry: Some(browser),
    })
}
