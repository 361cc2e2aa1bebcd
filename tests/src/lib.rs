//! Shared helpers of the native integration tests: a reqwest/tokio host for the core MCP client
//! and real MCP servers started on loopback ports.

pub mod keys;
pub mod oauth;
pub mod oidc;
pub mod raw_server;
pub mod servers;
pub mod transport;

pub use servers::TestServer;
pub use transport::NativeHost;
