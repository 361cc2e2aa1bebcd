//! Chats as Markdown a person can read anywhere: the turns as they were shown, each tool call
//! folded in a `<details>` with its arguments and result, an app as its name and its last text,
//! and what was attached to the conversation (images, PDFs…) as files beside it in a zip.
//!
//! Only the shown version of a chat is written (the JSON export keeps every version).

use std::collections::HashSet;
use std::io::Write;

use base64::Engine;

use super::archive;
use super::saved::{Entry, SavedChat, ToolCard, ToolStatus};
use crate::gemini::Turn;
use crate::page::context::ContextKind;
use crate::text::Text;

/// A file to hand to the person.
#[derive(Debug, Clone, PartialEq)]
pub struct Download {
    pub file_name: String,
    pub mime_type: &'static str,
    pub bytes: Vec<u8>,
}

/// One file inside a zip.
#[derive(Debug, Clone, PartialEq)]
struct Member {
    path: String,
    bytes: Vec<u8>,
}

/// One chat as JSON (the saved form, in the versioned envelope).
pub fn chat_json(chat: &SavedChat, now_ms: u64) -> Download {
    Download {
        file_name: format!("{}.json", file_stem(&chat.title)),
        mime_type: "application/json",
        bytes: archive::export(vec![chat.clone()], now_ms).into_bytes(),
    }
}

/// Every chat as JSON.
pub fn all_json(chats: Vec<SavedChat>, now_ms: u64) -> Download {
    Download {
        file_name: format!("gemipanel-chats-{}.json", &utc(now_ms)[..10]),
        mime_type: "application/json",
        bytes: archive::export(chats, now_ms).into_bytes(),
    }
}

/// One chat as Markdown: a `.md` file, or a zip with its attachments beside it when it has any.
pub fn chat_markdown(chat: &SavedChat) -> Result<Download, Text> {
    let stem = file_stem(&chat.title);
    let (text, attachments) = render(chat, "attachments");
    if attachments.is_empty() {
        return Ok(Download {
            file_name: format!("{stem}.md"),
            mime_type: "text/markdown",
            bytes: text.into_bytes(),
        });
    }
    let mut members = vec![Member { path: format!("{stem}.md"), bytes: text.into_bytes() }];
    members.extend(attachments);
    Ok(Download {
        file_name: format!("{stem}.zip"),
        mime_type: "application/zip",
        bytes: zip(&members)?,
    })
}

/// Every chat as Markdown, in one zip: `<title>.md` each, its attachments in `<title>/`.
pub fn all_markdown(chats: &[SavedChat], now_ms: u64) -> Result<Download, Text> {
    let mut taken = HashSet::new();
    let mut members = Vec::new();
    for chat in chats {
        let base = file_stem(&chat.title);
        let stem = (1..)
            .map(|n| if n == 1 { base.clone() } else { format!("{base} ({n})") })
            .find(|s| taken.insert(s.to_lowercase()))
            .unwrap_or_default();
        let (text, attachments) = render(chat, &stem);
        members.push(Member { path: format!("{stem}.md"), bytes: text.into_bytes() });
        members.extend(attachments);
    }
    Ok(Download {
        file_name: format!("gemipanel-chats-{}.zip", &utc(now_ms)[..10]),
        mime_type: "application/zip",
        bytes: zip(&members)?,
    })
}

/// The chat's Markdown, and its attachments as files under `dir` (which the text links to).
fn render(chat: &SavedChat, dir: &str) -> (String, Vec<Member>) {
    let mut md = String::new();
    let title = if chat.title.trim().is_empty() { "Untitled chat" } else { chat.title.trim() };
    md.push_str(&format!("# {}\n\n", inline(title)));
    let mut about = vec![format!("Updated {}", utc(chat.updated_ms))];
    if let Some(model) = &chat.model {
        about.push(format!("model `{model}`"));
    }
    md.push_str(&format!("_{}_\n\n", about.join(" · ")));
    if let Some(instructions) = chat.instructions.as_deref().filter(|i| !i.trim().is_empty()) {
        md.push_str(&format!("> **Instructions:** {}\n\n", quote_lines(instructions)));
    }
    for entry in &chat.entries {
        entry_markdown(entry, &mut md);
    }
    let attachments = attachments(&chat.history, dir);
    if !attachments.is_empty() {
        md.push_str("## Attachments\n\n");
        for file in &attachments {
            let name = file.path.rsplit('/').next().unwrap_or(&file.path);
            md.push_str(&format!("- [{name}](<{}>)\n", file.path));
        }
        md.push('\n');
    }
    (md.trim_end().to_owned() + "\n", attachments)
}

fn entry_markdown(entry: &Entry, md: &mut String) {
    match entry {
        Entry::User { text, context, app_context, .. } => {
            md.push_str("## You\n\n");
            md.push_str(text.trim_end());
            md.push_str("\n\n");
            for label in context {
                let kind = match label.kind {
                    ContextKind::Page => "Page",
                    ContextKind::Selection => "Selection from",
                    ContextKind::Image => "Image",
                    ContextKind::Link => "Link",
                    ContextKind::Resource => "Resource",
                    ContextKind::File => {
                        // A file's label keeps its type and size where a page keeps its URL.
                        let file = inline(&label.title);
                        md.push_str(&format!("> File: {file} ({})\n", inline(&label.url)));
                        continue;
                    }
                };
                md.push_str(&format!(
                    "> {kind}: [{}](<{}>)\n",
                    inline(&label.title),
                    label.url.replace('>', "%3E")
                ));
            }
            for sent in app_context {
                md.push_str(&format!(
                    "> From the app {} ({}): {}\n",
                    inline(&sent.tool),
                    inline(&sent.server),
                    quote_lines(&sent.text)
                ));
            }
            if !context.is_empty() || !app_context.is_empty() {
                md.push('\n');
            }
        }
        Entry::Model(reply) => {
            md.push_str("## Gemini\n\n");
            let thoughts = reply.thoughts.text();
            if !thoughts.trim().is_empty() {
                md.push_str("<details><summary>Thinking</summary>\n\n");
                md.push_str(thoughts.trim_end());
                md.push_str("\n\n</details>\n\n");
            }
            md.push_str(reply.doc.text().trim_end());
            md.push_str("\n\n");
            if let Some(sources) = &reply.sources {
                let links: Vec<String> = sources
                    .sources
                    .iter()
                    .map(|s| match &s.href {
                        Some(href) => {
                            format!("[{}](<{}>)", inline(&s.title), href.replace('>', "%3E"))
                        }
                        None => inline(&s.title),
                    })
                    .collect();
                if !links.is_empty() {
                    md.push_str(&format!("Sources: {}\n\n", links.join(", ")));
                }
            }
        }
        Entry::Tool(card) => tool_markdown(card, md),
        Entry::Notice { text, .. } | Entry::Finish { text, .. } => {
            md.push_str(&format!("> {}\n\n", quote_lines(text)));
        }
        Entry::Error(error) => {
            md.push_str(&format!("> **Error:** {}\n\n", quote_lines(&error.message)));
        }
        Entry::Summary { text, from_title } => {
            md.push_str(&format!(
                "> **Summary of “{}”:**\n>\n> {}\n\n",
                inline(from_title),
                quote_lines(text)
            ));
        }
        // A countdown and a question asked during a call mean nothing afterwards.
        Entry::Retrying { .. } | Entry::Elicitation(_) => {}
    }
}

fn tool_markdown(card: &ToolCard, md: &mut String) {
    let status = match &card.status {
        ToolStatus::Done => "done".to_owned(),
        ToolStatus::Failed { message } => format!("failed: {}", one_line(message)),
        ToolStatus::Denied => "denied".to_owned(),
        ToolStatus::Cancelled => "cancelled".to_owned(),
        ToolStatus::Confirm => "not run".to_owned(),
        ToolStatus::Running => "unfinished".to_owned(),
        ToolStatus::NeedsAccess { .. } => "needed access".to_owned(),
        ToolStatus::NeedsSignIn { .. } => "needed a sign-in".to_owned(),
    };
    md.push_str(&format!(
        "<details><summary>Tool {} ({}): {}</summary>\n\n",
        html_text(&card.tool),
        html_text(&card.server_name),
        html_text(&status)
    ));
    md.push_str("Arguments:\n\n");
    md.push_str(&fenced(&card.args, "json"));
    if let Some(result) = &card.result {
        md.push_str("Result:\n\n");
        md.push_str(&fenced(result, ""));
    }
    md.push_str("</details>\n\n");
    if let Some(app) = &card.app {
        // A snapshot: what the app last showed in words (its result's text).
        let text: Vec<&str> =
            app.result.iter().flat_map(|r| r.content.iter().filter_map(|b| b.text())).collect();
        let text = if text.is_empty() { "(no text)".to_owned() } else { text.join("\n") };
        md.push_str(&format!("**App {}:** {}\n\n", inline(&card.tool), quote_lines(&text)));
    }
}

/// Every attachment the conversation carried (inline media of the history), numbered.
fn attachments(history: &[Turn], dir: &str) -> Vec<Member> {
    let blobs = history.iter().flat_map(|turn| {
        turn.parts.iter().flat_map(|part| {
            let nested =
                part.function_response.iter().flat_map(|r| r.parts.iter().map(|p| &p.inline_data));
            part.inline_data.iter().chain(nested)
        })
    });
    let mut out = Vec::new();
    for blob in blobs {
        // A blob that does not decode is left out rather than written wrong.
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(blob.data.trim()) else {
            continue;
        };
        let name =
            blob.display_name.as_deref().map(file_stem).unwrap_or_else(|| "attachment".into());
        out.push(Member {
            path: format!("{dir}/{:02}-{name}.{}", out.len() + 1, extension(&blob.mime_type)),
            bytes,
        });
    }
    out
}

fn extension(mime: &str) -> &'static str {
    match mime.split(';').next().unwrap_or("").trim() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/webp" => "webp",
        "image/gif" => "gif",
        "image/heic" => "heic",
        "application/pdf" => "pdf",
        "text/plain" => "txt",
        "text/html" => "html",
        "text/markdown" => "md",
        "audio/mpeg" => "mp3",
        "audio/wav" => "wav",
        "video/mp4" => "mp4",
        _ => "bin",
    }
}

/// A zip of `members`, stored (attachments are compressed formats already; the text is small).
fn zip(members: &[Member]) -> Result<Vec<u8>, Text> {
    let fail = |e: &dyn std::fmt::Display| Text::new("errExportZip").arg(e.to_string());
    let mut out = Vec::new();
    let mut archive = rawzip::ZipArchiveWriter::new(&mut out);
    for member in members {
        let (mut entry, config) = archive.new_file(&member.path).start().map_err(|e| fail(&e))?;
        let mut writer = config.wrap(&mut entry);
        writer.write_all(&member.bytes).map_err(|e| fail(&e))?;
        let (_, descriptor) = writer.finish().map_err(|e| fail(&e))?;
        entry.finish(descriptor).map_err(|e| fail(&e))?;
    }
    archive.finish().map_err(|e| fail(&e))?;
    Ok(out)
}

/// A file name from a title: no path separators or characters systems refuse, not too long.
fn file_stem(title: &str) -> String {
    let cleaned: String = title
        .chars()
        .map(|c| if c.is_control() || "/\\:*?\"<>|".contains(c) { '_' } else { c })
        .collect();
    let cleaned = cleaned.trim().trim_matches('.').trim();
    let stem: String = cleaned.chars().take(60).collect();
    if stem.is_empty() {
        "chat".into()
    } else {
        stem.trim_end().to_owned()
    }
}

/// Text in a code fence longer than any run of backticks inside it.
fn fenced(text: &str, lang: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}\n\n", text.trim_end())
}

/// Text inside HTML (a `<summary>`): tags in it stay text.
fn html_text(text: &str) -> String {
    one_line(text).replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A name or title on one line of Markdown, each character that could start markup
/// backslash-escaped (CommonMark escapes any ASCII punctuation so; `$` is GitHub's math, a
/// last `#` would close a heading): it reads as its words.
fn inline(text: &str) -> String {
    const MARKUP: &str = "\\`*_[]<>&~|!#$";
    let mut out = String::new();
    for c in one_line(text).chars() {
        if MARKUP.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text continued inside a `>` quote.
fn quote_lines(text: &str) -> String {
    text.trim().replace('\n', "\n> ")
}

/// `YYYY-MM-DD HH:MM UTC` from milliseconds since 1970.
fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", rest / 3600, rest % 3600 / 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::Read;

    fn chat() -> SavedChat {
        serde_json::from_value(json!({
            "id": "c1", "title": "Trip / plans: <Kyoto>", "created_ms": 0,
            "updated_ms": 1_764_218_100_000u64, "model": "gemini-2.5-flash",
            "history": [
                {"role": "user", "parts": [{"text": "what is this?"},
                    {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
                {"role": "model", "parts": [{"text": "A picture."}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "shot", "response": {},
                    "parts": [{"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0=", "displayName": "report"}}]}}]}
            ],
            "entries": [
                {"user": {"text": "what is this?", "context": [
                    {"kind": "image", "title": "Fuji", "url": "https://example.com/fuji.png"}]}},
                {"model": {"doc": "A picture of **Fuji**.", "thoughts": "Looks like a mountain."}},
                {"tool": {"call_id": "call-1", "server_id": "s1", "server_name": "Weather",
                    "tool": "forecast", "args": "{\n  \"city\": \"Kyoto\"\n}", "status": "done",
                    "read_only_hint": true, "trusted_server": true, "result": "Sunny ```fenced```",
                    "app": {"server_id": "s1", "uri": "ui://w", "tool": {}, "input": {},
                        "result": {"content": [{"type": "text", "text": "22 °C, sunny"}]}}}},
                {"tool": {"call_id": "call-2", "server_id": "s1", "server_name": "Weather",
                    "tool": "<b>alerts</b>", "args": "{}", "status": {"failed": {"message": "offline"}},
                    "read_only_hint": null, "trusted_server": false}},
                {"retrying": {"seconds": 3, "message": "busy"}},
                {"error": {"kind": "network", "message": "The network is down"}}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn names_and_titles_read_as_their_own_words_not_as_markdown() {
        // A title is the person's first words: `<Kyoto>` went into the heading as an HTML tag
        // (shown as nothing), `*trip*` as emphasis, `[plan]` as the start of a link, a last `#`
        // closed the heading, and GitHub reads `$x$` as math.
        use pulldown_cmark::{Event, Parser, Tag, TagEnd};
        let mut saved = chat();
        saved.title = "<Kyoto> *trip* [plan] & a_b `c` ~d~ | e \\ f $x$ #".into();
        let (md, _) = render(&saved, "attachments");
        let heading = md.lines().next().unwrap();
        let mut words = String::new();
        let mut markup = Vec::new();
        for event in Parser::new_ext(heading, pulldown_cmark::Options::all()) {
            match event {
                Event::Text(text) => words.push_str(&text),
                Event::Start(Tag::Heading { .. }) | Event::End(TagEnd::Heading(_)) => {}
                other => markup.push(format!("{other:?}")),
            }
        }
        assert_eq!(words, saved.title, "{heading}");
        assert!(markup.is_empty(), "{heading}: {markup:?}");
    }

    #[test]
    fn a_chat_reads_as_turns_with_tool_calls_folded() {
        let (md, _) = render(&chat(), "attachments");
        let expected = r#"# Trip / plans: \<Kyoto\>

_Updated 2025-11-27 04:35 UTC · model `gemini-2.5-flash`_

## You

what is this?

> Image: [Fuji](<https://example.com/fuji.png>)

## Gemini

<details><summary>Thinking</summary>

Looks like a mountain.

</details>

A picture of **Fuji**.

<details><summary>Tool forecast (Weather): done</summary>

Arguments:

```json
{
  "city": "Kyoto"
}
```

Result:

````
Sunny ```fenced```
````

</details>

**App forecast:** 22 °C, sunny

<details><summary>Tool &lt;b&gt;alerts&lt;/b&gt; (Weather): failed: offline</summary>

Arguments:

```json
{}
```

</details>

> **Error:** The network is down

## Attachments

- [01-attachment.png](<attachments/01-attachment.png>)
- [02-report.pdf](<attachments/02-report.pdf>)
"#;
        assert_eq!(md, expected);
    }

    fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
        let archive = rawzip::ZipArchive::from_slice(bytes).unwrap();
        let mut entries = archive.entries();
        let mut out = Vec::new();
        while let Some(entry) = entries.next_entry().unwrap() {
            let path = entry.file_path().try_normalize().unwrap().as_ref().to_owned();
            let local = archive.get_entry(entry.wayfinder()).unwrap();
            let mut data = Vec::new();
            local.verifying_reader(local.data()).read_to_end(&mut data).unwrap();
            out.push((path, data));
        }
        out
    }

    #[test]
    fn attachments_go_beside_the_markdown_in_a_zip() {
        let download = chat_markdown(&chat()).unwrap();
        assert_eq!(download.file_name, "Trip _ plans_ _Kyoto_.zip");
        assert_eq!(download.mime_type, "application/zip");
        let files = unzip(&download.bytes);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "Trip _ plans_ _Kyoto_.md",
                "attachments/01-attachment.png",
                "attachments/02-report.pdf"
            ]
        );
        assert_eq!(files[1].1, b"\x89PNG\r\n\x1a\n");
        assert_eq!(files[2].1, b"%PDF-");
        assert_eq!(files[0].1, render(&chat(), "attachments").0.into_bytes());
    }

    #[test]
    fn a_chat_without_attachments_is_one_markdown_file() {
        let mut plain = chat();
        plain.history.clear();
        let download = chat_markdown(&plain).unwrap();
        assert_eq!(download.file_name, "Trip _ plans_ _Kyoto_.md");
        assert!(!String::from_utf8(download.bytes).unwrap().contains("Attachments"));
    }

    #[test]
    fn all_chats_share_one_zip_with_a_folder_of_attachments_each() {
        let mut second = chat();
        second.history.clear();
        let mut untitled = chat();
        untitled.title = " ".into();
        untitled.history.clear();
        let download = all_markdown(&[chat(), second, untitled], 0).unwrap();
        assert_eq!(download.file_name, "gemipanel-chats-1970-01-01.zip");
        let names: Vec<String> = unzip(&download.bytes).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [
                "Trip _ plans_ _Kyoto_.md",
                "Trip _ plans_ _Kyoto_/01-attachment.png",
                "Trip _ plans_ _Kyoto_/02-report.pdf",
                "Trip _ plans_ _Kyoto_ (2).md",
                "chat.md",
            ]
        );
        let text = String::from_utf8(unzip(&download.bytes).swap_remove(4).1).unwrap();
        assert!(text.starts_with("# Untitled chat\n"), "{text}");
    }

    #[test]
    fn json_downloads_are_the_archive() {
        let download = all_json(vec![chat()], 1_764_218_100_000);
        assert_eq!(download.file_name, "gemipanel-chats-2025-11-27.json");
        let text = String::from_utf8(download.bytes).unwrap();
        let back = archive::import(&text, &HashSet::new(), &mut || "x".into()).unwrap();
        assert_eq!(back.chats[0].title, chat().title);
        assert_eq!(chat_json(&chat(), 0).file_name, "Trip _ plans_ _Kyoto_.json");
    }

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_764_218_100_000), "2025-11-27 04:35 UTC");
    }
}
