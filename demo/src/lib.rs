//! A small MCP server to try GemiPanel with (`cargo xtask run` starts it and configures it):
//! `pick_colour` shows an MCP App (a colour picker written with the official `App` class),
//! `set_colour` is the tool that app calls back (visible to apps only), `roll_dice` is a plain
//! tool, and `gemipanel-demo://swatch/{colour}` a resource template whose colour is completed.
//! Built on rmcp, the official Rust SDK, over Streamable HTTP.

mod swatches;
mod tools;

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

pub use tools::{Demo, APP_URI};

/// Serves the demo on `listener` at `/mcp` until the task is dropped. `app_html` is the app's
/// bundled document (`demo/app/build.mjs`).
pub async fn serve(listener: tokio::net::TcpListener, app_html: String) -> std::io::Result<()> {
    let app_html: Arc<str> = app_html.into();
    let service = StreamableHttpService::new(
        move || Ok(Demo::new(app_html.clone())),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    axum::serve(listener, router).await
}

/// A loopback listener on `port` (0: any free port).
pub async fn bind(port: u16) -> std::io::Result<(tokio::net::TcpListener, SocketAddr)> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let address = listener.local_addr()?;
    Ok((listener, address))
}
