//! `cargo xtask bench`: the figures the issues ask for, in one run. Benchmarks report numbers;
//! they do not pass or fail.

use std::path::{Path, PathBuf};

use crate::util::{self, cargo, Cmd, Result};
use crate::{dist, setup};

pub fn run() -> Result {
    if !setup::is_complete() {
        setup::run()?;
    }
    let mut figures = Vec::new();
    figures.extend(sse_throughput()?);
    figures.extend(bridge_echo()?);
    figures.extend(tool_budget()?);
    let sizes = dist::run()?;
    for size in sizes {
        figures.push((
            format!("{}_wasm_gzip_kb", size.name),
            format!("{:.1}", size.gzip as f64 / 1024.0),
        ));
    }
    print_contributors()?;
    let client = bench_client()?;
    figures.extend(browser_bench("mcp_latency.mjs", &[("GEMIPANEL_BENCH_CLIENT", &client)])?);
    figures.extend(browser_bench("stream_render.mjs", &[])?);
    // A file just over its inline limit through the panel's upload, against a plain page (issue 21).
    figures.extend(browser_bench("attachment_upload.mjs", &[])?);
    figures.extend(browser_bench("cold_start.mjs", &[])?);
    // Opening the side panel with both workers asleep, against a plain-JS panel (issue 24).
    figures.extend(browser_bench("panel_open.mjs", &[])?);
    // Memory after a 200-turn chat with ten apps, and after 200 more in a new chat (issue 24).
    figures.extend(browser_bench("memory.mjs", &[])?);
    figures.extend(browser_bench("app_load.mjs", &[])?);
    // Twenty servers, seven of them dead or hanging, against twenty healthy (issue 22).
    figures.extend(browser_bench("dead_servers.mjs", &[])?);
    // Typing after @ while 10,000 resources arrive in pages, against an empty composer (issue 25).
    figures.extend(browser_bench("mention_menu.mjs", &[])?);
    // Searching the history with 1,000 saved chats, against typing in the composer (issue 27).
    figures.extend(browser_bench("history_search.mjs", &[])?);
    // The page reader on scrapinghub's article extraction benchmark (issue 23).
    figures.extend(crate::readable_text::run()?);
    // Local servers through the bridge, the whole way from a page (issue 14).
    cargo().args(["build", "-p", "gemipanel-bridge"]).run()?;
    figures.extend(browser_bench("local_echo.mjs", &[])?);
    println!("\nfigures:");
    for (name, value) in &figures {
        println!("  {name} = {value}");
    }
    Ok(())
}

/// The ten biggest functions and crates of each wasm module (issue 24), from the modules
/// `dist` just built, before wasm-opt (which drops the names; its -Oz shrinks all alike).
fn print_contributors() -> Result {
    let release = util::target_dir().join("wasm32-unknown-unknown").join("release");
    for (krate, name) in dist::WASM_CRATES {
        let module = release.join(format!("{}.wasm", krate.replace('-', "_")));
        let found = crate::wasm_size::contributors(&module)?;
        let kb = |bytes: u64| bytes as f64 / 1024.0;
        println!(
            "\n{name}: the ten biggest crates (KB of code before wasm-opt; data is its segments)"
        );
        for (krate, bytes) in found.crates.iter().take(10) {
            println!("  {:>8.1}  {krate}", kb(*bytes));
        }
        println!("{name}: the ten biggest functions");
        for (function, bytes) in found.functions.iter().take(10) {
            let shown: String = function.chars().take(140).collect();
            println!("  {:>8.1}  {shown}", kb(*bytes));
        }
    }
    Ok(())
}

/// Only the page reader's figures, on the extension already built into dist/.
pub fn readable_text_only() -> Result {
    let figures = crate::readable_text::run()?;
    println!("\nfigures:");
    for (name, value) in &figures {
        println!("  {name} = {value}");
    }
    Ok(())
}

/// Native SSE parser throughput on a 64 MB stream.
fn sse_throughput() -> Result<Vec<(String, String)>> {
    let (ok, out) =
        cargo().args(["bench", "-p", "gemipanel-core", "--bench", "sse_throughput"]).run_tee()?;
    if !ok {
        return Err("the SSE benchmark failed".into());
    }
    Ok(figures_in(&out))
}

/// Echo p50 through the native-messaging bridge (a Rust client, the bridge, server-everything
/// over stdio) against the TypeScript SDK's stdio client, as a ratio from the same run
/// (bridge/benches/echo_latency.rs). The browser's hop to the bridge is not in it.
fn bridge_echo() -> Result<Vec<(String, String)>> {
    let (ok, out) =
        cargo().args(["bench", "-p", "gemipanel-bridge", "--bench", "echo_latency"]).run_tee()?;
    if !ok {
        return Err("the bridge echo benchmark failed".into());
    }
    Ok(figures_in(&out))
}

/// Recall and request size of the tool budget on the recorded corpus of real MCP tools.
fn tool_budget() -> Result<Vec<(String, String)>> {
    let (ok, out) =
        cargo().args(["bench", "-p", "gemipanel-core", "--bench", "tool_budget"]).run_tee()?;
    if !ok {
        return Err("the tool budget benchmark failed".into());
    }
    Ok(figures_in(&out))
}

/// The worker's MCP client built for a page (tests/bench/client), as the release wasm is
/// built: the directory with its wasm-bindgen output.
fn bench_client() -> Result<PathBuf> {
    dist::release_build().args(["-p", "gemipanel-bench-client"]).run()?;
    let out = util::target_dir().join("bench").join("client");
    dist::bind_and_optimize("gemipanel-bench-client", "bench_client", &out)?;
    Ok(out)
}

/// A Node benchmark under tests/bench/ that drives the built extension in Chromium.
fn browser_bench(script: &str, env: &[(&str, &Path)]) -> Result<Vec<(String, String)>> {
    let mut node = Cmd::new("node");
    for (name, value) in env {
        node = node.env(name, value);
    }
    let (ok, out) = node
        .arg(util::tests_dir().join("bench").join(script))
        .env("GEMIPANEL_DIST", util::dist_dir())
        .env("GEMIPANEL_EXTENSION_ID", util::extension_id()?)
        .env("GEMIPANEL_OUT", util::target_dir().join("bench"))
        .dir(util::root())
        .run_tee()?;
    if !ok {
        return Err(format!("the benchmark {script} failed"));
    }
    Ok(figures_in(&out))
}

/// Lines of the form `name=value` that the benchmark programs print.
pub(crate) fn figures_in(output: &str) -> Vec<(String, String)> {
    output
        .lines()
        .filter_map(|line| line.trim().split_once('='))
        .filter(|(name, _)| {
            !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit())
        })
        .map(|(name, value)| (name.to_owned(), value.trim().to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn figures_are_read_from_name_value_lines() {
        let out =
            "Compiling x\nsse parser: 64 MB\nsse_throughput_mb_s=512\n  p50_ratio=0.93\nA=b\n";
        assert_eq!(
            super::figures_in(out),
            vec![
                ("sse_throughput_mb_s".to_owned(), "512".to_owned()),
                ("p50_ratio".to_owned(), "0.93".to_owned())
            ]
        );
    }
}
