//! Runtime-free coordination of futures on one thread (the browser's, or a test's): races and
//! deadlines, a FIFO lock, single-flight work, and the newest of crossing answers. No executor, no timer: hosts bring those.

mod fifo;
mod latest;
mod race;
mod single_flight;

pub use fifo::{FifoLock, Guard};
pub use latest::Latest;
pub use race::{first, within, CancelToken, Either};
pub use single_flight::SingleFlight;
