//! Exposing tools to Gemini: which tools, under which function names, with which schema,
//! and routing a function call back to (source, tool). A source is an MCP server, the
//! browser or a page ([`source`]); every kind goes through the same code here.
//!
//! Input is a small local [`ToolDescriptor`]; [`ToolDescriptor::from_mcp`] makes one from a
//! `tools/list` entry (the browser's tools and a page's are described as MCP tools too).

pub mod app_calls;
pub mod confirm;
pub mod form;
pub mod gathering;
pub mod naming;
pub mod view;

use std::collections::BTreeMap;

use indexmap::IndexMap;

use serde_json::Value;

use crate::gemini::{schema, FunctionDeclaration};
use crate::hash::short_hash;
use crate::mcp::{Tool, Visibility};
use crate::settings::source;
pub use view::ViewToolRoute;

/// One tool of one source.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDescriptor {
    /// The source's id ([`source`]): a server id, `browser`, or `page:<origin>`.
    pub server_id: String,
    /// Shown to people and used in the function name (a page's host).
    pub server_name: String,
    pub name: String,
    /// `title`, else `annotations.title`: words the tool is found by.
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    /// `_meta.ui.visibility` of the MCP Apps extension, as the specification reads it.
    pub visible_to_model: bool,
    pub visible_to_app: bool,
}

impl ToolDescriptor {
    /// Reads an entry of `tools/list`.
    pub fn from_mcp(server_id: &str, server_name: &str, tool: &Tool) -> Self {
        Self {
            server_id: server_id.into(),
            server_name: server_name.into(),
            name: tool.name.clone(),
            title: tool
                .title
                .clone()
                .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone())),
            description: tool.description.clone().unwrap_or_default(),
            input_schema: tool.input_schema.clone(),
            visible_to_model: tool.is_visible_to(Visibility::Model),
            visible_to_app: tool.is_visible_to(Visibility::App),
        }
    }
}

/// Per-server include/exclude lists of MCP tool names (as in gemini-cli's `includeTools` /
/// `excludeTools`). Exclusion wins.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolFilter {
    /// `None`: every tool not excluded.
    pub include: Option<Vec<String>>,
    pub exclude: Vec<String>,
}

impl ToolFilter {
    pub fn allows(&self, tool: &str) -> bool {
        let included = self.include.as_ref().is_none_or(|list| list.iter().any(|t| t == tool));
        included && !self.exclude.iter().any(|t| t == tool)
    }
}

/// Where a function call goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRoute {
    pub server_id: String,
    pub tool_name: String,
}

/// One tool as Gemini sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExposedTool {
    pub route: ToolRoute,
    pub title: Option<String>,
    pub declaration: FunctionDeclaration,
}

/// One of an app's own tools as Gemini sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExposedViewTool {
    pub route: ViewToolRoute,
    pub declaration: FunctionDeclaration,
}

/// The tools of a chat, named uniquely and sorted by function name (a stable prefix helps the
/// API's prompt cache): MCP servers' tools, and the tools of the apps alive in the chat.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExposedTools {
    by_name: IndexMap<String, ExposedTool>,
    /// In the order added: few, and the budget's catalog sorts what it sends (a sort or a map
    /// of their own would cost the side panel's wasm more than they save).
    views: Vec<ExposedViewTool>,
}

impl ExposedTools {
    /// The model-visible tools that pass their server's filter (no filter: all). Two tools whose
    /// names collide after sanitising both get a hash of (server id, tool name) as suffix, so the
    /// result does not depend on input order. Exact duplicates are kept once.
    pub fn build(tools: &[ToolDescriptor], filters: &IndexMap<String, ToolFilter>) -> Self {
        let mut exposed = Self::default();
        exposed.extend(tools, filters);
        exposed
    }

    /// Adds the tools of more sources (the browser's, a page's) under the same rules: a name
    /// that collides, with one of them or with a tool already here, gets the hash suffix.
    pub fn extend(&mut self, tools: &[ToolDescriptor], filters: &IndexMap<String, ToolFilter>) {
        let selected: Vec<&ToolDescriptor> = tools
            .iter()
            .filter(|t| t.visible_to_model)
            .filter(|t| filters.get(&t.server_id).is_none_or(|f| f.allows(&t.name)))
            .collect();
        let mut groups: IndexMap<String, Vec<&ToolDescriptor>> = IndexMap::new();
        for tool in selected {
            groups
                .entry(naming::for_source(
                    source::SourceKind::of(&tool.server_id),
                    &tool.server_name,
                    &tool.name,
                ))
                .or_default()
                .push(tool);
        }
        for (base, group) in groups {
            let unique = group.len() == 1 && !self.by_name.contains_key(&base);
            for tool in group {
                let name = if unique {
                    base.clone()
                } else {
                    let key = format!("{}\u{0}{}", tool.server_id, tool.name);
                    naming::with_suffix(&base, &short_hash(&key))
                };
                self.by_name.entry(name.clone()).or_insert_with(|| ExposedTool {
                    route: ToolRoute {
                        server_id: tool.server_id.clone(),
                        tool_name: tool.name.clone(),
                    },
                    title: tool.title.clone(),
                    declaration: FunctionDeclaration {
                        name,
                        description: tool.description.clone(),
                        parameters_json_schema: Some(schema::parameters_json_schema(
                            &tool.input_schema,
                        )),
                        parameters: None,
                    },
                });
            }
        }
        // Sorted, so the declarations do not depend on the order servers listed their tools.
        self.by_name.sort_unstable_keys();
    }

    /// Adds the tools app `instance` (labelled `label` for the model) offers of its own. Two
    /// of its names that collide after sanitising get a hash suffix, as server tools do.
    pub fn add_view_tools(&mut self, instance: &str, label: &str, tools: &[Tool]) {
        for tool in tools {
            let mut name = view::function_name(instance, &tool.name);
            if self.view(&name).is_some() {
                let key = format!("{instance}\u{0}{}", tool.name);
                name = naming::with_suffix(&name, &short_hash(&key));
            }
            let description = view::description(label, tool.description.as_deref().unwrap_or(""));
            let declaration = FunctionDeclaration {
                name: name.clone(),
                description,
                parameters_json_schema: Some(schema::parameters_json_schema(&tool.input_schema)),
                parameters: None,
            };
            let route = ViewToolRoute {
                instance: instance.to_owned(),
                tool_name: tool.name.clone(),
                label: label.to_owned(),
            };
            if self.view(&name).is_none() {
                self.views.push(ExposedViewTool { route, declaration });
            }
        }
    }

    /// Drops the apps' tools (to add them again as they are now).
    pub fn clear_view_tools(&mut self) {
        self.views.clear();
    }

    fn view(&self, function_name: &str) -> Option<&ExposedViewTool> {
        self.views.iter().find(|t| t.declaration.name == function_name)
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty() && self.views.is_empty()
    }

    pub fn len(&self) -> usize {
        self.by_name.len() + self.views.len()
    }

    /// The `functionDeclarations` to send: the servers' tools sorted by name, then the apps'.
    pub fn declarations(&self) -> Vec<FunctionDeclaration> {
        let servers = self.by_name.values().map(|t| &t.declaration);
        servers.chain(self.views.iter().map(|t| &t.declaration)).cloned().collect()
    }

    /// Titles by function name, for ranking (`ChatConfig::titles`).
    pub fn titles(&self) -> BTreeMap<String, String> {
        let mut titles: BTreeMap<String, String> = self
            .by_name
            .iter()
            .filter_map(|(name, t)| Some((name.clone(), t.title.clone()?)))
            .collect();
        for tool in &self.views {
            titles.insert(tool.declaration.name.clone(), tool.route.tool_name.clone());
        }
        titles
    }

    /// Routes a function name from the model to an app's own tool.
    pub fn view_route(&self, function_name: &str) -> Option<&ViewToolRoute> {
        self.view(function_name).map(|t| &t.route)
    }

    /// Routes a function name from the model back to its server and tool.
    pub fn route(&self, function_name: &str) -> Option<&ToolRoute> {
        self.by_name.get(function_name).map(|t| &t.route)
    }

    /// The function name given to a tool, for showing in the UI.
    pub fn function_name(&self, server_id: &str, tool_name: &str) -> Option<&str> {
        self.by_name
            .iter()
            .find(|(_, t)| t.route.server_id == server_id && t.route.tool_name == tool_name)
            .map(|(name, _)| name.as_str())
    }

    /// The MCP servers' tools (apps' tools: [`ExposedTools::view_route`]).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ExposedTool)> {
        self.by_name.iter().map(|(k, v)| (k.as_str(), v))
    }
}
