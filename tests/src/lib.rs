//! Shared helpers of the native integration tests.
