//! `cargo xtask fuzz [cases]`: core's property tests (`core/tests/props`) with a million cases
//! each instead of the quick pass `cargo xtask test` runs, then how many cases each property
//! ran and the total.
//!
//! Release build, tuned for running rather than for size: the workspace's release profile
//! (`opt-level = "z"`, fat LTO, one codegen unit) is the wasm's, slow to build and slower to
//! run; the overrides below apply to this build only.

use std::time::Instant;

use crate::util::{cargo, Result};

/// Cases per property in the long run.
pub const CASES: u64 = 1_000_000;

/// Cases per property in `cargo xtask test` (proptest's default).
pub const QUICK_CASES: u64 = 256;

pub fn run(args: &[String]) -> Result {
    let cases = match args.first() {
        Some(n) => n.parse().map_err(|_| format!("`{n}` is not a number of cases"))?,
        None => CASES,
    };
    let started = Instant::now();
    let (ok, out) = cargo()
        .args(["test", "--release", "-p", "gemipanel-core", "--test", "props"])
        .args(["--", "--nocapture"])
        .env("PROPTEST_CASES", cases.to_string())
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3")
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .run_tee()?;
    let mut counts = case_counts(&out);
    counts.sort();
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    println!();
    for (name, n) in &counts {
        println!("{name:<28} {n:>10} cases");
    }
    println!(
        "{} properties, {total} cases in {:.0} s",
        counts.len(),
        started.elapsed().as_secs_f64()
    );
    let short: Vec<&str> =
        counts.iter().filter(|(_, n)| *n < cases).map(|(name, _)| name.as_str()).collect();
    if !ok {
        Err("a property failed (its smallest input and seed are above)".into())
    } else if counts.is_empty() {
        Err("no property reported its cases".into())
    } else if !short.is_empty() {
        Err(format!("fewer than {cases} cases: {}", short.join(", ")))
    } else {
        Ok(())
    }
}

/// The `property <name>: <n> cases` lines the property tests print.
pub fn case_counts(output: &str) -> Vec<(String, u64)> {
    output
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("property ")?.strip_suffix(" cases")?;
            let (name, n) = rest.split_once(": ")?;
            Some((name.to_owned(), n.parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_counts_are_read_from_the_test_output() {
        let out = "running 3 tests\n\
            property sse_split: 1000000 cases\n\
            test streams::sse_split ... ok\n\
            property settings_load: 999 cases\n\
            property sse_split failed: assertion failed\n\
            test result: ok. 3 passed; 0 failed\n";
        assert_eq!(
            case_counts(out),
            [("sse_split".to_owned(), 1_000_000), ("settings_load".to_owned(), 999)]
        );
    }
}
