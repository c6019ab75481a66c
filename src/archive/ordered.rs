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
//! the next item itself. The caller hands out, in order, the results that
//! are ready whenever it is between two items of its own. A thread waits
//! only when there is nothing it may do: a helper when the window of items
//! in flight is full, the caller when it may take nothing more (the window
//! is full or the items are out) and the next result is still being worked
//! on. So a one-thread scan is a plain loop, and a many-thread one rarely
//! sleeps.
//!
//! # Two locks
//!
//! Taking an item is two steps under two locks: a slot in the window is
//! reserved under the lock of the results, then the item is pulled from
//! the stream under a lock of its own. The scan's stream is a directory
//! walk, whose `next` reads directories and stats files; under the one
//! lock of the results, every other thread's result and hand-out waited
//! for those system calls: on an archive of small files, 43% of the times
//! a thread went to sleep (`benches/RESULTS.md`, 2026-12-04).
//!
//! # Batches
//!
//! When items are quick to work (a few KB of transcript), a thread takes
//! several in one go ([`Pace`]): slots for all of them at once, the items
//! under one taking of the stream's lock. One at a time, two threads met
//! at the stream's lock at nearly every small file, and each meeting is a
//! sleep and a wake-up.
//!
//! The window bounds memory: at most `window` items are taken and not yet
//! handed out, whatever the number of items or how long any one takes.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The stream of items, numbered as they are pulled.
struct Items<I> {
    iter: std::iter::Fuse<I>,
    /// How many items were pulled.
    pulled: usize,
}

/// What pulling for some reserved slots gave.
struct Pulled {
    /// The number of the first item pulled; the others follow it.
    first: usize,
    /// The number of items, when the stream ended before every slot had
    /// one.
    ended: Option<usize>,
}

/// How many items a thread takes in one go: as many as it works through
/// in about [`BATCH_TIME`], from one to [`MAX_BATCH`].
///
/// Taking an item takes the stream's lock, and on an archive of small
/// files the threads met there at nearly every file: on 3,963 Gemini CLI
/// logs of a few KB, two threads made 4,000 `futex` calls, each a sleep
/// and a wake-up, and took longer than one. Files that take a
/// millisecond are still taken one at a time, so no thread is left at
/// the end with a batch of long files while the others idle.
#[derive(Debug, Default)]
struct Pace {
    /// The time an item took, on average over the last batch; zero until
    /// one is worked.
    per_item: Duration,
    /// Whether this is the only thread, which then never batches.
    alone: bool,
}

/// The work a thread takes in one go, in time.
const BATCH_TIME: Duration = Duration::from_micros(200);

/// The most items a thread takes in one go.
const MAX_BATCH: usize = 16;

impl Pace {
    /// How many items to take next.
    fn batch(&self) -> usize {
        if self.alone || self.per_item.is_zero() {
            return 1;
        }
        let n = BATCH_TIME.as_nanos() / self.per_item.as_nanos();
        (n as usize).clamp(1, MAX_BATCH)
    }

    /// `n` items were worked in `took`.
    fn worked(&mut self, n: usize, took: Duration) {
        if let Some(per_item) = took.checked_div(n as u32) {
            self.per_item = per_item.max(Duration::from_nanos(1));
        }
    }
}

/// A result, and the helper that made it (`None`: the caller).
///
/// A result is dropped on the thread that made it. A scan's report holds
/// a few dozen allocations, and freeing memory that another thread
/// allocated takes that thread's allocator lock (glibc's arenas), which
/// its own parsing takes all the time: on 3,963 small Gemini CLI logs,
/// two threads slept there a thousand times, and took longer than one.
struct Made<R> {
    helper: Option<usize>,
    result: R,
}

/// The results that are ready, by item number: a ring with a slot for
/// each item the window lets be in flight, made once.
///
/// The items in flight are numbered from the next to hand out, and there
/// are never more than the window's size, so each has its own slot. A map
/// allocated and freed nodes as results came and went, on both threads:
/// memory one thread allocates and another frees meets on glibc's arena
/// locks ([`Made`]).
struct Ready<R> {
    slots: Vec<Option<Made<R>>>,
}

impl<R> Ready<R> {
    fn new(window: usize) -> Ready<R> {
        Ready { slots: (0..window).map(|_| None).collect() }
    }

    /// Keep the result of item `i`.
    fn put(&mut self, i: usize, made: Made<R>) {
        let n = self.slots.len();
        let slot = &mut self.slots[i % n];
        debug_assert!(slot.is_none(), "two items in flight share a slot");
        *slot = Some(made);
    }

    /// The result of item `i`, if it is ready; `i` must be in flight.
    fn take(&mut self, i: usize) -> Option<Made<R>> {
        let n = self.slots.len();
        self.slots[i % n].take()
    }
}

/// The window and the results, behind one lock.
struct Shared<R> {
    /// Slots in the window that are reserved: items pulled, or being
    /// pulled, and not handed out.
    reserved: usize,
    /// The number of the next result to hand out.
    next: usize,
    /// Results that are ready but wait for one before them.
    ready: Ready<R>,
    /// Per helper, the results handed out that it made, for it to drop.
    returned: Vec<Vec<R>>,
    /// The number of items, once the stream has ended.
    count: Option<usize>,
    /// The caller is done: nothing more is taken.
    closed: bool,
    /// A helper panicked: its item's result will never come.
    failed: bool,
    /// How many helpers wait for room in the window.
    helpers_waiting: usize,
    /// Whether the caller waits for the next result.
    caller_waiting: bool,
}

/// Whether slots in the window could be reserved.
enum Slot {
    /// This many reserved, one or more: pull as many items.
    Reserved(usize),
    /// The window is full.
    Full,
    /// Nothing more is to be taken.
    Done,
}

impl<R> Shared<R> {
    /// Reserve slots for up to `want` items, as many as the window has
    /// room for.
    fn reserve(&mut self, window: usize, want: usize) -> Slot {
        let ended = self.count.is_some_and(|c| self.next + self.reserved >= c);
        if self.closed || ended {
            return Slot::Done;
        }
        let n = want.min(window.saturating_sub(self.reserved));
        if n == 0 {
            return Slot::Full;
        }
        self.reserved += n;
        Slot::Reserved(n)
    }

    /// Whether every item was taken and every result handed out.
    fn finished(&self) -> bool {
        self.count == Some(self.next)
    }
}

/// The two locks, the condition helpers wait on (room in the window, or
/// the end), and the one the caller waits on (a result it may hand out).
struct Pipeline<I, R> {
    /// How many helper threads there are.
    helpers: usize,
    items: Mutex<Items<I>>,
    shared: Mutex<Shared<R>>,
    room: Condvar,
    result: Condvar,
    window: usize,
}

impl<I: Iterator, R> Pipeline<I, R> {
    fn lock(&self) -> MutexGuard<'_, Shared<R>> {
        // A panic never happens with the lock held (work is done outside
        // it), so a poisoned lock still holds consistent state.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Pull up to `n` items into `batch`, for as many slots reserved in
    /// the window, under one taking of the stream's lock. (A panic in the
    /// stream's `next` poisons this lock; the items after it are then
    /// pulled from the stream as it was left.)
    fn pull(&self, n: usize, batch: &mut Vec<I::Item>) -> Pulled {
        let mut items = self.items.lock().unwrap_or_else(|e| e.into_inner());
        let first = items.pulled;
        batch.extend(items.iter.by_ref().take(n));
        items.pulled += batch.len();
        let ended = (batch.len() < n).then_some(items.pulled);
        Pulled { first, ended }
    }

    /// The stream ended after `count` items, found by pulling for slots
    /// of which `unused` got no item: free them, and wake whoever may now
    /// be done.
    fn end(&self, s: &mut Shared<R>, count: usize, unused: usize) {
        s.reserved -= unused;
        s.count = Some(count);
        if s.caller_waiting && s.finished() {
            self.result.notify_one();
        }
        if s.helpers_waiting > 0 {
            self.room.notify_all();
        }
    }

    /// Leave a result; wake the caller if it waits for this one.
    ///
    /// Each wake-up is a system call, so none is made for a thread that
    /// does not wait: on an archive of 3,963 small files (a few KB each),
    /// two threads made 16,880 `futex` calls before, 9,139 since.
    ///
    /// `returned` is the helper's spare list: it comes back with the
    /// helper's results that were handed out since, for it to drop with
    /// the lock released.
    fn leave(&self, me: usize, i: usize, r: R, returned: &mut Vec<R>) {
        let mut s = self.lock();
        s.ready.put(i, Made { helper: Some(me), result: r });
        if i == s.next && s.caller_waiting {
            self.result.notify_one();
        }
        std::mem::swap(&mut s.returned[me], returned);
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
/// handed to `each`. Each thread makes its own `space` once and hands it
/// to `work` with each of its items: what a worker keeps from one item to
/// the next (a scan's parsers and buffer).
///
/// `each` may take what it wants of a result; what it leaves is dropped
/// on the thread that made the result ([`Made`]).
///
/// A panic in `work` on a helper thread stops the run and is resumed on
/// the calling thread.
///
/// # Errors
///
/// The error of the operating system when a helper thread cannot be
/// started; then `each` is never called.
pub(crate) fn for_each_ordered<I, R, S, W>(
    items: I,
    (threads, window): (usize, usize),
    space: &(dyn Fn() -> S + Sync),
    work: W,
    each: &mut dyn FnMut(&mut R),
) -> std::io::Result<()>
where
    I: Iterator + Send,
    R: Send,
    W: Fn(&mut S, I::Item) -> R + Sync,
{
    let pipeline = Pipeline {
        helpers: threads.max(1) - 1,
        items: Mutex::new(Items { iter: items.fuse(), pulled: 0 }),
        shared: Mutex::new(Shared {
            reserved: 0,
            next: 0,
            ready: Ready::new(window.max(1)),
            returned: (1..threads.max(1)).map(|_| vec![]).collect(),
            count: None,
            closed: false,
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
        for me in 0..pipeline.helpers {
            std::thread::Builder::new().spawn_scoped(scope, move || {
                let mut space = space();
                helper(pipeline, |item| work(&mut space, item), me)
            })?;
        }
        let mut space = space();
        caller(pipeline, |item| work(&mut space, item), each);
        Ok(())
    })
}

/// A helper thread's part (helper number `me`): take items when the window
/// has room, work on them, leave their results; until the items run out.
fn helper<I, R, W>(pipeline: &Pipeline<I, R>, mut work: W, me: usize)
where
    I: Iterator,
    W: FnMut(I::Item) -> R,
{
    let _unwinding = Unwinding(pipeline);
    let (mut batch, mut pace) = (vec![], Pace::default());
    // The results of this thread's that were handed out, to drop.
    let mut returned = vec![];
    loop {
        let mut s = pipeline.lock();
        let n = loop {
            match s.reserve(pipeline.window, pace.batch()) {
                Slot::Reserved(n) => break n,
                Slot::Done => return,
                Slot::Full => {
                    s.helpers_waiting += 1;
                    s = pipeline
                        .room
                        .wait(s)
                        .unwrap_or_else(|e| e.into_inner());
                    s.helpers_waiting -= 1;
                }
            }
        };
        drop(s);
        let pulled = pipeline.pull(n, &mut batch);
        if let Some(count) = pulled.ended {
            pipeline.end(&mut pipeline.lock(), count, n - batch.len());
        }
        let started = Instant::now();
        let worked = batch.len();
        for (i, item) in (pulled.first..).zip(batch.drain(..)) {
            pipeline.leave(me, i, work(item), &mut returned);
            returned.clear();
        }
        pace.worked(worked, started.elapsed());
        if pulled.ended.is_some() {
            return;
        }
    }
}

/// Ends the run when the caller is done, or unwinds: helpers that wait
/// for room are woken to see that there are no more items, so that the
/// scope can join them.
struct Closing<'p, I: Iterator, R>(&'p Pipeline<I, R>);

impl<I: Iterator, R> Drop for Closing<'_, I, R> {
    fn drop(&mut self) {
        self.0.lock().closed = true;
        self.0.room.notify_all();
    }
}

/// The calling thread's part: hand out what is ready, else work on an
/// item, else wait for the next result.
fn caller<I, R, W>(
    pipeline: &Pipeline<I, R>,
    mut work: W,
    each: &mut dyn FnMut(&mut R),
) where
    I: Iterator,
    W: FnMut(I::Item) -> R,
{
    let mut s = pipeline.lock();
    // The results handed out in one go: all those ready, in order, under
    // one taking of the lock; then those a helper made, to go back to it.
    let (mut run, mut back) = (vec![], vec![]);
    // The items taken in one go, and their results; kept from batch to
    // batch.
    let (mut batch, mut results) = (vec![], vec![]);
    // Alone, the caller takes one item at a time: nobody waits for it.
    let mut pace = Pace { alone: pipeline.helpers == 0, ..Pace::default() };
    loop {
        let first = s.next;
        while let Some(r) = s.ready.take(first + run.len()) {
            run.push(r);
        }
        if !run.is_empty() {
            let n = run.len();
            drop(s);
            for Made { helper, mut result } in run.drain(..) {
                each(&mut result);
                if let Some(h) = helper {
                    back.push((h, result));
                }
            }
            s = pipeline.lock();
            for (h, result) in back.drain(..) {
                s.returned[h].push(result);
            }
            s.next += n;
            s.reserved -= n;
            if s.helpers_waiting > 0 {
                pipeline.room.notify_all();
            }
            continue;
        }
        if s.finished() || s.failed {
            return;
        }
        if let Slot::Reserved(n) = s.reserve(pipeline.window, pace.batch()) {
            drop(s);
            let pulled = pipeline.pull(n, &mut batch);
            let started = Instant::now();
            let worked = batch.len();
            results.extend(batch.drain(..).map(&mut work));
            pace.worked(worked, started.elapsed());
            s = pipeline.lock();
            if let Some(count) = pulled.ended {
                pipeline.end(&mut s, count, n - worked);
            }
            let made =
                results.drain(..).map(|result| Made { helper: None, result });
            for (i, made) in (pulled.first..).zip(made) {
                s.ready.put(i, made);
            }
            continue;
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
            (threads, window),
            &|| (),
            |_, i| {
                // Uneven work, so results finish out of order.
                if i % 7 == 0 {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                i * 2
            },
            &mut |r: &mut usize| out.push(*r),
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

    /// The stream is pulled outside the lock of the results: a slow
    /// `next` (a walk reading directories) still gives every result once,
    /// in order, however the threads race to the end of the stream.
    #[test]
    fn a_slow_stream_gives_every_result_in_order() {
        for threads in [2, 3, 8] {
            for window in [1, 3, 64] {
                for n in [0, 1, 2, 150] {
                    let items = (0..n).inspect(|i| {
                        if i % 5 == 0 {
                            std::thread::sleep(
                                std::time::Duration::from_micros(100),
                            );
                        }
                    });
                    let mut out = vec![];
                    for_each_ordered(
                        items,
                        (threads, window),
                        &|| (),
                        |_, i| i,
                        &mut |r: &mut usize| out.push(*r),
                    )
                    .unwrap();
                    let want: Vec<usize> = (0..n).collect();
                    assert_eq!(out, want, "{threads}/{window}/{n}");
                }
            }
        }
    }

    /// A batch is as many items as take about [`BATCH_TIME`], within
    /// its bounds; alone, or before any item is timed, one.
    #[test]
    fn a_batch_is_sized_by_the_time_of_an_item() {
        let pace = |per_item_us, alone| {
            Pace { per_item: Duration::from_micros(per_item_us), alone }
                .batch()
        };
        assert_eq!(pace(0, false), 1);
        assert_eq!(pace(20, false), 10);
        assert_eq!(pace(1, false), MAX_BATCH);
        assert_eq!(pace(5_000, false), 1);
        assert_eq!(pace(20, true), 1);
        let mut p = Pace::default();
        p.worked(4, Duration::from_micros(100));
        assert_eq!(p.per_item, Duration::from_micros(25));
        p.worked(0, Duration::from_micros(100));
        assert_eq!(p.per_item, Duration::from_micros(25));
    }

    /// What `each` leaves of a result is dropped on the thread that made
    /// it; only a helper's last results, handed out after it has ended,
    /// are dropped by the caller: at most a window of them.
    #[test]
    fn a_result_is_dropped_where_it_was_made() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::thread::ThreadId;
        struct Made<'a> {
            on: ThreadId,
            dropped: &'a AtomicUsize,
            elsewhere: &'a AtomicUsize,
        }
        impl Drop for Made<'_> {
            fn drop(&mut self) {
                self.dropped.fetch_add(1, Ordering::SeqCst);
                if std::thread::current().id() != self.on {
                    self.elsewhere.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
        let (dropped, elsewhere) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let window = 8;
        let mut seen = 0;
        for_each_ordered(
            0..2_000,
            (2, window),
            &|| (),
            |_, _| Made {
                on: std::thread::current().id(),
                dropped: &dropped,
                elsewhere: &elsewhere,
            },
            &mut |_| seen += 1,
        )
        .unwrap();
        assert_eq!(seen, 2_000);
        assert_eq!(dropped.load(Ordering::SeqCst), 2_000);
        assert!(elsewhere.load(Ordering::SeqCst) <= window);
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
        for_each_ordered(items, (4, 10), &|| (), |_, i| i, &mut |_| {
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
                    (3, 8),
                    &|| (),
                    |_, i| {
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
