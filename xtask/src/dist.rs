//! `cargo xtask dist`: builds the extension into dist/, loadable with "Load unpacked".

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::util::{self, cargo, node_bin, Cmd, Result};

/// The wasm crates and the name of their output in dist/wasm/.
pub const WASM_CRATES: [(&str, &str); 4] = [
    ("gemipanel-background", "background"),
    ("gemipanel-sidepanel", "sidepanel"),
    ("gemipanel-popup", "popup"),
    // Loaded by the side panel the first time a chat shows an MCP App.
    ("gemipanel-apphost", "apphost"),
];

/// Gzip ceilings in KB, against bloat rather than targets to golf (issue 11): over one, the build
/// fails. What a person feels (the worker's cold start) is measured as time by `xtask bench`.
/// The side panel's went from 450 to 500 with two features, not bloat: the tool budget of issue
/// 15 (ranking and schema flattening, about 40 KB) and the chat's side of MCP Apps (about 30 KB;
/// the app host itself is a module of its own, loaded when a chat first shows an app).
/// The worker's went from 300 to 340 the same way: OAuth sign-in (issue 12: discovery,
/// registration, token and metadata documents, about 25 KB) brought it to 296 KB, and serving
/// pages more of MCP (apps' rules, resource lists) and the native bridge (issue 14) go on top.
/// Then 340 to 370 for local servers (issue 14, 302 to 360 KB): the bridge link and its
/// transport are about 15 KB; most of the rest is serde's buffered decoding of the two
/// internally tagged bridge enums (`FromBridge`, `BridgeError`: about 40 KB raw before wasm-opt),
/// which an externally tagged wire format would shrink.
/// The popup's is 350 with the Remote/Local server form at 344 KB.
/// The side panel's went from 500 to 520 and the app host's from 150 to 170 with an app's own
/// tools (issue 13): declaring them to Gemini and routing calls cost the side panel about 13 KB
/// (495 to 508); the app host grew 122 to 149, most of it path-tracked decoding of the tool
/// lists apps send (`serde_path_to_error` over `mcp::Tool`, about 17 KB raw), which keeps a
/// hostile app's bad entry named in the app log.
/// The side panel's went from 520 to 530 when it stopped waiting for dead servers (issue 22):
/// asking every server at once, when the panel opens too, with the gathering rule and the
/// per-server backoff took it from 517.2 to 525.0 KB.
/// The app host's went from 170 to 158 when ceilings came within 5 % of their modules (issue
/// 24; 151.3 KB then).
/// The side panel's went on by another 25 (to 555 with the 10 above) and the popup's from 350 to 360 with today's Gemini
/// (issue 21): the model list kept in storage and read back (serde of `KnownModels`), the
/// automatic default, model families and routings, the picker's groups and the replacement offer
/// in both pages; in the side panel also the thinking choice and the folded thought summaries,
/// the signature bookkeeping (saved turns with their author) and media in function responses.
/// Measured: side panel 517 to 537.8 KB, popup 344 to 354.8 KB.
/// The side panel's went from 555 to 575 and the app host's from 158 to 174 with
/// serde-wasm-bindgen (issue 22, item 15: the design names it for JS values that are no JSON
/// documents, and its measured cost is accepted): the records the panel and the app host hand
/// each other (`AppSetup`, `HostWork`, the page's environment) took the panel from 549.9 to
/// 568.1 KB and the app host from 151.6 to 166.4 KB, most of it serde-wasm-bindgen's own
/// (de)serializer, which the JSON path had not needed.
/// Then worker 370 to 385, popup 360 to 372 and side panel 575 to 579 (each raised by the
/// same 15, 12 and 4 KB as in its own branch, where they went 370 to 385, 350 to 362, 530 to
/// 534) when a local command
/// line came to be shown as it will run (issue 22, item 2: measured 367.7 to 381.5, 345.2 to
/// 358.7 and 525.5 to 530.6 KB): the line is a structure (its variables, which change what runs,
/// and its expansions) in the internally tagged page messages (`ServerStatus`, `Response`), whose
/// buffered decoding instantiates a sequence decoder per element type in every page that reads
/// them (about 10 KB raw before wasm-opt each), beside the bridge's `resolve` and the checks.
/// The page beside the chat (issue 23) raised the side panel's by 70 KB (in its branch 520 to
/// 590, here 579 to 649), the worker's by 10 (385 to 395) and the popup's by 5 (372 to 377). Measured with the feature's first part
/// (the page chip, the browser's tools, their access cards): side panel 516.0 to 559.8 KB,
/// most of it the browser's tools carried out in the panel (their async driver, about 16 KB
/// raw), the one reader of the page script's answers (about 14 KB raw of serde), the chips
/// and cards, and core's page reading (Markdown, paging, find, quoting); the worker 364.7 to
/// 372.9 KB and the popup 349.9 to 350.1 KB for the settings every crate reads: the browser's
/// and pages' trust, tools turned off and the page content check, with their one edit. The
/// context menu and WebMCP page tools go on top: WebMCP's page tools took the side panel to
/// 571.6 KB (their listing, calls and the menu's "This page"), the context menu's clicks and
/// attachments to 578.2 KB, so its ceiling went from 575 to 590.
/// After that merge the popup measured 377.2 KB, a little over the sum of the raises (the
/// branches' settings additions decode together): its ceiling went from 377 to 380.
/// Issue 26 and issue 22's sign-in items raised the worker's by 60 (here 395 to 455), the
/// popup's by 15 (380 to 395) and the side panel's by 5 (649 to 654); in their branch the worker
/// went from 370 to 430, the popup from 350 to 365 and the side panel from 530 to 535 (measured with `cargo xtask dist`, gzip): DPoP,
/// client credentials and enterprise-managed authorization (the sign-in machine's new steps,
/// ES256 JWTs, proofs on every MCP request, keys in IndexedDB) 365 to 403.9 KB for the worker;
/// a removal's credentials in the same write, their revocation, orphans and the Origin rule to
/// 411.9; the secrets vault (PBKDF2 and AES-GCM through WebCrypto, sealing the document and the
/// sign-in documents) to 425.5. The popup: 345 to 354.2 with the settings' new sign-in fields
/// and their checks, 358.3 with the form's sign-in methods, 363.1 with the passphrase card. The
/// side panel only reads the settings: their new types took it from 525.0 to 532.2.
/// After that merge the worker measured 455.9 KB and the popup 397.4 KB, a little over the sums
/// of the raises (the branches' settings and message types decode together): 460 and 400.
/// Issue 27's optional `nativeMessaging` (the popup asks for it with the site in one prompt,
/// says which button to press again after each refusal, and shows "Allow local servers" on a
/// local server's row) took the popup from 397.4 to 402.6 KB: 405.
/// An app's tool calls under the person's rules (issue 22, item 1) raised the worker's from 455
/// to 460 and the popup's from 395 to 400: measured 458.4 and 398.4 KB with it (main's build
/// here, by `gzip -9`, 2.6 and 1.0 KB smaller): the worker's decision and its ledger of asked
/// calls, and the call request's new consent field, which every crate decodes.
/// In the branch of issue 21's items 6 to 8 (gemini2), the side panel's went from 555 to 570 with usage and limits (issue 21, item 6): each turn's
/// tokens, the context meter and the offer of a new chat from a summary, the finish reasons in
/// words with Continue, the retry countdown and the safety texts (two components, four entry
/// kinds and their saved form, about 42 KB raw); measured 549.3 to 564.9 KB.
/// Then 570 to 580 with grounding (issue 21, item 7): reading `groundingMetadata`, mapping its
/// segments to sentences, the sources list saved with each reply and Google Search with the MCP
/// tools in one request; measured 564.9 to 575.5 KB.
/// The worker's went from 370 to 375 and the popup's from 360 to 365 with custom instructions
/// for every chat (issue 21, item 8): a settings field, its edit, its check and its import (the
/// worker applies and checks every edit, the popup edits and previews); measured worker 369.8
/// to 371.3 KB, popup 358.3 to 360.4 KB.
/// The side panel's went from 580 to 605 with the conversation controls (issue 21, item 8):
/// versions of a chat (the forks and history marks, and the saved form of the kept versions,
/// nested entries included), the message editor and version switch, regenerate, copy as
/// Markdown and the chat's instructions bar; measured 576.1 to 598.2 KB.
/// Prompts as slash commands (issue 25) raised the worker's by 20 (460 to 480), the side
/// panel's by 16 (654 to 670) and the popup's by 10 (400 to 410): measured with `cargo xtask
/// dist` the worker 478.0, the side panel 667.4 and the popup 408.9 KB, against main's build
/// of the same hour 22.4, 26.0 and 12.2 KB more (gzip -9): the worker's `prompts/list`,
/// `prompts/get` and `completion/complete` through the client (each request is monomorphized
/// over the transport) and the new messages' types, which every page decodes too (`Prompt`,
/// `GetPromptResult`, `Completion` in `Response`: the popup's whole share); the side panel's
/// `/` menu, argument form with completions and the draft built from a prompt's result.
/// Merged, each ceiling is raised by its branches' raises (worker 5 and 20, side panel 50 and
/// 16, popup 5 and 10). The side panel then measured 732.5 KB, 12.5 over the sum: each branch
/// measured its raise against the main it started from, and the four merged (the page's context
/// on the person's message beside the versions' marks and the app's context, the turn's kinds of
/// asking with the page chip, the `/` menu beside the context meter) decode and render together:
/// its ceiling went from 720 to 740. Worker 484.3, popup 418.5 and app host 172.5 KB fit theirs.
/// Delete everything (issue 27) measured the worker 487.5 and the popup 424.1 KB against main's
/// 484.3 and 418.5 (+3.2, +5.6): the worker's revoking, session ending, key deleting and
/// emptying of both storages; the popup's card with its confirmation and report, and the new
/// answer type every page decodes. The worker's ceiling went from 485 to 490, the popup's from
/// 420 to 426.
/// The hung-app watch (issue 22, item 17: the sandbox pages pinged every second, a page
/// silent for 5 s ends every app frame, the others start again from what their views kept) took
/// the app host from 172.9 to 174.0 KB after the merge (173.5 in its branch): 177.
/// Resources as @-mentions (issue 25) took the worker from 487.5 to 494.5, the side panel from
/// 734 to 753 and the popup from 424.1 to 428.8 KB: the messages of a page of resources and of
/// the templates (`ResourcePage`, `ResourceTemplate` in `Response`, which every page decodes,
/// the popup's whole share) and the worker's two requests through the client; the side panel's
/// `@` menu (the catalog paged from every server, the menu shared with `/`), the template's
/// URI made from its variables and the resource read into a context part (its branch raised
/// the worker's by 10, the side panel's by 20, the popup's by 6; merged, see below).
/// serde-wasm-bindgen for the `chrome.*` option objects and the native messages (issue 22,
/// item 15, which accepts the named packages' measured cost) took the worker from 487.6 to
/// 512.1 KB and the popup from 424.1 to 427.4 KB: a second (de)serializer, the JS-value one,
/// monomorphized for the bridge's messages (`FromBridge` with its JSON-RPC `Value`, `ToBridge`)
/// and the options. The worker's ceiling went from 490 to 515, the popup's from 426 to 430.
/// Attachments (issue 21, item 5) took the side panel from about 734.1 to 753.0 KB: main's
/// build of 98ea504 measures 750,888 bytes by `gzip -9`, this branch's 770,196 (+18.9 KB): the
/// composer's picker, paste and drop, the file chips with thumbnails and the upload's progress
/// bar; reading files and the Files API's resumable upload driven chunk by chunk (an async
/// state machine inside the turn's setup) with core's plan and its answers (its branch raised
/// the side panel's by 15; merged, see below).
/// Chats that can leave (issue 27) took the side panel from 732.5 (main at 98ea504; 733.3 by
/// gzip -9 of its dist) to 789.6 KB: the history's search (core::chats::search, read over every
/// saved chat), selection and confirmed deletion of several or all chats, export of one or all
/// as JSON or as Markdown with a zip writer (rawzip) and the conversation's media decoded beside
/// it, and import with its checks, saved in one write. About 104 KB of code before wasm-opt:
/// the history component and the export/import futures 40, the Markdown writer and zip 16, the
/// saved form's decoding of a whole archive and its strings the rest. Its branch raised its
/// ceiling by 55 (merged, see below). (A second, path-tracking decoder of the saved form for import errors cost
/// another 58 KB and was dropped; serde_json's line and column say where instead.)
/// Merged on main (4d3eea4..: serde-wasm-bindgen, @-mentions, attachments, chats that can
/// leave, then the English locale file out of every module, -22 KB each), `cargo xtask dist`
/// measured the worker 498.2, the side panel 808.2, the popup 410.5 and the app host 151.8 KB.
/// The side panel's ceiling went from 740 to 815 (its three branches raised theirs by 20, 15
/// and 55 against the same main: 90, less the locale file's 22); the others come down to stay
/// within 5 % of their module: worker 515 to 505, popup 430 to 415, app host 177 to 155.
/// The English file's removal was reverted (0d0b9c3: the model must be told in English, which
/// chrome.i18n cannot word in a Japanese UI); measured then: worker 521.2, side panel 830.6,
/// popup 433.5, app host 175.8 KB. Ceilings: 525, 835, 437, 179.
/// Issue 27's first run: the welcome page is the popup's module in another mode (rather than a
/// fifth module), so the popup carries it, the Getting started card and `core::first_run`; the
/// side panel the changelog notice; both the English locale file core's `Display` compiles in,
/// grown by their sentences. Measured with `cargo xtask dist`: popup 433.5 to 449.8 KB, side
/// panel 830.6 to 835.0 KB (their code unchanged since the measure above). Ceilings: popup 437
/// to 452, side panel 835 to 838.
/// Side panel 835 -> 852 (issue 27): measured 834.2 KB before, 846.2 with the chat's activity
/// (core::chats::activity's saved records, read and written with every chat, its view with
/// localized dates) and the sign-in notice (its steps and the request behind them, +1.6).
/// Worker 525 -> 542, popup 437 -> 441 (issue 27, settings sync): measured 522.2 and 434.2 KB
/// before, 538.3 and 437.4 with it (the worker's sync items and merge, the chrome.storage.sync
/// bindings and their listener; the popup's Sync card).
/// Then worker 525 to 535 and side panel 835 to 843 for updates of attached resources (issue
/// 25): the worker follows what the open chats sent (its first use of `core::mcp::watch`, the
/// subscribe and unsubscribe calls, a second `subscriptions/listen` caller, and the new
/// `FollowResources` request, whose list is one more sequence decoder in the internally tagged
/// `Request`), the panel marks a changed resource with a Refresh that reads it again. Measured:
/// worker 521.6 to 531.3, side panel 831.9 to 839.6 KB (before: main's dist/ of this morning,
/// zlib level 9, within 0.2 KB of this measure), after making the listen stream's reading and
/// the new lists' ordering single copies (sorting by insertion: a general sort is several KB per
/// element type).
/// Merged (all three; each branch's raise was measured against the same main, so the sums
/// exceed every branch's ceiling): `cargo xtask dist` on the merge measured worker 549.8, side
/// panel 859.0, popup 454.1, app host 177.3 KB. Ceilings: 555, 864, 459, 179.
/// Lowered: the worker's native messages read as JSON documents (one decoder of them instead of
/// a serde-wasm-bindgen one and a serde_json one) took it from 550.0 to 527.3 KB; ceiling 531.
/// Side panel 864 -> 866: a prompt's argument form shows the completion answering the newest
/// request of a field, not whichever answer came last (`core::sync::Latest`), 863.7 -> 864.3.
/// Side panel 866 -> 869 (issue 24, memory): measured 864.7 -> 867.5 KB for what a long chat
/// holds. The counted allocator and `heapStats` (the bench and a test read bytes, not wasm
/// pages), the transcript in groups with steady actions (a chunk no longer renders every entry),
/// the history list's revisions (a save reads the stored chat only when another panel wrote
/// it), and one copy of an app's resource, in memory and in the stored chat. After the memory
/// bench's 200 turns with ten apps, the panel's wasm memory went from 47 to 13 MB.
/// Worker 531 -> 536, side panel 869 -> 873, popup 459 -> 463 (issue 24, an app shown again is
/// not sent again): measured 527.3 -> 533.3, 868.3 -> 870.4, 455.2 -> 460.2 KB. The worker now
/// checks an app's resource itself (what the panel did: the blob's base64, the media type,
/// `_meta.ui` read from a JSON value) and hashes it; every page reads `Response::App`, whose
/// `_meta.ui` (its CSP and permissions) the popup did not decode before, twice over as every
/// answer (from the port's objects and from the lane's text). A single struct with an optional
/// HTML instead of an enum of "new" and "unchanged" saved 1.3 KB of it in the popup.
/// App host 179 -> 180 (issue 24, memory): measured 178.8 -> 179.2 KB. It takes an app's HTML
/// out of the panel's setup and brings it in through a `TextEncoder`, at its UTF-8 size:
/// serde-wasm-bindgen's string conversion reserved three bytes a character, for a moment, after
/// the first that is not ASCII (real apps' bundles have some), and the module kept that room.
/// Side panel 873 -> 876 (this stop's fixes of what a person saw): measured 872.0 -> 873.0 KB,
/// right at the ceiling. The panel lists the models of the key it shows again when another
/// window changes it (`ListedModels`, an effect keyed on the settings' `ModelSource`, the list
/// dropped with another address), the empty chat says what the key needs (`KeyState`: the
/// locked case), and server events no longer list the models again (`ServerNews`,
/// `worker_epoch`).
/// Popup 463 -> 466 (the kept model list, per key): measured 461.9 -> 464.0 KB. A list kept in
/// storage counted for any key of its address, so after a key change the pickers showed the
/// previous key's models. The list now carries the SHA-256 of its key (`sha2`, base64url; never
/// the key), which the popup computes when it keeps a list or reads one: it had no SHA-256
/// before. The side panel already had it (874.0 -> 874.4).
pub const CEILINGS_KB: [(&str, f64); 4] =
    [("background", 536.0), ("sidepanel", 876.0), ("popup", 466.0), ("apphost", 180.0)];

pub struct WasmSize {
    pub name: &'static str,
    pub raw: usize,
    pub gzip: usize,
}

pub fn run() -> Result<Vec<WasmSize>> {
    let root = util::root();
    let dist = util::dist_dir();
    let mut build = release_build();
    for (package, _) in WASM_CRATES {
        build = build.args(["-p", package]);
    }
    build.run()?;
    for (package, _) in WASM_CRATES {
        let stack = crate::wasm_size::stack_bytes(&built(package))?;
        if stack != STACK_BYTES {
            return Err(format!(
                "{package}'s wasm stack is {stack} bytes, not {STACK_BYTES}: does RUSTFLAGS \
                 replace the flags of .cargo/config.toml?"
            ));
        }
    }

    if dist.exists() {
        fs::remove_dir_all(&dist).map_err(|e| format!("clearing dist/: {e}"))?;
    }
    let wasm_dir = dist.join("wasm");
    fs::create_dir_all(&wasm_dir).map_err(|e| format!("creating dist/: {e}"))?;
    copy_dir(&root.join("static"), &dist)?;
    fs::copy(root.join("manifest.json"), dist.join("manifest.json"))
        .map_err(|e| format!("copying manifest.json: {e}"))?;
    vendor_readability(&dist)?;

    let mut sizes = Vec::new();
    for (package, name) in WASM_CRATES {
        let wasm = bind_and_optimize(package, name, &wasm_dir)?;
        let bytes = fs::read(&wasm).map_err(|e| format!("reading {}: {e}", wasm.display()))?;
        sizes.push(WasmSize { name, raw: bytes.len(), gzip: gzip_len(&bytes) });
    }
    stamp_builds(&dist, "kept_wasm.js", &["background_bg.wasm", "sidepanel_bg.wasm"])?;
    preload_snippets(&dist)?;
    check_contents(&dist)?;
    println!("dist/ ready: {}", dist.display());
    let mut over = Vec::new();
    for size in &sizes {
        let gzip_kb = size.gzip as f64 / 1024.0;
        let ceiling = CEILINGS_KB.iter().find(|(name, _)| *name == size.name).map(|(_, kb)| *kb);
        let verdict = match ceiling {
            None => String::new(),
            Some(kb) if gzip_kb <= kb => format!("  (ceiling {kb:.0} KB)"),
            Some(kb) => format!("  (ceiling {kb:.0} KB: {:.1} KB over)", gzip_kb - kb),
        };
        println!(
            "  {:<11} {:>8.1} KB raw {:>8.1} KB gzip{verdict}",
            size.name,
            size.raw as f64 / 1024.0,
            gzip_kb
        );
        if let Some(problem) = ceiling.and_then(|kb| ceiling_problem(size.name, gzip_kb, kb)) {
            over.push(problem);
        }
    }
    if !over.is_empty() {
        return Err(over.join("; "));
    }
    Ok(sizes)
}

/// How far above its module a ceiling may sit (issue 24): a ceiling with room to spare lets
/// bloat in unseen, so a cut lowers it in the same commit.
pub const MAX_SLACK: f64 = 1.05;

/// What is wrong with a module's size against its ceiling: over it, or a ceiling more than
/// [`MAX_SLACK`] above it.
fn ceiling_problem(name: &str, gzip_kb: f64, ceiling_kb: f64) -> Option<String> {
    if gzip_kb > ceiling_kb {
        return Some(format!(
            "{name} is {gzip_kb:.1} KB gzip, over its ceiling of {ceiling_kb:.0} KB"
        ));
    }
    let highest = (gzip_kb * MAX_SLACK).floor();
    (ceiling_kb > highest).then(|| {
        format!(
            "{name} is {gzip_kb:.1} KB gzip and its ceiling of {ceiling_kb:.0} KB leaves more than \
             5 % of room: lower it to {highest:.0} KB or less (xtask/src/dist.rs)"
        )
    })
}

/// Each module's stack (`.cargo/config.toml`, where the figures behind it are).
const STACK_BYTES: u64 = 256 * 1024;

/// The module cargo built for a wasm crate, before wasm-bindgen.
fn built(package: &str) -> PathBuf {
    util::target_dir()
        .join("wasm32-unknown-unknown/release")
        .join(format!("{}.wasm", package.replace('-', "_")))
}

/// Runs wasm-bindgen on a released wasm crate into `out_dir` as `<name>.js` and
/// `<name>_bg.wasm`, then `wasm-opt -Oz` on the module; returns the module's path.
pub fn bind_and_optimize(package: &str, name: &str, out_dir: &Path) -> Result<PathBuf> {
    let built = built(package);
    Cmd::new("wasm-bindgen")
        .args(["--target", "web", "--no-typescript", "--out-name", name, "--out-dir"])
        .arg(out_dir)
        .arg(&built)
        .run()?;
    let wasm = out_dir.join(format!("{name}_bg.wasm"));
    // Rust puts the stack first in linear memory, growing down from its size (256 KB here,
    // .cargo/config.toml), and never uses the low 1 KB: wasm-opt may fold address offsets
    // knowing that.
    Cmd::new(node_bin("wasm-opt"))
        .args(["-Oz", "--low-memory-unused"])
        .arg(&wasm)
        .arg("-o")
        .arg(&wasm)
        .run()?;
    Ok(wasm)
}

/// The release build of the wasm crates: plain stable Rust, the workspace's release profile.
pub fn release_build() -> Cmd {
    cargo().args(["build", "--release", "--target", "wasm32-unknown-unknown"])
}

fn gzip_len(bytes: &[u8]) -> usize {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).expect("writing to memory");
    encoder.finish().expect("writing to memory").len()
}

fn copy_dir(from: &Path, to: &Path) -> Result {
    fs::create_dir_all(to).map_err(|e| format!("creating {}: {e}", to.display()))?;
    for entry in fs::read_dir(from).map_err(|e| format!("reading {}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)
                .map_err(|e| format!("copying {}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Mozilla Readability (Apache-2.0), which the side panel injects into a tab to find its main
/// text (`browser/js/page.js`). Copied from the npm package pinned in tests/package-lock.json
/// (installed by `cargo xtask setup`), with its licence, rather than kept as a copy in the
/// repository: the lock file says exactly which release ships, and updating it is one line.
fn vendor_readability(dist: &Path) -> Result {
    let package = util::tests_dir().join("node_modules/@mozilla/readability");
    let out = dist.join("vendor/readability");
    fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    for file in ["Readability.js", "LICENSE.md"] {
        fs::copy(package.join(file), out.join(file)).map_err(|e| {
            format!(
                "copying {file} of @mozilla/readability ({e}): run `cargo xtask setup`, which \
                 installs it from tests/package-lock.json"
            )
        })?;
    }
    Ok(())
}

/// Writes (the start of) each module's SHA-256 into the script that keeps the modules in Cache
/// Storage under it (`static/kept_wasm.js`, at `%WASM_BUILD:<module>%`): a new build is never
/// started from an old build's copy, and the keeper drops every copy whose key is not one of
/// these.
fn stamp_builds(dist: &Path, keeper: &str, modules: &[&str]) -> Result {
    let keeper = dist.join(keeper);
    let mut script =
        fs::read_to_string(&keeper).map_err(|e| format!("reading {}: {e}", keeper.display()))?;
    for module in modules {
        let placeholder = format!("%WASM_BUILD:{module}%");
        if script.matches(&placeholder).count() != 1 {
            return Err(format!(
                "{} must name {placeholder} once, for the module's hash",
                keeper.display()
            ));
        }
        let path = dist.join("wasm").join(module);
        let bytes = fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        script = script.replace(&placeholder, &util::sha256_hex(&bytes)[..16]);
    }
    if script.contains("%WASM_BUILD") {
        return Err(format!("{} names a module dist does not build", keeper.display()));
    }
    fs::write(&keeper, script).map_err(|e| format!("writing {}: {e}", keeper.display()))
}

/// Lists the side panel's snippet modules in `sidepanel.html` as `modulepreload` links: the
/// browser then reads them beside the glue instead of a round trip after it (each read of an
/// extension's file takes milliseconds; `cargo xtask bench`, panel_open).
fn preload_snippets(dist: &Path) -> Result {
    const PLACEHOLDER: &str =
        "<!-- %SNIPPET_PRELOADS%: the glue's imports, fetched beside it rather than after it. -->";
    let wasm = dist.join("wasm");
    let glue = fs::read_to_string(wasm.join("sidepanel.js"))
        .map_err(|e| format!("reading the panel's glue: {e}"))?;
    let mut modules = Vec::new();
    let mut pending: Vec<String> = snippet_imports(&glue, "");
    while let Some(module) = pending.pop() {
        if modules.contains(&module) {
            continue;
        }
        let text =
            fs::read_to_string(wasm.join(&module)).map_err(|e| format!("reading {module}: {e}"))?;
        let dir = module.rsplit_once('/').map_or("", |(dir, _)| dir);
        pending.extend(snippet_imports(&text, dir));
        modules.push(module);
    }
    modules.sort();
    let links: String = modules
        .iter()
        .map(|m| format!("<link rel=\"modulepreload\" href=\"wasm/{m}\">"))
        .collect::<Vec<_>>()
        .join("\n  ");
    let page = dist.join("sidepanel.html");
    let html = fs::read_to_string(&page).map_err(|e| format!("reading sidepanel.html: {e}"))?;
    if html.matches(PLACEHOLDER).count() != 1 {
        return Err(format!("sidepanel.html must hold {PLACEHOLDER} once"));
    }
    fs::write(&page, html.replace(PLACEHOLDER, &links))
        .map_err(|e| format!("writing sidepanel.html: {e}"))
}

/// The relative modules a module imports, as paths under `dist/wasm` (its own directory is
/// `dir`). wasm-bindgen writes them as `from './…'` or `from "./…"`.
fn snippet_imports(module: &str, dir: &str) -> Vec<String> {
    let mut found = Vec::new();
    for quote in ['\'', '"'] {
        let start = format!("from {quote}./");
        let mut rest = module;
        while let Some(at) = rest.find(&start) {
            rest = &rest[at + start.len()..];
            let Some(end) = rest.find(quote) else { break };
            let path = &rest[..end];
            found.push(if dir.is_empty() { path.to_owned() } else { format!("{dir}/{path}") });
        }
    }
    found
}

/// dist/ is what users install: no source maps, no node_modules, nothing but the extension.
fn check_contents(dir: &Path) -> Result {
    for entry in fs::read_dir(dir).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        if name == "node_modules" || name.ends_with(".map") || name.ends_with(".d.ts") {
            return Err(format!("dist/ must not contain {}", path.display()));
        }
        if path.is_dir() {
            check_contents(&path)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_modules_relative_imports_are_found_in_either_quote() {
        let glue = "import { a } from './snippets/x-1/js/a.js';\nimport * as b from \"./snippets/x-1/js/b.js\"\nconst s = 'from nowhere';";
        assert_eq!(snippet_imports(glue, ""), ["snippets/x-1/js/a.js", "snippets/x-1/js/b.js"]);
        let snippet = "import { keep } from './c.js';\nexport const d = 1;";
        assert_eq!(snippet_imports(snippet, "snippets/x-1/js"), ["snippets/x-1/js/c.js"]);
        assert!(snippet_imports("export const e = 2;", "").is_empty());
    }

    #[test]
    fn a_ceiling_fails_the_build_when_exceeded_or_too_far_above() {
        assert_eq!(ceiling_problem("m", 100.0, 105.0), None);
        assert_eq!(ceiling_problem("m", 100.0, 100.0), None);
        let over = ceiling_problem("m", 100.5, 100.0).unwrap();
        assert!(over.contains("over its ceiling of 100 KB"), "{over}");
        let loose = ceiling_problem("m", 100.0, 106.0).unwrap();
        assert!(loose.contains("lower it to 105 KB or less"), "{loose}");
    }
}
