//! Whether a tool call runs at once or asks the person first: one rule for every kind of
//! source (an MCP server, the browser, a page).
//!
//! A call runs without asking when its source is trusted or the person said "always allow"
//! for the tool. Content from web pages is untrusted input that may carry instructions written
//! to steer the model; once any reached the conversation ([`crate::page::context::page_content_in`]),
//! a call of a tool not marked read-only asks even when trusted, unless the person turned that
//! check off for the source.

/// What decides one call, gathered by the driver from the settings and the tool's annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallFacts {
    /// The source is trusted ("Always allow" for the whole source).
    pub trusted: bool,
    /// "Always allow" for this tool.
    pub always_allowed: bool,
    /// The tool's `readOnlyHint`.
    pub read_only: Option<bool>,
    /// The source's setting: ask after page content even when trusted (on unless turned off).
    pub confirm_after_page_content: bool,
}

/// The verdict on a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Run,
    /// Ask the person; `because_of_page_content` when only the page content rule asks (the
    /// card says so).
    Ask {
        because_of_page_content: bool,
    },
}

/// Decides a call; `page_content_seen`: content from a page is in the conversation.
pub fn verdict(facts: &CallFacts, page_content_seen: bool) -> Verdict {
    if !(facts.trusted || facts.always_allowed) {
        return Verdict::Ask { because_of_page_content: false };
    }
    let writes = facts.read_only != Some(true);
    if page_content_seen && facts.confirm_after_page_content && writes {
        return Verdict::Ask { because_of_page_content: true };
    }
    Verdict::Run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(trusted: bool, always: bool, read_only: Option<bool>, confirm: bool) -> CallFacts {
        CallFacts {
            trusted,
            always_allowed: always,
            read_only,
            confirm_after_page_content: confirm,
        }
    }

    #[test]
    fn untrusted_tools_always_ask() {
        for seen in [false, true] {
            assert_eq!(
                verdict(&facts(false, false, Some(true), true), seen),
                Verdict::Ask { because_of_page_content: false }
            );
        }
    }

    #[test]
    fn trusted_tools_run_until_page_content_is_in_the_conversation() {
        let trusted = facts(true, false, None, true);
        assert_eq!(verdict(&trusted, false), Verdict::Run);
        assert_eq!(verdict(&trusted, true), Verdict::Ask { because_of_page_content: true });
        let always = facts(false, true, Some(false), true);
        assert_eq!(verdict(&always, true), Verdict::Ask { because_of_page_content: true });
    }

    #[test]
    fn read_only_tools_and_sources_that_opted_out_run_after_page_content() {
        assert_eq!(verdict(&facts(true, false, Some(true), true), true), Verdict::Run);
        assert_eq!(verdict(&facts(false, true, Some(true), true), true), Verdict::Run);
        assert_eq!(verdict(&facts(true, false, None, false), true), Verdict::Run);
    }
}
