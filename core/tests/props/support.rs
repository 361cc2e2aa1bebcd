//! The one runner every property goes through: proptest's, configured from the environment, with
//! a count of the cases run and a watchdog against cases that never end.

use std::cell::Cell;
use std::collections::hash_map::RandomState;
use std::fmt::Debug;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngSeed, TestCaseResult, TestError, TestRunner};

/// A case still running after this long is taken for a loop. Cases take microseconds (at most
/// milliseconds in a debug build), so a loaded machine is far from it.
pub const HANG_AFTER: Duration = Duration::from_secs(20);

/// Runs `test` on `PROPTEST_CASES` values of `strategy` (256 when unset) and prints
/// `property <name>: <n> cases`, the line `cargo xtask fuzz` counts. The seed comes from
/// `PROPTEST_RNG_SEED` or is drawn and printed with any failure, so every failure reproduces.
/// Failures are not persisted to files: a bug found becomes a plain regression test.
pub fn check<S>(name: &str, strategy: S, test: impl Fn(S::Value) -> TestCaseResult)
where
    S: Strategy,
    S::Value: Debug,
{
    let mut config = Config { failure_persistence: None, ..Config::default() };
    let seed = match config.rng_seed {
        RngSeed::Fixed(seed) => seed,
        RngSeed::Random => RandomState::new().build_hasher().finish(),
    };
    config.rng_seed = RngSeed::Fixed(seed);
    let cases = config.cases;
    let count = Cell::new(0u64);
    let watchdog = Watchdog::start(name, seed);
    let result = TestRunner::new(config).run(&strategy, |value| {
        count.set(count.get() + 1);
        watchdog.case(count.get());
        test(value)
    });
    drop(watchdog);
    println!("property {name}: {} cases", count.get());
    let reproduce = format!(
        "reproduce with PROPTEST_RNG_SEED={seed} PROPTEST_CASES={cases} \
         cargo test -p gemipanel-core --test props {name}"
    );
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, input)) => {
            panic!("property {name} failed: {why}\nsmallest input: {input:#?}\n{reproduce}")
        }
        Err(TestError::Abort(why)) => panic!("property {name} gave up: {why}\n{reproduce}"),
    }
}

/// Aborts the whole test binary when one case runs past [`HANG_AFTER`]: a looping case cannot
/// be interrupted, and a run that never ends reports nothing.
struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    epoch: Instant,
    /// Milliseconds after `epoch` at which the running case began.
    started_ms: AtomicU64,
    case: AtomicU64,
    done: AtomicBool,
}

impl Watchdog {
    fn start(name: &str, seed: u64) -> Self {
        let shared = Arc::new(Shared {
            epoch: Instant::now(),
            started_ms: AtomicU64::new(0),
            case: AtomicU64::new(0),
            done: AtomicBool::new(false),
        });
        let watched = Arc::clone(&shared);
        let name = name.to_owned();
        let thread = std::thread::spawn(move || {
            while !watched.done.load(Ordering::Acquire) {
                std::thread::park_timeout(Duration::from_millis(250));
                let started = Duration::from_millis(watched.started_ms.load(Ordering::Acquire));
                let running = watched.epoch.elapsed().saturating_sub(started);
                if running > HANG_AFTER && !watched.done.load(Ordering::Acquire) {
                    eprintln!(
                        "property {name}: case {} has run for {} s without ending (a loop?); \
                         reproduce with PROPTEST_RNG_SEED={seed}",
                        watched.case.load(Ordering::Acquire),
                        running.as_secs()
                    );
                    std::process::abort();
                }
            }
        });
        Watchdog { shared, thread: Some(thread) }
    }

    fn case(&self, number: u64) {
        let now = self.shared.epoch.elapsed().as_millis() as u64;
        self.shared.case.store(number, Ordering::Release);
        self.shared.started_ms.store(now, Ordering::Release);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.done.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
