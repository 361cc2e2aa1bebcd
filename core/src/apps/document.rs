//! The document an app's frame loads: its HTML with the host's policy in front of it.
//!
//! The `<meta>` policy goes before any of the app's own markup, so no script of the app runs
//! before it applies. After a `<!doctype …>` when the document starts with one (before it, the
//! page would fall into quirks mode); a policy placed there still precedes every element.
//!
//! The storage shim gives apps written for hosts that give each app an origin of its own an
//! in-memory `localStorage`/`sessionStorage`: in an opaque origin touching them throws, and many
//! apps read them at start-up.

/// The storage shim, run before the app's own scripts.
const STORAGE_SHIM: &str = "<script>(()=>{for(const n of['localStorage','sessionStorage']){\
try{window[n].length}catch(_){const m=new Map(),k=String,s={getItem:x=>m.has(k(x))?m.get(k(x)):null,\
setItem:(x,v)=>{m.set(k(x),k(v))},removeItem:x=>{m.delete(k(x))},clear:()=>m.clear(),\
key:i=>[...m.keys()][i]??null,get length(){return m.size}};\
try{Object.defineProperty(window,n,{value:s,configurable:true})}catch(_){}}}})()</script>";

/// `html` with `policy` (a CSP header value) and the storage shim placed first.
pub fn prepare(html: &str, policy: &str) -> String {
    // The policy is ours; quotes are the only character that could end the attribute.
    let meta = format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        policy.replace('"', "&quot;")
    );
    let insert_at = doctype_end(html).unwrap_or(0);
    let mut out = String::with_capacity(html.len() + meta.len() + STORAGE_SHIM.len());
    out.push_str(&html[..insert_at]);
    out.push_str(&meta);
    out.push_str(STORAGE_SHIM);
    out.push_str(&html[insert_at..]);
    out
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
