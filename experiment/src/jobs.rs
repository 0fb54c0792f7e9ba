//! `--jobs N`: N pieces in flight in one process, for `cantus experiment run` and
//! `cantus bank`.
//!
//! Each piece is driven by its own worker thread (`Handle::block_on` on the caller's
//! multi-threaded runtime), so everything a piece does on the CPU — the engine's
//! verifying and repairing, the gates, fingerprints, writing files — runs on that
//! thread and never on the runtime's own threads, which are left to answer the
//! network (reqwest's connections, timers). The engine's futures need not be `Send`.
//!
//! The runtime is the caller's ([`io_runtime`] builds the one the command line uses):
//! a program that already runs tokio hands in its own `Handle` and calls the runner
//! from a blocking thread (`tokio::task::spawn_blocking`), since a worker thread of a
//! runtime cannot block on it.
//! Every model's backend is built once, when the experiment file or config is read,
//! and shared by reference across the workers, so its `concurrency` semaphore is one
//! limiter over all pieces in flight.
//!
//! Workers take the next item of the fixed order as they come free, and each result
//! goes back to the calling thread in completion order: whoever records the results
//! (one writer, so no two appends interleave) must not depend on that order. A
//! piece's failure is its result and never stops the others; only the caller's own
//! error (say, the results file cannot be written) stops the taking of new items,
//! and the pieces in flight are finished before it returns.

use std::future::Future;
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::runtime::{Handle, Runtime};

/// How many pieces may be in flight at once, 1 to [`Jobs::MAX`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jobs(usize);

impl Jobs {
    /// The most pieces in flight: each is a thread; more than this is a typo, not a plan.
    pub const MAX: usize = 256;

    /// One piece at a time.
    pub const ONE: Jobs = Jobs(1);

    /// `n` pieces in flight, if `n` is 1 to [`Jobs::MAX`].
    pub fn new(n: usize) -> Result<Jobs, String> {
        match n {
            0 => Err("must be at least 1".into()),
            n if n > Jobs::MAX => Err(format!(
                "{n} is more than {} pieces in flight; a backend's `concurrency` caps its \
                 requests anyway",
                Jobs::MAX
            )),
            n => Ok(Jobs(n)),
        }
    }

    /// The number.
    pub fn get(self) -> usize {
        self.0
    }
}

impl Default for Jobs {
    fn default() -> Self {
        Jobs::ONE
    }
}

impl FromStr for Jobs {
    type Err = String;
    fn from_str(s: &str) -> Result<Jobs, String> {
        let n = s
            .trim()
            .parse::<usize>()
            .map_err(|_| format!("`{s}` is not a whole number of pieces"))?;
        Jobs::new(n)
    }
}

/// The runtime the command line runs experiments on: two worker threads (`cantus-io`)
/// for the network and timers, the pieces' work being on threads of their own.
pub fn io_runtime() -> std::io::Result<Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("cantus-io")
        .enable_all()
        .build()
}

/// Runs `work` on every item, at most `jobs` at a time, each driven to completion on
/// `io` (a multi-threaded runtime's handle: a current-thread runtime would run only
/// while something blocks on it), calling `done` on the calling thread with each
/// item's index and result as it finishes. The first error `done` returns stops new
/// items from starting; the items in flight finish, and that error is returned.
///
/// Must be called outside the runtime's worker threads (from `main`, a plain
/// thread or `spawn_blocking`): each worker blocks on `io`.
pub fn in_flight<T, R, E, Fut>(
    jobs: Jobs,
    io: &Handle,
    items: Vec<T>,
    work: impl Fn(T) -> Fut + Sync,
    mut done: impl FnMut(usize, R) -> Result<(), E>,
) -> Result<(), E>
where
    T: Send,
    R: Send,
    Fut: Future<Output = R>,
{
    if items.is_empty() {
        return Ok(());
    }
    let workers = jobs.get().min(items.len());
    let queue = Mutex::new(items.into_iter().enumerate());
    let stop = AtomicBool::new(false);
    let (send, receive) = std::sync::mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for n in 0..workers {
            let (send, queue, stop, work) = (send.clone(), &queue, &stop, &work);
            std::thread::Builder::new()
                .name(format!("cantus-piece-{n}"))
                .spawn_scoped(scope, move || {
                    while !stop.load(Ordering::SeqCst) {
                        let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                        let Some((i, item)) = next else { break };
                        let result = io.block_on(work(item));
                        if send.send((i, result)).is_err() {
                            break;
                        }
                    }
                })
                .expect("starting a worker thread");
        }
        drop(send);
        let mut failed = None;
        // Ends when every worker has finished (each holds a sender).
        for (i, result) in receive {
            if failed.is_some() {
                continue;
            }
            if let Err(e) = done(i, result) {
                stop.store(true, Ordering::SeqCst);
                failed = Some(e);
            }
        }
        failed.map_or(Ok(()), Err)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[test]
    fn jobs_outside_one_to_the_ceiling_are_refused_with_a_reason() {
        assert_eq!("4".parse::<Jobs>(), Ok(Jobs(4)));
        assert_eq!("0".parse::<Jobs>().unwrap_err(), "must be at least 1");
        assert!("257".parse::<Jobs>().unwrap_err().contains("more than 256"));
        assert!("two".parse::<Jobs>().unwrap_err().contains("`two`"));
    }

    #[test]
    fn every_item_is_done_once_and_no_more_than_jobs_are_in_flight() {
        let (now, peak) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let mut seen = Vec::new();
        let io = io_runtime().unwrap();
        let result: Result<(), ()> = in_flight(
            Jobs(3),
            io.handle(),
            (0..20u64).collect(),
            |x| {
                let (now, peak) = (&now, &peak);
                async move {
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(n, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    now.fetch_sub(1, Ordering::SeqCst);
                    x * 10
                }
            },
            |i, r| {
                seen.push((i, r));
                Ok(())
            },
        );
        assert!(result.is_ok());
        seen.sort();
        assert_eq!(
            seen,
            (0..20u64).map(|x| (x as usize, x * 10)).collect::<Vec<_>>()
        );
        assert_eq!(
            peak.load(Ordering::SeqCst),
            3,
            "three in flight, never more"
        );
    }

    #[test]
    fn the_pieces_run_on_the_callers_runtime() {
        let host = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("host-runtime")
            .enable_all()
            .build()
            .unwrap();
        let mut threads = Vec::new();
        let result: Result<(), ()> = in_flight(
            Jobs(2),
            host.handle(),
            (0..4).collect(),
            |_: i32| async {
                // A task the piece spawns runs on the runtime it is driven on.
                tokio::spawn(async { std::thread::current().name().map(str::to_owned) })
                    .await
                    .unwrap()
            },
            |_, name| {
                threads.push(name);
                Ok(())
            },
        );
        assert!(result.is_ok());
        assert_eq!(threads, vec![Some("host-runtime".to_owned()); 4]);
    }

    #[test]
    fn an_error_of_the_caller_stops_new_items_and_is_returned() {
        let started = AtomicUsize::new(0);
        let io = io_runtime().unwrap();
        let result = in_flight(
            Jobs(2),
            io.handle(),
            (0..100u32).collect(),
            |_| {
                started.fetch_add(1, Ordering::SeqCst);
                async { tokio::time::sleep(Duration::from_millis(2)).await }
            },
            |i, ()| {
                if i >= 3 {
                    Err(format!("stop at {i}"))
                } else {
                    Ok(())
                }
            },
        );
        assert!(result.unwrap_err().starts_with("stop at"));
        assert!(started.load(Ordering::SeqCst) < 100, "new items stopped");
    }
}
