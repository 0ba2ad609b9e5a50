use super::*;
use std::os::fd::AsRawFd;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};

/// Sends and system calls the flusher reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Submitted {
    sends: usize,
    submits: usize,
}

/// Runs `test` on a current-thread runtime inside a `LocalSet`, as a worker does. Where
/// io_uring is unavailable the test says so and checks nothing more (the server then falls
/// back to plain writes).
fn on_worker<F, Fut>(test: F)
where
    F: FnOnce(Rc<SendRing>, Rc<std::cell::Cell<Submitted>>) -> Fut,
    Fut: Future<Output = ()>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let tasks = tokio::task::LocalSet::new();
    tasks.block_on(&runtime, async {
        let ring = match SendRing::new(8) {
            Ok(ring) => ring,
            Err(e) => {
                eprintln!("io_uring unavailable here ({e}); the server falls back to write");
                return;
            }
        };
        let submitted = Rc::new(std::cell::Cell::new(Submitted::default()));
        let counts = Rc::clone(&submitted);
        tokio::task::spawn_local(Rc::clone(&ring).run(move |sends| {
            let mut c = counts.get();
            c.sends += sends;
            c.submits += 1;
            counts.set(c);
        }));
        test(ring, submitted).await;
    });
}

async fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let client = TcpStream::connect(listener.local_addr().expect("addr"))
        .await
        .expect("connect");
    let (server, _) = listener.accept().await.expect("accept");
    (server, client)
}

/// Waits for `sender`'s send to finish.
async fn done(sender: &mut Sender) -> Sent {
    poll_fn(|cx| sender.poll_done(cx)).await
}

/// The finished send `progress` must be.
fn finished(progress: Progress, what: &str) -> Sent {
    match progress {
        Progress::Done(sent) => sent,
        Progress::NoSend | Progress::OnItsWay => panic!("{what}: not finished"),
    }
}

/// A sender on `fd` with `buffer` handed to it.
fn sending(ring: &Rc<SendRing>, fd: RawFd, buffer: Vec<u8>) -> Sender {
    let mut sender = ring.sender(fd);
    sender.send(buffer);
    sender
}

async fn read_exactly(stream: &mut TcpStream, len: usize) -> Vec<u8> {
    let mut out = vec![0; len];
    stream.read_exact(&mut out).await.expect("read");
    out
}

#[test]
fn sends_queued_in_one_pass_share_one_submission() {
    on_worker(|ring, submitted| async move {
        let mut pairs = Vec::new();
        for _ in 0..5 {
            pairs.push(pair().await);
        }
        let mut senders: Vec<_> = pairs
            .iter()
            .enumerate()
            .map(|(i, (server, _))| sending(&ring, server.as_raw_fd(), vec![i as u8; 100 + i]))
            .collect();
        for (i, sender) in senders.iter_mut().enumerate() {
            let (result, buffer) = done(sender).await;
            assert_eq!(result.expect("sent"), 100 + i);
            assert_eq!(
                buffer,
                vec![i as u8; 100 + i],
                "the buffer comes back intact"
            );
        }
        for (i, (_, client)) in pairs.iter_mut().enumerate() {
            assert_eq!(read_exactly(client, 100 + i).await, vec![i as u8; 100 + i]);
        }
        assert_eq!(
            submitted.get(),
            Submitted {
                sends: 5,
                submits: 1
            }
        );
    });
}

#[test]
fn more_sends_than_capacity_go_in_later_passes() {
    on_worker(|ring, submitted| async move {
        let (server, mut client) = pair().await;
        let mut senders: Vec<_> = (0..20u8)
            .map(|i| sending(&ring, server.as_raw_fd(), vec![i; 10]))
            .collect();
        for sender in &mut senders {
            assert_eq!(done(sender).await.0.expect("sent"), 10);
        }
        let received = read_exactly(&mut client, 200).await;
        let expected: Vec<u8> = (0..20u8).flat_map(|i| [i; 10]).collect();
        assert_eq!(received, expected, "sends keep their order across passes");
        let stats = submitted.get();
        assert_eq!(stats.sends, 20);
        assert!(
            stats.submits >= 3,
            "capacity 8 needs 3 passes, got {stats:?}"
        );
    });
}

#[test]
fn a_sender_dropped_before_submission_sends_nothing() {
    on_worker(|ring, submitted| async move {
        let (server, mut client) = pair().await;
        drop(sending(&ring, server.as_raw_fd(), b"never".to_vec()));
        let (result, _) = done(&mut sending(&ring, server.as_raw_fd(), b"sent".to_vec())).await;
        assert_eq!(result.expect("sent"), 4);
        assert_eq!(read_exactly(&mut client, 4).await, b"sent");
        assert_eq!(submitted.get().sends, 1);
    });
}

#[test]
fn a_send_larger_than_the_socket_buffer_reports_what_was_taken() {
    on_worker(|ring, _| async move {
        let (server, mut client) = pair().await;
        let big: Vec<u8> = (0..32 << 20).map(|i: u32| i as u8).collect();
        let reader = tokio::task::spawn_local(async move {
            let mut all = Vec::new();
            client.read_to_end(&mut all).await.expect("read");
            all
        });
        let (result, buffer) = done(&mut sending(&ring, server.as_raw_fd(), big.clone())).await;
        // Invariant (3): the kernel took a prefix (or nothing, with EAGAIN); the caller
        // writes the rest.
        let taken = match result {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => 0,
            Err(e) => panic!("send failed: {e}"),
        };
        assert!(taken <= big.len());
        let mut server = server;
        tokio::io::AsyncWriteExt::write_all(&mut server, &buffer[taken..])
            .await
            .expect("rest");
        drop(server);
        assert!(
            reader.await.expect("reader") == big,
            "every byte arrives, in order"
        );
    });
}

#[test]
fn a_send_to_a_closed_peer_fails_without_a_signal() {
    on_worker(|ring, _| async move {
        let (server, client) = pair().await;
        drop(client);
        // The first send may still be accepted; a later one sees the reset.
        let mut failed = false;
        let mut sender = ring.sender(server.as_raw_fd());
        for _ in 0..50 {
            sender.send(vec![0; 1000]);
            let (result, _) = done(&mut sender).await;
            if result.is_err() {
                failed = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        assert!(
            failed,
            "sending to a closed peer must fail (EPIPE/ECONNRESET)"
        );
    });
}

#[test]
fn a_send_taken_whole_wakes_nobody_who_polls_for_an_incomplete_one() {
    on_worker(|ring, submitted| async move {
        let (server, mut client) = pair().await;
        let (counter, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let mut sender = sending(&ring, server.as_raw_fd(), b"whole".to_vec());
        assert!(sender.poll_incomplete(&mut cx).is_pending());
        assert!(
            matches!(sender.take_done(), Progress::OnItsWay),
            "not submitted before the flusher runs"
        );
        // The client receiving the bytes means the flusher submitted (and, on loopback,
        // reaped) the send.
        assert_eq!(read_exactly(&mut client, 5).await, b"whole");
        assert_eq!(submitted.get().sends, 1);
        assert_eq!(counter.wakes(), 0, "a complete send wakes nobody");
        assert!(sender.poll_incomplete(&mut cx).is_pending());
        let (result, buffer) = finished(sender.take_done(), "done without a wake-up");
        assert_eq!(result.expect("sent"), 5);
        assert_eq!(buffer, b"whole");
        assert!(matches!(sender.take_done(), Progress::NoSend));

        // The slot is the sender's for its next send, and waiting for the completion
        // is woken by it.
        sender.send(b"again".to_vec());
        assert!(matches!(sender.take_done(), Progress::OnItsWay));
        assert_eq!(done(&mut sender).await.0.expect("sent"), 5);
        assert_eq!(read_exactly(&mut client, 5).await, b"again");
    });
}

#[test]
fn a_send_the_kernel_took_only_part_of_wakes_who_polls_for_it() {
    on_worker(|ring, _| async move {
        let (server, mut client) = pair().await;
        let (counter, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        // Larger than loopback's socket buffers, with nobody reading yet.
        let big: Vec<u8> = (0..32 << 20).map(|i: u32| i as u8).collect();
        let mut sender = sending(&ring, server.as_raw_fd(), big.clone());
        assert!(sender.poll_incomplete(&mut cx).is_pending());
        let woken = async {
            while counter.wakes() == 0 {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(10), woken)
            .await
            .expect("an incomplete send wakes its sender");
        assert!(sender.poll_incomplete(&mut cx).is_ready());
        let (result, buffer) = finished(sender.take_done(), "done");
        let taken = match result {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => 0,
            Err(e) => panic!("send failed: {e}"),
        };
        assert!(
            taken < big.len(),
            "the kernel took all of {} bytes",
            big.len()
        );
        let reader = tokio::task::spawn_local(async move {
            let mut all = Vec::new();
            client.read_to_end(&mut all).await.expect("read");
            all
        });
        let mut server = server;
        tokio::io::AsyncWriteExt::write_all(&mut server, &buffer[taken..])
            .await
            .expect("rest");
        drop(sender);
        drop(server);
        assert!(
            reader.await.expect("reader") == big,
            "every byte arrives, in order"
        );
    });
}

/// A waker that counts its wakes.
struct CountingWaker(std::sync::atomic::AtomicUsize);

impl std::task::Wake for CountingWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl CountingWaker {
    fn wakes(&self) -> usize {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

fn counting_waker() -> (std::sync::Arc<CountingWaker>, Waker) {
    let counter = std::sync::Arc::new(CountingWaker(Default::default()));
    (std::sync::Arc::clone(&counter), Waker::from(counter))
}

#[test]
fn a_kick_is_kept_for_the_next_wait_and_wakes_a_waiting_one() {
    let (counter, waker) = counting_waker();
    let mut cx = Context::from_waker(&waker);
    let wakes = || counter.wakes();
    let kick = Kick::default();

    // A kick before anyone waits is kept, and consumed by one wait only.
    kick.kick();
    assert!(std::pin::pin!(kick.kicked()).poll(&mut cx).is_ready());
    let mut waiting = std::pin::pin!(kick.kicked());
    assert!(waiting.as_mut().poll(&mut cx).is_pending());
    assert_eq!(wakes(), 0);

    // A kick wakes the waiter once; its next poll completes.
    kick.kick();
    assert_eq!(wakes(), 1);
    assert!(waiting.as_mut().poll(&mut cx).is_ready());

    // Two kicks before a wait count as one.
    kick.kick();
    kick.kick();
    assert!(std::pin::pin!(kick.kicked()).poll(&mut cx).is_ready());
    assert!(std::pin::pin!(kick.kicked()).poll(&mut cx).is_pending());
}
