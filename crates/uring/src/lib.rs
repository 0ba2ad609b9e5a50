//! manycore-uring: batched socket sends through io_uring. One `io_uring_enter` sends the
//! replies of every connection a worker served in one pass of its event loop.
//!
//! Why: a point select costs ~10 µs of server CPU on this project's 2-vCPU test machine,
//! ~60% of it in the kernel. Each `send` on loopback wakes the client's thread, and the
//! scheduler often preempts the worker on its way back to user space (~0.5 involuntary
//! context switches per query at 8 client threads, /proc/PID/task/*/status). Sends
//! submitted together wake their clients inside one system call, so the worker goes back
//! to user space, and can be preempted there, once per batch instead of once per reply.
//! No library does this within tokio: tokio-uring and monoio replace the runtime, and the
//! io-uring crate is the FFI this module wraps. Reads stay on tokio's epoll.
//!
//! Model: one [`SendRing`] per worker thread (it is `!Send`), and one [`Sender`] per
//! connection, which keeps its slot in the ring (and the waker of its task) for the
//! connection's life. A connection hands its reply buffer to [`Sender::send`]; the buffer
//! is queued and the ring's flusher task ([`SendRing::run`]) is woken. Spawned on the
//! worker's `LocalSet`, the flusher runs after the connections already scheduled in this
//! pass, so it finds their replies queued too: it submits them all with one system call
//! and reaps the completions (loopback sends complete inline). A sender may wait for the
//! completion ([`Sender::poll_done`]), or go back to reading and ask to be woken only if
//! the send needs it ([`Sender::poll_incomplete`]): then a send the kernel took whole wakes
//! nobody, and the connection takes its buffer back ([`Sender::take_done`]) in the same
//! task poll as its next read. That saves a task wake-up and poll per reply.
//!
//! Invariants:
//! (1) The kernel reads a buffer only while the ring owns it. A buffer moves into the ring
//!     at `send` and comes back only with its completion. A sender that goes away leaves a
//!     submitted buffer to the ring, which frees it when its completion arrives, or leaks
//!     it if the ring is dropped first: never freed while the kernel may read it. A
//!     sender has one send at a time, so its replies leave in order.
//! (2) A descriptor reaches the kernel only while its connection is alive: entries are
//!     pushed and submitted in one synchronous step, only for queued sends whose sender
//!     still lives (a dropped sender unqueues its send). Once submitted, the kernel holds its
//!     own reference to the file, so a close cannot redirect the send.
//! (3) A send completes with the number of bytes the kernel took, possibly fewer than all,
//!     or with an error (EAGAIN included, if the socket buffer was full): the caller writes
//!     any rest itself. Nothing is retried here. Such an incomplete send always wakes its
//!     sender, whichever way it waits; a complete one wakes only a sender awaiting it.
//! (4) At most `capacity` sends are in the kernel at once, so completions never overflow
//!     the completion queue (twice the submission queue's size); the rest stay queued for
//!     the next pass.
//! (5) After a failed submission the ring is dead: nothing more is submitted (entries left
//!     in the submission queue may name closed descriptors), queued sends fail with the
//!     error, and new sends fail at once. Callers fall back to their own writes.

use io_uring::{opcode, types, IoUring};
use std::cell::{Cell, RefCell};
use std::future::{poll_fn, Future};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use tokio::io::unix::AsyncFd;

/// A finished send: the bytes the kernel took (or why none), and the buffer.
pub type Sent = (io::Result<usize>, Vec<u8>);

/// Where a sender's last send is ([`Sender::take_done`]).
pub enum Progress {
    /// None was made since the last one was taken back.
    NoSend,
    /// Queued or in the kernel.
    OnItsWay,
    Done(Sent),
}

enum State {
    /// On the free list.
    Free,
    /// A sender's, with no send.
    Idle,
    Queued,
    InKernel,
    Done(io::Result<usize>),
}

struct Slot {
    state: State,
    fd: RawFd,
    buffer: Vec<u8>,
    /// The sender's task, kept across its sends: registering costs a clone only when the
    /// task changes.
    waker: Option<Waker>,
    /// The sender waits for the completion, not only an incomplete one (invariant (3)).
    wake_when_complete: bool,
    /// The sender dropped its handle while the kernel had the buffer (invariant (1)).
    abandoned: bool,
}

impl Slot {
    fn new(state: State, fd: RawFd) -> Slot {
        Slot {
            state,
            fd,
            buffer: Vec::new(),
            waker: None,
            wake_when_complete: false,
            abandoned: false,
        }
    }

    /// Done, with the whole buffer taken by the kernel.
    fn is_complete(&self) -> bool {
        matches!(self.state, State::Done(Ok(n)) if n == self.buffer.len())
    }

    fn register(&mut self, cx: &Context<'_>) {
        if !self.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            self.waker = Some(cx.waker().clone());
        }
    }
}

struct Inner {
    ring: IoUring,
    slots: Vec<Slot>,
    free: Vec<usize>,
    /// Slots to submit, oldest first.
    queued: Vec<usize>,
    in_kernel: usize,
    dead: Option<io::ErrorKind>,
}

pub struct SendRing {
    /// Declared before `inner`, so it is dropped (deregistered) while the ring's
    /// descriptor is still open.
    completions: AsyncFd<RingFd>,
    inner: RefCell<Inner>,
    /// Wakes the flusher: the first send queued after a submission, or completions to reap.
    kick: Kick,
    capacity: usize,
}

/// The ring's descriptor, registered with tokio to learn when late completions arrive.
struct RingFd(RawFd);

impl AsRawFd for RingFd {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

impl SendRing {
    /// A ring with room for `capacity` sends in the kernel at once. Must be called inside
    /// a tokio runtime (the ring's descriptor is registered with it). Fails where io_uring
    /// is unavailable (old kernels, `kernel.io_uring_disabled`, seccomp in containers).
    pub fn new(capacity: u32) -> io::Result<Rc<SendRing>> {
        assert!(
            capacity.is_power_of_two(),
            "ring capacity must be a power of two"
        );
        let ring = IoUring::builder()
            .setup_cqsize(capacity * 2)
            .build(capacity)?;
        // SAFETY: the descriptor is the ring's, open until `inner` (which owns the ring)
        // is dropped, after `completions` (field order); `RingFd` always returns it.
        let completions = unsafe {
            AsyncFd::register_with_interest(RingFd(ring.as_raw_fd()), tokio::io::Interest::READABLE)
        }
        .map_err(io::Error::from)?;
        Ok(Rc::new(SendRing {
            inner: RefCell::new(Inner {
                ring,
                slots: Vec::new(),
                free: Vec::new(),
                queued: Vec::new(),
                in_kernel: 0,
                dead: None,
            }),
            kick: Kick::default(),
            completions,
            capacity: capacity as usize,
        }))
    }

    /// The sender for the connected socket `fd`, which must stay open while the sender
    /// lives (invariant (2)).
    pub fn sender(self: &Rc<Self>, fd: RawFd) -> Sender {
        let slot = self.inner.borrow_mut().allocate(Slot::new(State::Idle, fd));
        Sender {
            ring: Rc::clone(self),
            slot,
        }
    }

    /// The flusher: spawn it once on the worker's `LocalSet`; it runs until dropped.
    /// `on_submit(n)` is called after each system call that submitted `n` sends.
    pub async fn run(self: Rc<Self>, on_submit: impl Fn(usize)) {
        loop {
            let waiting_on_kernel = self.inner.borrow().in_kernel > 0;
            if waiting_on_kernel {
                tokio::select! {
                    _ = self.kick.kicked() => {}
                    guard = self.completions.readable() => match guard {
                        Ok(mut guard) => guard.clear_ready(),
                        Err(e) => self.inner.borrow_mut().die(e.kind()),
                    },
                }
            } else {
                self.kick.kicked().await;
            }
            let submitted = self.submit_and_reap();
            if submitted > 0 {
                on_submit(submitted);
            }
            if !self.inner.borrow().queued.is_empty() {
                // Invariant (4) kept some back: they go in the next pass.
                self.kick.kick();
            }
        }
    }

    /// Returns how many sends were submitted.
    fn submit_and_reap(&self) -> usize {
        let mut inner = self.inner.borrow_mut();
        let submitted = match inner.dead {
            None => inner.submit(self.capacity),
            Some(_) => 0,
        };
        inner.reap();
        submitted
    }
}

/// The flusher's wake-up: a kick with nobody waiting is kept for the next wait, as with
/// tokio's `Notify::notify_one`. Written for one thread (the ring is `!Send`): `Notify`
/// synchronizes waiters across threads; its waiter lock and atomics cost ~300 instructions
/// per wake-up of an idle worker and ~120 per point select at full rate (bench/callgrind.sh,
/// with and without CG_RATE=200, docs/performance.md).
#[derive(Default)]
struct Kick {
    pending: Cell<bool>,
    waiter: Cell<Option<Waker>>,
}

impl Kick {
    fn kick(&self) {
        self.pending.set(true);
        if let Some(waiter) = self.waiter.take() {
            waiter.wake();
        }
    }

    /// Resolves at the first kick since the last one it consumed.
    fn kicked(&self) -> impl Future<Output = ()> + '_ {
        poll_fn(|cx| {
            if self.pending.replace(false) {
                return Poll::Ready(());
            }
            let waiter = self.waiter.take().filter(|w| w.will_wake(cx.waker()));
            self.waiter
                .set(Some(waiter.unwrap_or_else(|| cx.waker().clone())));
            Poll::Pending
        })
    }
}

impl Inner {
    fn allocate(&mut self, slot: Slot) -> usize {
        match self.free.pop() {
            Some(index) => {
                self.slots[index] = slot;
                index
            }
            None => {
                self.slots.push(slot);
                self.slots.len() - 1
            }
        }
    }

    fn release(&mut self, index: usize) {
        self.slots[index] = Slot::new(State::Free, -1);
        self.free.push(index);
    }

    /// Pushes queued sends (invariants (2), (4)) and submits them with one system call;
    /// returns how many were submitted.
    fn submit(&mut self, capacity: usize) -> usize {
        let room = capacity - self.in_kernel;
        let take = self.queued.len().min(room);
        if take == 0 {
            return 0;
        }
        // The batch is `queued[..take]`, removed from the queue once the kernel has it (no
        // allocation per pass).
        {
            let Inner {
                ring,
                slots,
                queued,
                ..
            } = self;
            let mut submission = ring.submission();
            for &index in &queued[..take] {
                let slot = &slots[index];
                debug_assert!(matches!(slot.state, State::Queued));
                let len = u32::try_from(slot.buffer.len()).unwrap_or(u32::MAX);
                let entry = opcode::Send::new(types::Fd(slot.fd), slot.buffer.as_ptr(), len)
                    .flags(libc::MSG_NOSIGNAL)
                    .build()
                    .user_data(index as u64);
                // SAFETY: the buffer stays allocated and unmoved until this entry's
                // completion is reaped: the slot owns it, and neither the sender (which
                // only gets it back from a `Done` slot) nor a drop of the ring (which
                // leaks in-kernel buffers) frees it before then (invariant (1)). The
                // descriptor is open: its sender still lives (invariant (2)), and
                // the entry is submitted below before any other task runs.
                let pushed = unsafe { submission.push(&entry) };
                assert!(
                    pushed.is_ok(),
                    "submission queue full with {take} of {capacity}"
                );
            }
            for &index in &queued[..take] {
                slots[index].state = State::InKernel;
            }
        }
        self.in_kernel += take;
        // io_uring_enter may take part of the batch; loop until the kernel has it all.
        let mut left = take;
        while left > 0 {
            match self.ring.submit() {
                Ok(n) if n > 0 => left = left.saturating_sub(n),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // Entries still in the submission queue were not taken; fail them.
                    self.in_kernel -= left;
                    for i in take - left..take {
                        let index = self.queued[i];
                        self.slots[index].state = State::Done(Err(dead_error(e.kind())));
                        self.finish(index);
                    }
                    self.queued.drain(..take);
                    self.die(e.kind());
                    return take - left;
                }
            }
        }
        self.queued.drain(..take);
        take
    }

    /// Completes every send the kernel has finished.
    fn reap(&mut self) {
        loop {
            let Some(entry) = self.ring.completion().next() else {
                return;
            };
            let index = entry.user_data() as usize;
            let result = entry.result();
            assert!(
                matches!(self.slots[index].state, State::InKernel),
                "completion for slot {index}, which is not in the kernel"
            );
            self.in_kernel -= 1;
            self.slots[index].state = State::Done(if result >= 0 {
                Ok(result as usize)
            } else {
                Err(io::Error::from_raw_os_error(-result))
            });
            self.finish(index);
        }
    }

    /// A done slot: wake its sender if it waits for this (invariant (3)), or free the slot
    /// if the sender left.
    fn finish(&mut self, index: usize) {
        let slot = &self.slots[index];
        if slot.abandoned {
            self.release(index);
        } else if slot.wake_when_complete || !slot.is_complete() {
            if let Some(waker) = &slot.waker {
                waker.wake_by_ref();
            }
        }
    }

    /// Invariant (5).
    fn die(&mut self, kind: io::ErrorKind) {
        self.dead = Some(kind);
        for index in std::mem::take(&mut self.queued) {
            self.slots[index].state = State::Done(Err(dead_error(kind)));
            self.finish(index);
        }
    }
}

impl Drop for Inner {
    /// Invariant (1): buffers the kernel may still read are leaked, not freed.
    fn drop(&mut self) {
        for slot in &mut self.slots {
            if matches!(slot.state, State::InKernel) {
                std::mem::forget(std::mem::take(&mut slot.buffer));
            }
        }
    }
}

fn dead_error(kind: io::ErrorKind) -> io::Error {
    io::Error::new(kind, "io_uring send ring failed; sends fall back to write")
}

/// A connection's handle on the ring: one send at a time, in its own slot.
pub struct Sender {
    ring: Rc<SendRing>,
    slot: usize,
}

impl Sender {
    /// Queues `buffer` for the next batch. The previous send must have been taken back
    /// (`take_done`, `poll_done`): a sender has one send at a time (invariant (1)).
    pub fn send(&mut self, buffer: Vec<u8>) {
        let mut inner = self.ring.inner.borrow_mut();
        let dead = inner.dead;
        let slot = &mut inner.slots[self.slot];
        assert!(
            matches!(slot.state, State::Idle),
            "a sender has one send at a time"
        );
        slot.buffer = buffer;
        slot.wake_when_complete = false;
        if let Some(kind) = dead {
            slot.state = State::Done(Err(dead_error(kind)));
            return;
        }
        slot.state = State::Queued;
        inner.queued.push(self.slot);
        if inner.queued.len() == 1 {
            self.ring.kick.kick();
        }
    }

    /// Takes the finished send back, if there is one: one look at the slot tells the
    /// caller whether to wait.
    pub fn take_done(&mut self) -> Progress {
        let mut inner = self.ring.inner.borrow_mut();
        let slot = &mut inner.slots[self.slot];
        match std::mem::replace(&mut slot.state, State::Idle) {
            State::Done(result) => Progress::Done((result, std::mem::take(&mut slot.buffer))),
            State::Idle => Progress::NoSend,
            other @ (State::Queued | State::InKernel) => {
                slot.state = other;
                Progress::OnItsWay
            }
            State::Free => unreachable!("a sender's slot is never free"),
        }
    }

    /// The finished send, once it is done (woken at its completion).
    pub fn poll_done(&mut self, cx: &mut Context<'_>) -> Poll<Sent> {
        match self.take_done() {
            Progress::Done(sent) => Poll::Ready(sent),
            Progress::NoSend => panic!("waiting for a send that was never made"),
            Progress::OnItsWay => {
                let mut inner = self.ring.inner.borrow_mut();
                let slot = &mut inner.slots[self.slot];
                slot.wake_when_complete = true;
                slot.register(cx);
                Poll::Pending
            }
        }
    }

    /// Ready once the send is done without the kernel taking all of the buffer (a partial
    /// send or an error): the connection must then write the rest. Pending while the send
    /// is on its way, and for good once it completed whole, waking nobody (invariant (3)).
    pub fn poll_incomplete(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let mut inner = self.ring.inner.borrow_mut();
        let slot = &mut inner.slots[self.slot];
        match slot.state {
            State::Queued | State::InKernel => {
                slot.register(cx);
                Poll::Pending
            }
            State::Done(_) if !slot.is_complete() => Poll::Ready(()),
            State::Idle | State::Done(_) => Poll::Pending,
            State::Free => unreachable!("a sender's slot is never free"),
        }
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        let mut inner = self.ring.inner.borrow_mut();
        match inner.slots[self.slot].state {
            State::Free => unreachable!("a sender's slot is never free"),
            State::Queued => {
                // Invariant (2): never submitted, so the kernel never sees the descriptor.
                let slot = self.slot;
                inner.queued.retain(|&q| q != slot);
                inner.release(slot);
            }
            State::InKernel => {
                let slot = &mut inner.slots[self.slot];
                slot.abandoned = true;
                slot.waker = None;
            }
            State::Idle | State::Done(_) => inner.release(self.slot),
        }
    }
}

#[cfg(test)]
mod tests;
