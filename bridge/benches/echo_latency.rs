//! Echo latency through the bridge against the official TypeScript SDK's stdio client.
//!
//! One path: a Rust client writes framed messages to the real bridge binary, which relays them
//! to server-everything (stdio) and back. The other: `tests/bench/stdio_echo.mjs`, the SDK's
//! `Client` over `StdioClientTransport` to its own server-everything. Each client has its own
//! server process (a stdio server serves one client); both are warmed up first, then blocks of
//! calls alternate between them, the order flipping every round, so a busy moment of the
//! machine hits both alike. The comparison runs REPEATS times; the figures are those of the
//! median pass, with the spread of the ratio. Prints `name=value` lines for `cargo xtask bench`.
//!
//! The bridge is built with the release profile, as it ships. The browser's hop (Chrome
//! relaying frames between the worker and the bridge) is not in this figure.

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::json;
use support::{tests_dir, tool_text, Bridge};

const CALLS: usize = 500;
const BLOCK: usize = 25;
const REPEATS: usize = 3;
const WARMUP: usize = 50;

fn main() {
    let mut bridge = Bridge::start();
    bridge.start_server("everything", support::everything());
    bridge.initialize("everything");
    let mut id = 0;
    let mut bridge_echo = |bridge: &mut Bridge| {
        id += 1;
        let start = Instant::now();
        let args = json!({"name": "echo", "arguments": {"message": "hello"}});
        let reply = bridge.call("everything", json!(id), "tools/call", args);
        let micros = start.elapsed().as_secs_f64() * 1e6;
        assert_eq!(tool_text(&reply), "Echo: hello");
        micros
    };
    for _ in 0..WARMUP {
        bridge_echo(&mut bridge);
    }

    let mut node = Command::new(tests_dir().join("node_modules/.bin/node"))
        .arg(tests_dir().join("bench/stdio_echo.mjs"))
        .current_dir(tests_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node starts");
    let mut to_node = node.stdin.take().expect("piped");
    let mut from_node = BufReader::new(node.stdout.take().expect("piped")).lines();
    let mut node_line = || from_node.next().and_then(Result::ok).expect("the SDK client answers");
    assert_eq!(node_line(), "ready");
    let mut sdk_block = |n: usize| -> Vec<f64> {
        writeln!(to_node, "{n}").expect("the SDK client reads");
        node_line().split_whitespace().map(|s| s.parse().expect("a number")).collect()
    };

    let mut passes = Vec::new();
    for _ in 0..REPEATS {
        let (mut ours, mut sdk) = (Vec::new(), Vec::new());
        for round in 0..CALLS / BLOCK {
            let mut bridge_block = |ours: &mut Vec<f64>| {
                ours.extend((0..BLOCK).map(|_| bridge_echo(&mut bridge)));
            };
            if round % 2 == 0 {
                bridge_block(&mut ours);
                sdk.extend(sdk_block(BLOCK));
            } else {
                sdk.extend(sdk_block(BLOCK));
                bridge_block(&mut ours);
            }
        }
        let (ours, sdk) = (median(&mut ours), median(&mut sdk));
        passes.push((ours / sdk, ours, sdk));
    }
    // The end of its input ends the SDK client, which closes its server.
    drop(to_node);
    let _ = node.wait();
    passes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (ratio, ours, sdk) = passes[passes.len() / 2];
    println!("bridge_stdio_echo_p50_us={ours:.0}");
    println!("sdk_stdio_echo_p50_us={sdk:.0}");
    println!("bridge_vs_sdk_stdio_echo_p50_ratio={ratio:.2}");
    println!(
        "bridge_vs_sdk_stdio_echo_p50_ratio_spread={:.2}..{:.2}",
        passes[0].0,
        passes[passes.len() - 1].0
    );
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
