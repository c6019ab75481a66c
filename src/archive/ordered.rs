//! Work on a stream of items on several threads, with the results handed
//! out in the stream's order, on the calling thread.
//!
//! # Why not a thread pool
//!
//! The scan's unit of work is a file, and an archive holds thousands of
//! small ones. With a pool, each file took several wake-ups between
//! threads (a producer walking the folders, a worker, the consumer that
//! writes the reports, and the credit that lets the producer go on), each
//! a futex call and a context switch: 1,870 context switches for a
//! one-thread scan of 1,638 files, and an eighth of its CPU time
//! (`benches/RESULTS.md`, eleventh session).
//!
//! Here the calling thread is one of the workers, and every worker takes
//! the next item itself, under a lock held only to take it or to leave a
//! result. The caller hands out, in order, the results that are ready
//! whenever it is between two items of its own. A thread waits only when
//! there is nothing it may do: a helper when the window of items in flight
//! is full, the caller when it may take nothing more (the window is full
//! or the items are out) and the next result is still being worked on. So
//! a one-thread scan is a plain loop, and a many-thread one rarely sleeps.
//!
//! The window bounds memory: at most `window` items are taken and not yet
//! handed out, whatever the number of items or how long any one takes.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard};

/// What the workers share, behind one lock.
struct Shared<I, R> {
    /// The items, numbered; `None` once they are all taken.
    items: Option<std::iter::Enumerate<I>>,
    /// How many items were taken.
    taken: usize,
    /// The number of the next result to hand out.
    next: usize,
    /// Results that are ready but wait for one before them.
    ready: BTreeMap<usize, R>,
    /// A helper panicked: its item's result will never come.
    failed: bool,
    /// How many helpers wait for room in the window.
    helpers_waiting: usize,
    /// Whether the caller waits for the next result.
    caller_waiting: bool,
}

impl<I: Iterator, R> Shared<I, R> {
    /// The next item and its number, if the window allows one now.
    fn take(&mut self, window: usize) -> Option<(usize, I::Item)> {
        if self.taken - self.next >= window {
            return None;
        }
        let item = self.items.as_mut()?.next();
        match item {
            Some((i, item)) => {
                self.taken += 1;
                Some((i, item))
            }
            None => {
                self.items = None;
                None
            }
        }
    }

    /// Whether every item was taken and every result handed out.
    fn finished(&self) -> bool {
        self.items.is_none() && self.next == self.taken
    }
}

/// The lock, the condition helpers wait on (room in the window, or the
/// end), and the one the caller waits on (a result it may hand out).
struct Pipeline<I, R> {
    shared: Mutex<Shared<I, R>>,
    room: Condvar,
    result: Condvar,
    window: usize,
}

impl<I: Iterator, R> Pipeline<I, R> {
    fn lock(&self) -> MutexGuard<'_, Shared<I, R>> {
        // A panic never happens with the lock held (work is done outside
        // it), so a poisoned lock still holds consistent state.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Leave a result; wake the caller if it waits for this one.
    ///
    /// Each wake-up is a system call, so none is made for a thread that
    /// does not wait: on an archive of 3,963 small files (a few KB each),
    /// two threads made 16,880 `futex` calls before, 9,139 since.
    fn leave(&self, i: usize, r: R) {
        let mut s = self.lock();
        s.ready.insert(i, r);
        if i == s.next && s.caller_waiting {
            self.result.notify_one();
        }
    }
}

/// Marks the pipeline failed if a helper unwinds, so the caller does not
/// wait for the result it was working on.
struct Unwinding<'p, I: Iterator, R>(&'p Pipeline<I, R>);

impl<I: Iterator, R> Drop for Unwinding<'_, I, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.lock().failed = true;
            self.0.result.notify_one();
        }
    }
}

/// Apply `work` to every item of `items` on `threads` threads (the calling
/// one among them), and call `each` with the results in the items' order,
/// on the calling thread. At most `window` items are taken and not yet
/// handed to `each`.
///
/// A panic in `work` on a helper thread stops the run and is resumed on
/// the calling thread.
///
/// # Errors
///
/// The error of the operating system when a helper thread cannot be
/// started; then `each` is never called.
pub(crate) fn for_each_ordered<I, R, W>(
    items: I,
    threads: usize,
    window: usize,
    work: W,
    each: &mut dyn FnMut(R),
) -> std::io::Result<()>
where
    I: Iterator + Send,
    R: Send,
    W: Fn(I::Item) -> R + Sync,
{
    let pipeline = Pipeline {
        shared: Mutex::new(Shared {
            items: Some(items.enumerate()),
            taken: 0,
            next: 0,
            ready: BTreeMap::new(),
            failed: false,
            helpers_waiting: 0,
            caller_waiting: false,
        }),
        room: Condvar::new(),
        result: Condvar::new(),
        window: window.max(1),
    };
    let (pipeline, work) = (&pipeline, &work);
    std::thread::scope(|scope| {
        let _closing = Closing(pipeline);
        for _ in 1..threads.max(1) {
            std::thread::Builder::new()
                .spawn_scoped(scope, move || helper(pipeline, work))?;
        }
        caller(pipeline, work, each);
        Ok(())
    })
}

/// A helper thread's part: take an item when the window has room, work on
/// it, leave its result; until the items run out.
fn helper<I, R, W>(pipeline: &Pipeline<I, R>, work: &W)
where
    I: Iterator,
    W: Fn(I::Item) -> R,
{
    let _unwinding = Unwinding(pipeline);
    loop {
        let mut s = pipeline.lock();
        let (i, item) = loop {
            if let Some(taken) = s.take(pipeline.window) {
                break taken;
            }
            if s.items.is_none() {
                return;
            }
            s.helpers_waiting += 1;
            s = pipeline.room.wait(s).unwrap_or_else(|e| e.into_inner());
            s.helpers_waiting -= 1;
        };
        drop(s);
        pipeline.leave(i, work(item));
    }
}

/// Ends the run when the caller is done, or unwinds: helpers that wait
/// for room are woken to see that there are no more items, so that the
/// scope can join them.
struct Closing<'p, I: Iterator, R>(&'p Pipeline<I, R>);

impl<I: Iterator, R> Drop for Closing<'_, I, R> {
    fn drop(&mut self) {
        self.0.lock().items = None;
        self.0.room.notify_all();
    }
}

/// The calling thread's part: hand out what is ready, else work on an
/// item, else wait for the next result.
fn caller<I, R, W>(
    pipeline: &Pipeline<I, R>,
    work: &W,
    each: &mut dyn FnMut(R),
) where
    I: Iterator,
    W: Fn(I::Item) -> R,
{
    let mut s = pipeline.lock();
    // The results handed out in one go: all those ready, in order, under
    // one taking of the lock.
    let mut run = vec![];
    loop {
        let first = s.next;
        while let Some(r) = s.ready.remove(&(first + run.len())) {
            run.push(r);
        }
        if !run.is_empty() {
            let n = run.len();
            drop(s);
            run.drain(..).for_each(&mut *each);
            s = pipeline.lock();
            s.next += n;
            if s.helpers_waiting > 0 {
                pipeline.room.notify_all();
            }
            continue;
        }
        if s.finished() || s.failed {
            return;
        }
        if let Some((i, item)) = s.take(pipeline.window) {
            drop(s);
            let r = work(item);
            s = pipeline.lock();
            s.ready.insert(i, r);
            continue;
        }
        // `take` may have just found the items run out.
        if s.finished() {
            return;
        }
        s.caller_waiting = true;
        s = pipeline.result.wait(s).unwrap_or_else(|e| e.into_inner());
        s.caller_waiting = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(n: usize, threads: usize, window: usize) -> Vec<usize> {
        let mut out = vec![];
        for_each_ordered(
            0..n,
            threads,
            window,
            |i| {
                // Uneven work, so results finish out of order.
                if i % 7 == 0 {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                i * 2
            },
            &mut |r| out.push(r),
        )
        .unwrap();
        out
    }

    #[test]
    fn results_come_in_order_on_any_thread_count() {
        let want: Vec<usize> = (0..500).map(|i| i * 2).collect();
        for threads in [1, 2, 3, 8] {
            for window in [1, 2, 5, 64] {
                assert_eq!(
                    run(500, threads, window),
                    want,
                    "{threads}/{window}"
                );
            }
        }
        assert!(run(0, 4, 8).is_empty());
    }

    #[test]
    fn the_window_bounds_the_items_in_flight() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let taken = AtomicUsize::new(0);
        let handed = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let items = (0..300).inspect(|_| {
            let t = taken.fetch_add(1, Ordering::SeqCst) + 1;
            let out = t - handed.load(Ordering::SeqCst);
            most.fetch_max(out, Ordering::SeqCst);
        });
        for_each_ordered(items, 4, 10, |i| i, &mut |_| {
            handed.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        assert_eq!(handed.load(Ordering::SeqCst), 300);
        assert!(most.load(Ordering::SeqCst) <= 10);
    }

    #[test]
    fn a_panicking_helper_stops_the_run_and_the_panic_reaches_the_caller() {
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut n = 0;
                for_each_ordered(
                    0..1000,
                    3,
                    8,
                    |i| {
                        if i == 100 {
                            panic!("boom");
                        }
                        i
                    },
                    &mut |_| n += 1,
                )
            }));
        assert!(result.is_err());
    }
}
