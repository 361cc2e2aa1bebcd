//! Property tests of every decoder of outside data, and of the streaming parsers.
//!
//! Each property runs `PROPTEST_CASES` cases (256 when unset): `cargo xtask test` runs this quick
//! pass with the native suite, `cargo xtask fuzz` the long one (a million cases each, release
//! build) and reads the `property <name>: <n> cases` line every property prints. A failure
//! prints the smallest input proptest found and the seed that reproduces it; a case that runs
//! for more than [`support::HANG_AFTER`] aborts the run, naming the property and the case.
//!
//! Three kinds of property:
//! - nothing panics: arbitrary bytes, text and JSON values (free ones, and documents of the
//!   right shape with a few parts replaced, removed or added) into every decoder;
//! - round trips: values from strategies written here for core's types (core has no proptest
//!   derives) serialise and read back equal;
//! - streams: input cut at arbitrary offsets gives what the uncut input gives, in work
//!   proportional to its length.
//!
//! Bugs found by these properties are kept as plain regression tests next to them.

mod gemini;
mod json;
mod mcp;
mod messages;
mod settings;
mod streams;
mod support;
mod urls;
