//! `cargo xtask <task>`: the project's build, run and test automation. Only cargo is needed to
//! start it; every tool it uses is installed by `setup`.

mod bench;
mod conformance;
mod dist;
mod fuzz;
mod module_cycles;
mod readable_text;
mod run;
mod setup;
mod store;
mod test;
mod tidy;
mod tidy_size;
mod util;
mod wasm_size;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  setup   install what the build and the tests need (idempotent)
  dist    build the extension into dist/ and print the wasm sizes
  dist --store  dist, then the Chrome Web Store package target/store/gemipanel-<version>.zip
  store   that package from the dist/ already built
  run     setup + dist, then open Chromium with the extension loaded
  test    setup, then every test suite; ends with `N passed, N failed`
  conformance  the official MCP conformance suites (2025-11-25, 2026-07-28) against the client
  fuzz [cases]  core's property tests with a million cases each (or [cases]); prints the counts
  bench [readable_text]  performance and size figures (or only the page reader's, on the
          dist/ already built)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup::run(),
        Some("dist") if args.get(1).map(String::as_str) == Some("--store") => store::run(),
        Some("dist") => dist::run().map(|_| ()),
        Some("store") => store::package_built().map(|_| ()),
        Some("run") => run::run(),
        Some("test") => test::run(&args[1..]),
        Some("conformance") => conformance::main(),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("bench") if args.get(1).map(String::as_str) == Some("readable_text") => {
            bench::readable_text_only()
        }
        Some("bench") => bench::run(),
        Some("help" | "--help" | "-h") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown task `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
