//! The document an app's frame loads: its HTML with the host's policy in front of it.
//!
//! The `<meta>` policy goes before any of the app's own markup, so no script of the app runs
//! before it applies. After a `<!doctype …>` when the document starts with one (before it, the
//! page would fall into quirks mode); a policy placed there still precedes every element.
//!
//! The storage shim stands in for what an opaque origin lacks, for apps written for hosts that
//! give each app an origin of its own: touching `localStorage`, `sessionStorage` or
//! `document.cookie` there throws, and so does `indexedDB.open`, and many apps do one of them at
//! start-up. Storage and cookies get in-memory stand-ins that last as long as the document.
//! `indexedDB.open` and `deleteDatabase` fail the way the API reports failures, with an `error`
//! event a moment later (the browser's own `SecurityError` as `request.error`): every IndexedDB
//! library handles that (storage can be full or blocked anywhere) and falls back, while one
//! that calls `open` unchecked would fail just as before if `indexedDB` were simply removed.
//! Each stand-in is put in place only where the real one throws.

use std::borrow::Cow;

/// The shim, run before the app's own scripts. Three independent parts: storage, cookies,
/// IndexedDB.
const STORAGE_SHIM: &str = concat!(
    "<script>(()=>{",
    // localStorage and sessionStorage: a Map each.
    "for(const n of['localStorage','sessionStorage']){",
    "try{window[n].length}catch(_){const m=new Map(),k=String,",
    "s={getItem:x=>m.has(k(x))?m.get(k(x)):null,",
    "setItem:(x,v)=>{m.set(k(x),k(v))},removeItem:x=>{m.delete(k(x))},clear:()=>m.clear(),",
    "key:i=>[...m.keys()][i]??null,get length(){return m.size}};",
    "try{Object.defineProperty(window,n,{value:s,configurable:true})}catch(_){}}}",
    // document.cookie: a jar of name -> {value, expiry}, in the order cookies were first set.
    // The setter reads `name=value` (no `=`: an empty name) and of the attributes only
    // Max-Age (which wins) and Expires; one already expired deletes the cookie.
    "try{document.cookie}catch(_){const j=new Map(),now=()=>Date.now();",
    "try{Object.defineProperty(document,'cookie',{configurable:true,",
    "get(){for(const[k,c]of j)if(c.e<=now())j.delete(k);",
    "return[...j].map(([k,c])=>k?k+'='+c.v:c.v).join('; ')},",
    "set(x){const[p,...a]=String(x).split(';'),i=p.indexOf('='),",
    "k=i<0?'':p.slice(0,i).trim(),v=(i<0?p:p.slice(i+1)).trim();if(!k&&!v)return;",
    "let e=Infinity,m;for(const t of a){const q=t.indexOf('='),",
    "n=(q<0?t:t.slice(0,q)).trim().toLowerCase(),w=q<0?'':t.slice(q+1).trim();",
    "if(n==='max-age'&&/^-?\\d+$/.test(w))m=+w;",
    "else if(n==='expires'){const d=Date.parse(w);if(d===d)e=d}}",
    "if(m!==undefined)e=m>0?now()+m*1000:-Infinity;",
    "if(e<=now())j.delete(k);else j.set(k,{v,e})}})}catch(_){}}",
    // indexedDB: open and deleteDatabase give a request whose `error` event fires on the next
    // task when the real call throws SecurityError (or the factory itself cannot be had).
    "const fail=e=>{const r=new EventTarget();let d=false;",
    "Object.assign(r,{result:undefined,source:null,transaction:null,",
    "onsuccess:null,onerror:null,onupgradeneeded:null,onblocked:null});",
    "Object.defineProperties(r,{readyState:{get:()=>d?'done':'pending'},",
    "error:{get:()=>d?e:null}});",
    "r.addEventListener('error',v=>{if(typeof r.onerror==='function')r.onerror.call(r,v)});",
    "setTimeout(()=>{d=true;r.dispatchEvent(new Event('error',{bubbles:true,cancelable:true}))});",
    "return r};",
    "let f,g;try{f=window.indexedDB}catch(e){g=e;f={databases:()=>Promise.reject(e)};",
    "try{Object.defineProperty(window,'indexedDB',{value:f,configurable:true})}catch(_){}}",
    "if(f)for(const n of['open','deleteDatabase']){const o=f[n];",
    "try{Object.defineProperty(f,n,{configurable:true,writable:true,value:function(...a){",
    "if(g)return fail(g);try{return o.apply(this,a)}",
    "catch(e){if(e&&e.name==='SecurityError')return fail(e);throw e}}})}catch(_){}}",
    "})()</script>"
);

/// Tells the host of an Escape the app did not take (`defaultPrevented`, judged once the event
/// has been through every listener of the app, which may come after this one): a key pressed
/// in the app's frame never reaches the side panel, whose fullscreen and pip views close on it.
const ESCAPE_RELAY: &str = concat!(
    "<script>addEventListener('keydown',e=>{if(e.key==='Escape')setTimeout(()=>{",
    "if(!e.defaultPrevented)parent.postMessage(",
    "{jsonrpc:'2.0',method:'gemipanel/notifications/escape'},'*')})})</script>"
);

/// `html` with `policy` (a CSP header value), the storage shim and the Escape relay placed
/// first.
pub fn prepare(html: &str, policy: &str) -> String {
    prepared_parts(html, policy).concat()
}

/// [`prepare`]'s document in three parts, for a page to join outside wasm memory: the HTML up
/// to where the host's part goes (after a doctype), that part, and the rest of the HTML.
pub fn prepared_parts<'a>(html: &'a str, policy: &str) -> [Cow<'a, str>; 3] {
    // The policy is ours; quotes are the only character that could end the attribute.
    let meta = format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        policy.replace('"', "&quot;")
    );
    let insert_at = doctype_end(html).unwrap_or(0);
    let host = [meta.as_str(), STORAGE_SHIM, ESCAPE_RELAY].concat();
    [html[..insert_at].into(), host.into(), html[insert_at..].into()]
}

/// Where a leading `<!doctype …>` (after a BOM and whitespace) ends.
fn doctype_end(html: &str) -> Option<usize> {
    let start =
        html.len() - html.trim_start_matches(['\u{feff}', ' ', '\t', '\n', '\r', '\x0c']).len();
    let rest = &html[start..];
    let head = rest.get(..9)?;
    if !head.eq_ignore_ascii_case("<!doctype") {
        return None;
    }
    rest.find('>').map(|end| start + end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_comes_before_any_markup_of_the_app() {
        let doc = prepare("<script>steal()</script><p>hi</p>", "default-src 'none'");
        assert!(doc.starts_with(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">"
        ));
        assert!(doc.find("<meta").unwrap() < doc.find("steal").unwrap());
    }

    #[test]
    fn a_doctype_stays_first_so_the_page_keeps_standards_mode() {
        let doc = prepare("\u{feff}\n<!DOCTYPE html>\n<html><head><script>x()</script>", "p");
        let meta = doc.find("<meta").unwrap();
        assert!(doc.find("<!DOCTYPE html>").unwrap() < meta);
        assert!(meta < doc.find("<html>").unwrap());
    }

    #[test]
    fn the_parts_borrow_the_apps_html_around_the_hosts_part() {
        let html = "\u{feff}<!doctype html><p>app</p>";
        let [head, host, rest] = prepared_parts(html, "p");
        assert_eq!((head.as_ref(), rest.as_ref()), ("\u{feff}<!doctype html>", "<p>app</p>"));
        // Borrowed: the page joins them, the HTML is not copied in wasm memory.
        assert!(matches!((&head, &rest), (Cow::Borrowed(_), Cow::Borrowed(_))));
        assert!(host.starts_with("<meta http-equiv=\"Content-Security-Policy\""));
        assert_eq!([head, host, rest].concat(), prepare(html, "p"));
    }

    #[test]
    fn the_escape_relay_comes_before_the_app_and_speaks_the_hosts_method() {
        let doc = prepare("<!doctype html><script>app()</script>", "p");
        let relay = doc.find(ESCAPE_RELAY).expect("the relay, whole");
        assert!(relay < doc.find("app()").unwrap());
        assert!(ESCAPE_RELAY.contains(super::super::protocol::ESCAPE_METHOD));
        assert_eq!(ESCAPE_RELAY.matches("<script>").count(), 1);
        assert_eq!(ESCAPE_RELAY.matches("</script").count(), 1);
    }

    #[test]
    fn the_shim_for_storage_cookies_and_indexed_db_comes_before_the_app() {
        let doc = prepare("<!doctype html><script>document.cookie='a=1'</script>", "p");
        let shim = doc.find(STORAGE_SHIM).expect("the shim, whole");
        assert!(doc.find("<meta").unwrap() < shim);
        assert!(shim + STORAGE_SHIM.len() <= doc.find("document.cookie='a=1'").unwrap());
        for part in ["localStorage", "sessionStorage", "'cookie'", "indexedDB", "SecurityError"] {
            assert!(STORAGE_SHIM.contains(part), "{part}");
        }
        // One script element: nothing of it can be taken for markup of its own.
        assert_eq!(STORAGE_SHIM.matches("<script>").count(), 1);
        assert_eq!(STORAGE_SHIM.matches("</script").count(), 1);
        assert!(STORAGE_SHIM.ends_with("</script>"));
    }

    /// Runs the shim under node against a window and document that throw as Chrome's do in an
    /// opaque origin (and, second, against ones that work, which it must leave alone), then
    /// `checks`. Node is part of the test toolchain (`cargo xtask setup` installs it).
    fn run_shim(checks: &str) {
        let script = STORAGE_SHIM.strip_prefix("<script>").unwrap().strip_suffix("</script>");
        let harness = format!(
            "const shim = {shim};\n{HARNESS}\n{checks}",
            shim = serde_json::to_string(script.unwrap()).unwrap()
        );
        let output =
            std::process::Command::new("node").arg("-e").arg(&harness).output().unwrap_or_else(
                |e| panic!("node does not run ({e}): `cargo xtask setup` installs it"),
            );
        assert!(
            output.status.success(),
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(String::from_utf8_lossy(&output.stdout).ends_with("ok\n"));
    }

    /// `opaque()` and `working()` make the globals the shim sees, then run it.
    const HARNESS: &str = r#"
const assert = require('node:assert/strict');
const denied = () => { throw new DOMException('denied in this context', 'SecurityError'); };
let clock = 1e12;
Date.now = () => clock;
function opaque() {
  const Document = class {};
  const cookie = { get: denied, set: denied, configurable: true };
  Object.defineProperty(Document.prototype, 'cookie', cookie);
  const IDBFactory = class { open() { denied(); } deleteDatabase() { denied(); } };
  const factory = new IDBFactory();
  globalThis.document = new Document();
  globalThis.window = globalThis;
  for (const n of ['localStorage', 'sessionStorage']) {
    Object.defineProperty(globalThis, n, { get: denied, configurable: true });
  }
  Object.defineProperty(globalThis, 'indexedDB', { get: () => factory, configurable: true });
  (0, eval)(shim);
}
const realRequest = { real: true };
function working() {
  let jar = 'x=1';
  globalThis.document = {};
  const cookie = { get: () => jar, set: v => { jar = v; }, configurable: true };
  Object.defineProperty(globalThis.document, 'cookie', cookie);
  for (const n of ['localStorage', 'sessionStorage']) {
    Object.defineProperty(globalThis, n, { value: { length: 0, real: true }, configurable: true });
  }
  const factory = { open: () => realRequest, deleteDatabase: () => realRequest };
  Object.defineProperty(globalThis, 'indexedDB', { value: factory, configurable: true });
  (0, eval)(shim);
}
const tick = () => new Promise(resolve => setTimeout(resolve, 5));
"#;

    #[test]
    fn the_shim_gives_an_opaque_origin_a_cookie_jar() {
        run_shim(
            r#"
opaque();
assert.equal(document.cookie, '');
document.cookie = 'a=1';
document.cookie = ' b = 2 ; Path=/; Secure; SameSite=None; Domain=example.com';
assert.equal(document.cookie, 'a=1; b=2');
document.cookie = 'a=3';
assert.equal(document.cookie, 'a=3; b=2', 'a new value keeps its place');
document.cookie = 'b=; max-age=0';
assert.equal(document.cookie, 'a=3');
document.cookie = 'c=x; expires=Thu, 01 Jan 1970 00:00:00 GMT';
assert.equal(document.cookie, 'a=3', 'already expired: never set');
document.cookie = 'a=4; Max-Age=-1';
assert.equal(document.cookie, '');
document.cookie = 'd=5; max-age=soon; expires=nonsense';
document.cookie = 'e=a=b; Expires=Fri, 31 Dec 9999 23:59:59 GMT';
document.cookie = 'f=7; expires=Fri, 31 Dec 9999 23:59:59 GMT; max-age=1';
assert.equal(document.cookie, 'd=5; e=a=b; f=7');
clock += 1001;
assert.equal(document.cookie, 'd=5; e=a=b', 'max-age wins over expires, and runs out');
document.cookie = 'e=; expires=Thu, 01-Jan-1970 00:00:01 GMT';
document.cookie = 'lonely';
assert.equal(document.cookie, 'd=5; lonely', 'no `=`: a value with an empty name');
document.cookie = '=';
document.cookie = 42;
assert.equal(document.cookie, 'd=5; 42', 'one cookie has the empty name');
localStorage.setItem('k', 1);
assert.equal(localStorage.getItem('k'), '1');
assert.equal(sessionStorage.getItem('k'), null);
working();
assert.equal(document.cookie, 'x=1', 'a working cookie is left alone');
assert.ok(localStorage.real && sessionStorage.real);
console.log('ok');
"#,
        );
    }

    #[test]
    fn the_shim_makes_indexed_db_fail_the_way_it_reports_failures() {
        run_shim(
            r#"
(async () => {
  opaque();
  for (const method of ['open', 'deleteDatabase']) {
    const request = indexedDB[method]('db', 1);
    assert.equal(request.readyState, 'pending');
    assert.equal(request.error, null);
    const seen = [];
    request.onsuccess = () => seen.push('success');
    request.onupgradeneeded = () => seen.push('upgradeneeded');
    request.onerror = event => seen.push(['onerror', event.type, event.target === request]);
    request.addEventListener('error', () => seen.push('listener'));
    assert.deepEqual(seen, [], 'nothing happens at once');
    await tick();
    assert.deepEqual(seen, [['onerror', 'error', true], 'listener'], method);
    assert.equal(request.readyState, 'done');
    assert.equal(request.error.name, 'SecurityError');
  }
  // As promise wrappers (idb, idb-keyval, Dexie) see it.
  const opened = new Promise((resolve, reject) => {
    const request = indexedDB.open('db');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  await assert.rejects(opened, { name: 'SecurityError' });
  // Should reading `indexedDB` itself throw, a stand-in factory fails the same way.
  Object.defineProperty(globalThis, 'indexedDB', { get: denied, configurable: true });
  (0, eval)(shim);
  const request = indexedDB.open('db');
  await tick();
  assert.equal(request.error.name, 'SecurityError');
  await assert.rejects(indexedDB.databases(), { name: 'SecurityError' });
  working();
  assert.equal(indexedDB.open('db'), realRequest, 'a working indexedDB is left alone');
  console.log('ok');
})().catch(e => { console.error(e); process.exit(1); });
"#,
        );
    }

    #[test]
    fn a_quote_cannot_end_the_attribute() {
        let doc = prepare("<p>", "a\"b");
        assert!(doc.contains("content=\"a&quot;b\""));
    }

    #[test]
    fn text_that_only_looks_like_a_doctype_is_not_one() {
        assert_eq!(doctype_end("<!doc"), None);
        assert_eq!(doctype_end("<p><!doctype html>"), None);
        // Multi-byte text before position 9 must not split a character.
        assert_eq!(doctype_end("日本語のページ"), None);
    }
}
