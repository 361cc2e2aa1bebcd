//! What the Gemini API accepts in one request's function declarations, and the budget GemiPanel
//! keeps below it.
//!
//! Only the declaration count is documented. The nesting depth and the "too many states" limit
//! are not: the numbers below come from refused requests that people reported, and each says
//! where it comes from. The fake Gemini server (tests/fixtures/fake-gemini/server.mjs) enforces
//! the same numbers with the API's own error texts.

/// Hard limit of `tools[0].function_declarations`. The API answers 400 INVALID_ARGUMENT "The
/// GenerateContentRequest proto is invalid: * tools[0].function_declarations: [FIELD_INVALID]
/// At most 512 function declarations can be specified." (google-gemini/gemini-cli#19083, with
/// many MCP servers enabled). The reference documentation said 64, then 128
/// (googleapis/google-cloud-dotnet#13783 "updated the maximum number of function declarations
/// from 64 to 128"); 512 is what the API enforces today.
pub const API_MAX_FUNCTION_DECLARATIONS: usize = 512;

/// Deepest schema the API accepts, counted in schema nodes on the longest path, the root object
/// being 1 and every subschema (a property, `items`, an `anyOf` member, …) one more. Deeper
/// declarations are refused with 400 INVALID_ARGUMENT "FunctionDeclaration '<name>' in the
/// request exceeds the maximum allowed nesting depth." (or "A FunctionDeclaration in the
/// request …"). Undocumented; bounded by what was reported:
/// - refused at 7: `create_merge_request_thread` of @zereight/mcp-gitlab (zereight/gitlab-mcp#223,
///   `position.line_range.anyOf.start.type.anyOf`, depth 7 as recorded in
///   core/tests/data/tools/corpus.json);
/// - refused: Notion's server on every prompt (google-gemini/gemini-cli#5923); its npm
///   package's `API-patch-block-children` is depth 10 in the corpus;
/// - accepted at 5: the reference memory server's `create_entities`
///   (`entities[].observations[]`) and GitHub's `create_pull_request_review`, used daily with
///   gemini-cli without such reports;
/// - others who hit the same limit settled on 4 OBJECT/ARRAY levels below the root
///   (Portkey-AI/gateway#1616, presenton/presenton#327 "max nesting depth ~5 levels"),
///   which is 5 here.
///
/// Depth 6 is unproven either way, so 5 is kept.
pub const API_MAX_SCHEMA_DEPTH: usize = 5;

/// "The specified schema produces a constraint that has too many states for serving." The API
/// compiles the declarations into a state machine for constrained decoding; its size grows
/// with the whole request, not one schema: a single 239-tool server triggers it (issue 15),
/// and array bounds count cumulatively (googleapis/python-genai#2170, `parametersJsonSchema`:
/// eight arrays with `maxItems` 120 (sum 960) are refused and eight with 119 (952) accepted;
/// `maximum`/`maxLength` of the same values change nothing). Enums and deep nesting add states
/// too (flutter/genui#428). There is no published number, so GemiPanel keeps requests small
/// ([`Budget::default`]), drops the array bounds of a schema whose bounds add up past this
/// sum, and, when the API still refuses, retries once with half the tools.
pub const API_MAX_ARRAY_BOUNDS_SUM: u64 = 950;

/// The per-request budget. `max_*`: when every enabled tool fits, all are sent. Otherwise the
/// most relevant tools up to `pick_*` are sent with `search_tools`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// At most this many declarations are ever sent ([`API_MAX_FUNCTION_DECLARATIONS`] is the
    /// API's ceiling; the default stays at the 128 the API documented, far from "too many
    /// states").
    pub max_declarations: usize,
    /// Bytes of declaration JSON (names, descriptions, schemas) sent at most.
    pub max_bytes: usize,
    /// When not everything fits: tools picked for the turn (besides `search_tools`).
    pub pick_declarations: usize,
    pub pick_bytes: usize,
    /// Schemas deeper than this are flattened ([`API_MAX_SCHEMA_DEPTH`]).
    pub max_depth: usize,
    /// Tools one `search_tools` call returns.
    pub search_results: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            max_declarations: 128,
            max_bytes: 128 * 1024,
            pick_declarations: 24,
            pick_bytes: 48 * 1024,
            max_depth: API_MAX_SCHEMA_DEPTH,
            search_results: 8,
        }
    }
}
