//! `cargo xtask conformance`: the official MCP conformance suite against our client.
//!
//! Builds the driver (`tests/src/bin/conformance.rs`), runs `--suite all` of both pinned suite
//! versions (0.1 for 2025-11-25, 0.2 adding 2026-07-28), the client scenarios 2026-07-28
//! requires at its own wire and the extensions suite (DPoP, client credentials, enterprise
//! sign-in), all in parallel, and counts every check. Each suite's table ends with the
//! scenarios passed of those that apply. The suite's own tally is
//! taken from its `SUITE SUMMARY`; on top of it each scenario gets one check of our own, "the
//! driver exited cleanly" (the suite ignores exit codes in suite mode, but a client that
//! crashed after the traffic looked right is still broken). Warnings count as failures, as the
//! suite marks them ✗.
//!
//! Authorization scenarios (`auth/…`) count like the others, except those listed in
//! [`NOT_APPLICABLE`] with the reason: they run, and are listed, not counted.

use crate::test::Tally;
use crate::util::{self, cargo, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One run of a pinned suite version.
struct SuiteVersion {
    /// What the table calls it; also the folder of its results.
    label: &'static str,
    /// The folder under `tests/node_modules`.
    package: &'static str,
    /// Which scenarios, at which spec version.
    args: &'static [&'static str],
}

const VERSIONS: [SuiteVersion; 4] = [
    SuiteVersion {
        label: "2025-11-25",
        package: "conformance-2025-11-25",
        args: &["--suite", "all"],
    },
    // Each scenario at the wire it was introduced with: the handshake for 2025-11-25 ones, the
    // stateless 2026-07-28 wire for the newer ones.
    SuiteVersion {
        label: "2026-07-28",
        package: "conformance-2026-07-28",
        args: &["--suite", "all"],
    },
    // Beyond suite `core`: every client scenario the 2026-07-28 revision requires (request
    // metadata, multi round-trip, custom headers, JSON Schema handling), at the 2026-07-28 wire.
    SuiteVersion {
        label: "2026-07-28-required",
        package: "conformance-2026-07-28",
        args: &["--requirements", "2026-07-28"],
    },
    // The authorization extensions: DPoP (with nonces), client credentials (secret and
    // private_key_jwt), enterprise-managed authorization, workload identity.
    SuiteVersion {
        label: "extensions",
        package: "conformance-2026-07-28",
        args: &["--suite", "extensions"],
    },
];

/// Authorization scenarios that have no place in a person's browser, with the reason.
pub const NOT_APPLICABLE: &[(&str, &str)] = &[(
    "auth/wif-jwt-bearer",
    "workload identity federation: a workload's own JWT from its platform, which a browser has not",
)];

fn not_applicable(scenario: &str) -> Option<&'static str> {
    NOT_APPLICABLE.iter().find(|(name, _)| *name == scenario).map(|(_, why)| *why)
}

/// What the driver prints last when a scenario went through.
const DRIVER_OK: &str = "conformance driver: ";

/// The outcome of one scenario as the suite summarised it, plus what we read from its files.
#[derive(Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub passed: u32,
    pub failed: u32,
    pub warnings: u32,
    /// The suite said "skipped" (not applicable at this spec version).
    pub skipped: bool,
}

impl Scenario {
    fn is_auth(&self) -> bool {
        self.name.starts_with("auth/")
    }
}

/// `cargo xtask conformance`.
pub fn main() -> Result {
    let tally = run()?;
    println!("{} passed, {} failed", tally.passed, tally.failed);
    if tally.failed > 0 || tally.passed == 0 {
        Err("conformance checks failed".into())
    } else {
        Ok(())
    }
}

/// Builds the driver, runs the suites one after another and prints a table per scenario; the
/// tally of all checks.
pub fn run() -> Result<Tally> {
    cargo().args(["build", "-p", "gemipanel-tests", "--bin", "conformance"]).run()?;
    let driver = util::target_dir().join("debug").join("conformance");
    let driver = driver.to_string_lossy().into_owned();
    // The suite splits --command on spaces before handing it to a shell.
    if driver.contains(char::is_whitespace) {
        return Err(format!("the driver path `{driver}` contains spaces; set CARGO_TARGET_DIR"));
    }
    // One suite at a time: `sse-retry` (in two of them) times the client's reconnection against
    // a tolerance of 200 ms, and with all four at once on two cores it came 207 and 346 ms late.
    // The four take seconds.
    let outcomes = VERSIONS.iter().map(|version| (version, run_version(version, &driver)));
    let mut total = Tally::default();
    for (version, outcome) in outcomes {
        let (tally, table) = match outcome {
            Ok(results) => report(version.label, &results),
            Err(message) => (
                Tally { passed: 0, failed: 1 },
                format!("could not run {}: {message}\n", version.label),
            ),
        };
        eprint!("{table}");
        total += tally;
    }
    Ok(total)
}

/// A scenario with the checks read from its result folder.
struct ScenarioResult {
    scenario: Scenario,
    driver_ok: bool,
    failing: Vec<String>,
}

fn run_version(version: &SuiteVersion, driver: &str) -> Result<Vec<ScenarioResult>> {
    let out_dir = util::target_dir().join("conformance").join(version.label);
    if out_dir.exists() {
        std::fs::remove_dir_all(&out_dir)
            .map_err(|e| format!("clearing {}: {e}", out_dir.display()))?;
    }
    let entry = util::tests_dir().join("node_modules").join(version.package).join("dist/index.js");
    // Captured, not echoed: the table per scenario is what a person reads.
    let output = Command::new(util::node_bin("node"))
        .arg(&entry)
        .args(["client", "--command", driver, "-o"])
        .arg(&out_dir)
        .args(version.args)
        .current_dir(util::tests_dir())
        .output()
        .map_err(|e| format!("could not start node for suite {}: {e}", version.label))?;
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let scenarios = parse_summary(&output);
    if scenarios.is_empty() {
        let tail: Vec<&str> = output.lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!("the suite printed no summary:\n{}", tail.join("\n")));
    }
    let folders = result_folders(&out_dir);
    Ok(scenarios
        .into_iter()
        .map(|scenario| {
            let folder = folders.get(&scenario.name);
            let driver_ok = folder.is_some_and(|f| driver_succeeded(f, &scenario.name));
            let failing = folder
                .and_then(|f| std::fs::read_to_string(f.join("checks.json")).ok())
                .map(|json| failing_checks(&json))
                .unwrap_or_default();
            ScenarioResult { scenario, driver_ok, failing }
        })
        .collect())
}

/// The table of one suite version and its tally.
fn report(label: &str, results: &[ScenarioResult]) -> (Tally, String) {
    let mut tally = Tally::default();
    let mut table = format!("\nconformance {label}:\n");
    let mut skipped = Vec::new();
    let (mut passed_scenarios, mut applicable) = (0, 0);
    let (mut auth_passed, mut auth_counted) = (0, 0);
    for ScenarioResult { scenario, driver_ok, failing } in results {
        if let Some(why) = not_applicable(&scenario.name) {
            skipped.push(format!("{} ({why})", scenario.name));
            continue;
        }
        if scenario.skipped {
            table.push_str(&format!("  -  {:<40} skipped by the suite\n", scenario.name));
            continue;
        }
        let passed = scenario.passed + u32::from(*driver_ok);
        let failed = scenario.failed + scenario.warnings + u32::from(!driver_ok);
        let mark = if failed == 0 { "ok" } else { "FAIL" };
        table.push_str(&format!(
            "  {mark:<4} {:<40} {passed} passed, {failed} failed\n",
            scenario.name
        ));
        if !driver_ok {
            table.push_str("         - the driver did not exit cleanly (see its stderr.txt)\n");
        }
        for check in failing {
            table.push_str(&format!("         - {check}\n"));
        }
        applicable += 1;
        passed_scenarios += u32::from(failed == 0);
        if scenario.is_auth() {
            auth_counted += 1;
            auth_passed += u32::from(failed == 0);
        }
        tally += Tally { passed, failed };
    }
    if !skipped.is_empty() {
        table.push_str(&format!("  run, not counted ({}):\n", skipped.len()));
        for line in skipped {
            table.push_str(&format!("    {line}\n"));
        }
    }
    table.push_str(&format!(
        "  {label}: {passed_scenarios} of {applicable} applicable scenarios pass \
         (authorization: {auth_passed} of {auth_counted}); checks: {} passed, {} failed\n",
        tally.passed, tally.failed
    ));
    (tally, table)
}

/// Reads the suite's `=== SUITE SUMMARY ===` block:
/// `✓ name: 1 passed, 0 failed`, `✗ name: 0 passed, 5 failed, 1 warnings`, `- name: skipped`.
pub fn parse_summary(output: &str) -> Vec<Scenario> {
    let Some(start) = output.find("=== SUITE SUMMARY ===") else {
        return Vec::new();
    };
    let mut scenarios = Vec::new();
    for line in output[start..].lines().skip(1) {
        let line = line.trim();
        if line.starts_with("Total:") {
            break;
        }
        let Some(rest) = line
            .strip_prefix("✓ ")
            .or_else(|| line.strip_prefix("✗ "))
            .or_else(|| line.strip_prefix("- "))
        else {
            continue;
        };
        let Some((name, counts)) = rest.rsplit_once(": ") else { continue };
        let count = |label: &str| {
            counts
                .split(", ")
                .find_map(|part| part.strip_suffix(label)?.trim().parse().ok())
                .unwrap_or(0)
        };
        scenarios.push(Scenario {
            name: name.to_owned(),
            passed: count(" passed"),
            failed: count(" failed"),
            warnings: count(" warnings"),
            skipped: counts.trim() == "skipped",
        });
    }
    scenarios
}

/// `FAILURE` and `WARNING` checks of a `checks.json`, as `name: message` lines.
pub fn failing_checks(json: &str) -> Vec<String> {
    let Ok(serde_json::Value::Array(checks)) = serde_json::from_str(json) else {
        return vec!["checks.json is not a JSON array".into()];
    };
    checks
        .iter()
        .filter(|c| matches!(c["status"].as_str(), Some("FAILURE" | "WARNING")))
        .map(|c| {
            let name = c["name"].as_str().or(c["id"].as_str()).unwrap_or("?");
            let why = c["errorMessage"]
                .as_str()
                .or(c["details"]["message"].as_str())
                .or(c["description"].as_str())
                .unwrap_or("");
            let why: String = why.lines().next().unwrap_or("").chars().take(160).collect();
            format!("{} {name}: {why}", c["status"].as_str().unwrap_or(""))
        })
        .collect()
}

/// Result folders by scenario: the suite names them `<scenario>-<timestamp>`, auth ones nested
/// (`auth/metadata-default-2026-…`).
fn result_folders(out_dir: &Path) -> BTreeMap<String, PathBuf> {
    let mut folders = BTreeMap::new();
    let mut pending = vec![out_dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if !path.is_dir() {
                continue;
            }
            if path.join("checks.json").is_file() {
                let relative = path.strip_prefix(out_dir).unwrap_or(&path);
                if let Some(name) = scenario_of_folder(&relative.to_string_lossy()) {
                    folders.insert(name, path.clone());
                }
            } else {
                pending.push(path);
            }
        }
    }
    folders
}

/// `tools_call-2026-11-22T03-27-31-585Z` → `tools_call`.
pub fn scenario_of_folder(relative: &str) -> Option<String> {
    // The timestamp is `YYYY-MM-DDTHH-MM-SS-mmmZ`: 24 characters after the dash.
    const STAMP: usize = "-2026-11-22T03-27-31-585Z".len();
    let relative = relative.replace('\\', "/");
    let split = relative.len().checked_sub(STAMP)?;
    let (name, stamp) = relative.split_at(split);
    let looks_like_stamp = stamp.starts_with('-') && stamp.ends_with('Z') && stamp.contains('T');
    (looks_like_stamp && !name.is_empty()).then(|| name.to_owned())
}

fn driver_succeeded(folder: &Path, scenario: &str) -> bool {
    std::fs::read_to_string(folder.join("stdout.txt"))
        .is_ok_and(|out| driver_said_ok(&out, scenario))
}

/// The driver's last stdout line is `conformance driver: <scenario> ok` when it exited cleanly.
pub fn driver_said_ok(stdout: &str, scenario: &str) -> bool {
    stdout.lines().rev().find(|l| !l.trim().is_empty()).is_some_and(|last| {
        last.trim().strip_prefix(DRIVER_OK).and_then(|r| r.strip_suffix(" ok")) == Some(scenario)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUMMARY: &str = include_str!("../fixtures/conformance/summary-2025-11-25.txt");
    const ELICITATION_CHECKS: &str =
        include_str!("../fixtures/conformance/elicitation-checks.json");

    #[test]
    fn the_suite_summary_is_read_scenario_by_scenario() {
        let scenarios = parse_summary(SUMMARY);
        assert_eq!(scenarios.len(), 18);
        assert_eq!(
            scenarios[0],
            Scenario {
                name: "initialize".into(),
                passed: 1,
                failed: 0,
                warnings: 0,
                skipped: false
            }
        );
        let sse = scenarios.iter().find(|s| s.name == "sse-retry").unwrap();
        assert_eq!((sse.passed, sse.failed), (3, 0));
        let elicitation = &scenarios[2];
        assert_eq!(elicitation.name, "elicitation-sep1034-client-defaults");
        assert_eq!((elicitation.passed, elicitation.failed), (0, 6));
        assert_eq!(scenarios.iter().filter(|s| s.is_auth()).count(), 14);
    }

    #[test]
    fn warnings_and_skips_are_read() {
        let out = "noise\n=== SUITE SUMMARY ===\n\n✗ sse-retry: 2 passed, 0 failed, 1 warnings\n\
                   - initialize: skipped\n\nTotal: 2 passed, 0 failed, 1 warnings, 1 skipped\n\
                   ✓ after-total: 9 passed, 0 failed\n";
        let scenarios = parse_summary(out);
        assert_eq!(scenarios.len(), 2);
        assert_eq!((scenarios[0].passed, scenarios[0].warnings), (2, 1));
        assert!(scenarios[1].skipped);
        assert!(parse_summary("the suite crashed before its summary").is_empty());
    }

    #[test]
    fn failing_checks_name_the_check_and_the_reason() {
        let failing = failing_checks(ELICITATION_CHECKS);
        assert_eq!(failing.len(), 6, "{failing:#?}");
        assert!(failing[0].contains("ClientElicitationSEP1034General"), "{}", failing[0]);
        assert!(failing[1].contains("Tool was not called by client"), "{}", failing[1]);
        assert!(failing.iter().all(|f| f.starts_with("FAILURE ")));
        assert_eq!(failing_checks("not json"), vec!["checks.json is not a JSON array"]);
    }

    #[test]
    fn the_table_counts_auth_scenarios_and_lists_those_that_do_not_apply() {
        let results = vec![
            ScenarioResult {
                scenario: Scenario {
                    name: "tools_call".into(),
                    passed: 2,
                    failed: 0,
                    warnings: 0,
                    skipped: false,
                },
                driver_ok: true,
                failing: vec![],
            },
            ScenarioResult {
                scenario: Scenario {
                    name: "sse-retry".into(),
                    passed: 2,
                    failed: 0,
                    warnings: 1,
                    skipped: false,
                },
                driver_ok: false,
                failing: vec!["WARNING ClientSendsLastEventId: no id".into()],
            },
            ScenarioResult {
                scenario: Scenario {
                    name: "auth/metadata-default".into(),
                    passed: 19,
                    failed: 0,
                    warnings: 0,
                    skipped: false,
                },
                driver_ok: true,
                failing: vec![],
            },
            ScenarioResult {
                scenario: Scenario {
                    name: "auth/client-credentials-basic".into(),
                    passed: 8,
                    failed: 2,
                    warnings: 0,
                    skipped: false,
                },
                driver_ok: false,
                failing: vec![],
            },
            ScenarioResult {
                scenario: Scenario {
                    name: "auth/wif-jwt-bearer".into(),
                    passed: 0,
                    failed: 3,
                    warnings: 0,
                    skipped: false,
                },
                driver_ok: true,
                failing: vec![],
            },
        ];
        let (tally, table) = report("2026-07-28", &results);
        assert_eq!(tally, Tally { passed: 33, failed: 5 });
        assert!(table.contains("ok   tools_call"), "{table}");
        assert!(table.contains("FAIL sse-retry"), "{table}");
        assert!(table.contains("ok   auth/metadata-default"), "{table}");
        assert!(table.contains("FAIL auth/client-credentials-basic"), "{table}");
        assert!(table.contains("auth/wif-jwt-bearer (workload identity federation"), "{table}");
        assert!(
            table.contains("2 of 4 applicable scenarios pass (authorization: 1 of 2)"),
            "{table}"
        );
    }

    #[test]
    fn result_folders_map_back_to_scenarios() {
        assert_eq!(
            scenario_of_folder("tools_call-2026-11-22T03-27-31-585Z").as_deref(),
            Some("tools_call")
        );
        assert_eq!(
            scenario_of_folder("auth/metadata-var1-2026-11-22T03-13-19-804Z").as_deref(),
            Some("auth/metadata-var1")
        );
        assert_eq!(scenario_of_folder("short"), None);
        assert_eq!(scenario_of_folder("no-timestamp-at-the-end-of-this-name"), None);
    }

    #[test]
    fn only_the_drivers_own_last_line_counts_as_a_clean_exit() {
        assert!(driver_said_ok("conformance driver: sse-retry ok\n\n", "sse-retry"));
        assert!(!driver_said_ok("conformance driver: sse-retry ok\nlater noise\n", "sse-retry"));
        assert!(!driver_said_ok("conformance driver: initialize ok\n", "sse-retry"));
        assert!(!driver_said_ok("", "sse-retry"));
    }
}
