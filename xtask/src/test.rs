//! `cargo xtask test`: every suite, then one `N passed, N failed` line.
//!
//! Suites run even when an earlier one failed, so one run shows everything that is broken. A
//! suite that cannot run at all (build error, crash) counts as one failure.

use crate::util::{self, cargo, Cmd, Result, CHROMEDRIVER};
use crate::{dist, setup};

#[derive(Default, Debug, PartialEq)]
pub struct Tally {
    pub passed: u32,
    pub failed: u32,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        self.passed += other.passed;
        self.failed += other.failed;
    }
}

type Suite = fn() -> Result<Tally>;

pub fn run(args: &[String]) -> Result {
    if !setup::is_complete() {
        setup::run()?;
    }
    let only = args.first().map(String::as_str);
    let mut total = Tally::default();
    let mut problems = Vec::new();
    let suites: [(&str, Suite); 6] = [
        ("lint", lint),
        ("native", native),
        ("wasm", wasm),
        ("node", node),
        ("e2e", e2e),
        ("conformance", conformance),
    ];
    for (name, suite) in suites {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        eprintln!("\n=== {name} tests ===");
        match suite() {
            Ok(tally) => {
                eprintln!("=== {name}: {} passed, {} failed ===", tally.passed, tally.failed);
                if tally.failed > 0 || tally.passed == 0 {
                    problems.push(name);
                }
                total += tally;
            }
            Err(message) => {
                eprintln!("=== {name}: could not run: {message} ===");
                problems.push(name);
                total.failed += 1;
            }
        }
    }
    println!("{} passed, {} failed", total.passed, total.failed);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("failing suites: {}", problems.join(", ")))
    }
}

/// `cargo fmt --check`, and clippy with warnings as errors over every crate and target: the
/// native crates natively, the wasm crates for wasm32. Each is one check.
fn lint() -> Result<Tally> {
    let checks: [(&str, Cmd); 3] = [
        ("cargo fmt --check", cargo().args(["fmt", "--all", "--check"])),
        (
            "clippy (native crates)",
            cargo()
                .args(["clippy", "--workspace", "--all-targets"])
                .args(WASM_ONLY.iter().flat_map(|c| ["--exclude", c]))
                .args(["--", "-D", "warnings"]),
        ),
        (
            "clippy (wasm crates)",
            cargo()
                .args(["clippy", "--target", "wasm32-unknown-unknown", "--all-targets"])
                .args(WASM_CRATES.iter().flat_map(|c| ["-p", c]))
                .args(["--", "-D", "warnings"]),
        ),
    ];
    let mut tally = Tally::default();
    for (name, check) in checks {
        let (ok, _) = check.run_tee()?;
        eprintln!("{name}: {}", if ok { "clean" } else { "FAILED" });
        if ok {
            tally.passed += 1;
        } else {
            tally.failed += 1;
        }
    }
    Ok(tally)
}

/// The crates that build for wasm32 only (they bind the browser's APIs).
const WASM_ONLY: [&str; 4] =
    ["gemipanel-browser", "gemipanel-background", "gemipanel-apphost", "gemipanel-bench-client"];

/// Every crate that builds for wasm32.
const WASM_CRATES: [&str; 6] = [
    "gemipanel-browser",
    "gemipanel-background",
    "gemipanel-apphost",
    "gemipanel-sidepanel",
    "gemipanel-popup",
    "gemipanel-bench-client",
];

/// Core's property tests run their quick pass here (`cargo xtask fuzz` runs the long one).
fn native() -> Result<Tally> {
    let (ok, out) = cargo()
        // Every test binary runs even when one fails: one run shows everything broken.
        .args(["test", "--no-fail-fast", "-p", "gemipanel-core", "-p", "gemipanel-tests"])
        .args(["-p", "xtask"])
        .args(["-p", "gemipanel-sidepanel", "-p", "gemipanel-popup", "-p", "gemipanel-bridge"])
        .env("PROPTEST_CASES", crate::fuzz::QUICK_CASES.to_string())
        .run_tee()?;
    finish(ok, parse_cargo_test(&out))
}

/// In Chromium: the browser crate's tests, and core's URL tables against the browser's parser
/// (the same tables run natively against the `url` crate).
fn wasm() -> Result<Tally> {
    let selections: [&[&str]; 2] = [
        &["-p", "gemipanel-browser"],
        &["-p", "gemipanel-core", "--test", "web_url", "--test", "url_policy"],
    ];
    let mut tally = Tally::default();
    let mut errors = Vec::new();
    for selection in selections {
        match wasm_tests(selection) {
            Ok(t) => tally += t,
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(tally)
    } else {
        Err(errors.join("; "))
    }
}

fn wasm_tests(selection: &[&str]) -> Result<Tally> {
    let run = || {
        cargo()
            .args(["test", "--target", "wasm32-unknown-unknown"])
            .args(selection)
            .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", "wasm-bindgen-test-runner")
            .env("CHROMEDRIVER", CHROMEDRIVER)
            .run_tee()
    };
    let (mut ok, mut out) = run()?;
    // The runner gives ChromeDriver a few seconds to listen and kills it after that: a start
    // that slow is the machine's, not a test's, so it gets one more start.
    if !ok && driver_did_not_start(&out) {
        eprintln!("ChromeDriver did not start in time; starting the wasm tests once more");
        (ok, out) = run()?;
    }
    finish(ok, parse_cargo_test(&out))
}

/// Whether wasm-bindgen-test-runner gave up before any test ran because ChromeDriver did not
/// listen in time.
fn driver_did_not_start(output: &str) -> bool {
    output.contains("driver failed to bind port during startup") && !output.contains("test result:")
}

/// Node tests of the test fixtures themselves (the fake Gemini against the official SDK, the
/// oidc-provider fixture and its page-filling helper in Chromium).
fn node() -> Result<Tally> {
    node_test(&util::tests_dir().join("e2e-node"))
}

/// The built extension in Chromium (and the demo MCP server some tests start).
fn e2e() -> Result<Tally> {
    dist::run()?;
    // The store package, which tests/e2e/store_package.test.mjs unzips and loads.
    crate::store::package_built()?;
    cargo().args(["build", "-p", "gemipanel-demo", "-p", "gemipanel-bridge"]).run()?;
    node_test(&util::tests_dir().join("e2e"))
}

/// The official MCP conformance suites against the native driver of the client.
fn conformance() -> Result<Tally> {
    crate::conformance::run()
}

fn node_test(dir: &std::path::Path) -> Result<Tally> {
    let out_dir = util::target_dir().join("e2e");
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("creating {}: {e}", out_dir.display()))?;
    let (ok, out) = Cmd::new("node")
        .args(["--test", "--test-concurrency=1", "--test-reporter=tap"])
        .args(test_files(dir)?)
        .env("GEMIPANEL_DIST", util::dist_dir())
        .env("GEMIPANEL_EXTENSION_ID", util::extension_id()?)
        .env("GEMIPANEL_OUT", &out_dir)
        .dir(util::root())
        .run_tee()?;
    finish(ok, parse_node_tap(&out))
}

/// The `*.test.mjs` files of a folder, sorted so runs are repeatable.
fn test_files(dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("reading {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    Ok(files)
}

/// A runner that failed without reporting a failing test still failed.
fn finish(ok: bool, tally: Tally) -> Result<Tally> {
    if !ok && tally.failed == 0 {
        return Err("the test runner failed before reporting results".into());
    }
    Ok(tally)
}

/// Sums cargo's `test result: ok. 5 passed; 0 failed; …` lines.
pub fn parse_cargo_test(output: &str) -> Tally {
    let mut tally = Tally::default();
    for line in output.lines().filter(|l| l.trim_start().starts_with("test result:")) {
        tally.passed += number_before(line, " passed");
        tally.failed += number_before(line, " failed");
    }
    tally
}

/// Reads the `# pass N` / `# fail N` summary of node's TAP reporter.
pub fn parse_node_tap(output: &str) -> Tally {
    let mut tally = Tally::default();
    for line in output.lines() {
        if let Some(n) = line.strip_prefix("# pass ") {
            tally.passed += n.trim().parse().unwrap_or(0);
        } else if let Some(n) = line.strip_prefix("# fail ") {
            tally.failed += n.trim().parse().unwrap_or(0);
        }
    }
    tally
}

fn number_before(line: &str, label: &str) -> u32 {
    let Some(end) = line.find(label) else { return 0 };
    let digits: String = line[..end]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_results_are_summed_over_all_test_binaries() {
        let out = "running 5 tests\n\
            test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\
            test result: FAILED. 12 passed; 3 failed; 1 ignored; 0 measured; 0 filtered out\n\
            test result: ok. 0 passed; 0 failed; 0 ignored\n";
        assert_eq!(parse_cargo_test(out), Tally { passed: 17, failed: 3 });
    }

    #[test]
    fn only_a_driver_that_never_started_is_started_again() {
        let slow = "driver status: signal: 9 (SIGKILL)\nError: driver failed to bind port during startup\n";
        assert!(driver_did_not_start(slow));
        let ran = "test result: FAILED. 1 passed; 1 failed;\nError: driver failed to bind port during startup";
        assert!(!driver_did_not_start(ran));
        assert!(!driver_did_not_start("test result: FAILED. 0 passed; 1 failed;"));
    }

    #[test]
    fn node_tap_summary_is_read() {
        let out = "TAP version 13\nok 1 - loads\n1..4\n# tests 4\n# suites 0\n# pass 3\n# fail 1\n# cancelled 0\n";
        assert_eq!(parse_node_tap(out), Tally { passed: 3, failed: 1 });
    }

    #[test]
    fn a_runner_that_crashed_without_results_is_an_error() {
        assert!(finish(false, Tally::default()).is_err());
        assert_eq!(
            finish(false, Tally { passed: 1, failed: 2 }),
            Ok(Tally { passed: 1, failed: 2 })
        );
    }
}
