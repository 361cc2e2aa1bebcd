//! The tool budget on the recorded corpus (456 tools of 21 published MCP servers) and the 100
//! requests written for it: recall (the needed tool is declared, or one `search_tools` call
//! with the request's words finds it) and the size of the `tools` member sent, against sending
//! every tool. Run by `cargo xtask bench`; prints `name=value` lines.

#[path = "../tests/support/tool_corpus.rs"]
mod tool_corpus;

use std::time::Instant;

use gemipanel_core::gemini::budget::Budget;

use tool_corpus::{catalog, corpus, exposed, requests, run, tools_bytes};

fn main() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let build = Instant::now();
    let catalog = catalog(&exposed, Budget::default());
    let build_ms = build.elapsed().as_secs_f64() * 1000.0;
    let requests = requests();

    let mut sent_hits = 0;
    let mut hits = 0;
    let mut sizes = Vec::new();
    let mut select_us = Vec::new();
    for request in &requests {
        let start = Instant::now();
        let outcome = run(&exposed, &catalog, request);
        select_us.push(start.elapsed().as_secs_f64() * 1e6);
        sent_hits += usize::from(outcome.hit_sent);
        hits += usize::from(outcome.hit_sent || outcome.hit_search);
        sizes.push(outcome.request_bytes);
    }
    sizes.sort_unstable();
    select_us.sort_by(f64::total_cmp);
    let all_bytes = tools_bytes(catalog.declarations().cloned().collect());
    let median = sizes[sizes.len() / 2];
    let n = requests.len() as f64;

    println!("tool corpus: {} tools, {} requests", catalog.len(), requests.len());
    println!("tool_budget_recall_pct={:.0}", 100.0 * hits as f64 / n);
    println!("tool_budget_recall_declared_only_pct={:.0}", 100.0 * sent_hits as f64 / n);
    println!("tool_budget_request_median_kb={:.1}", median as f64 / 1024.0);
    println!("tool_budget_every_tool_kb={:.1}", all_bytes as f64 / 1024.0);
    println!("tool_budget_size_ratio_pct={:.1}", 100.0 * median as f64 / all_bytes as f64);
    println!("tool_budget_catalog_build_ms={build_ms:.1}");
    println!("tool_budget_select_and_search_median_us={:.0}", select_us[select_us.len() / 2]);
}
