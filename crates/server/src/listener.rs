//! Workers and listeners: one thread per worker, each running its own single-threaded
//! tokio runtime with its own `SO_REUSEPORT` listener, so the kernel spreads connections
//! across workers and a connection lives and dies on one worker. The local socket
//! (`--socket`) has one listener, since Linux does not spread Unix sockets by
//! `SO_REUSEPORT`: worker 0 accepts on it and hands the connections to the workers in
//! turn.
//!
//! Invariants:
//! (1) Nothing on a connection's path is shared with other workers except the storage
//!     engine's lock-free structures; counters are per worker.
//! (2) Shutdown (SIGINT/SIGTERM) stops every listener, drops every connection (sessions
//!     roll back open transactions) and returns once all workers have stopped.
//! (3) Storage is rebuilt from the data directory's log before the first listener is
//!     bound, and checkpointed and its log closed after the last worker stopped
//!     (`durability`).
//! (4) The local socket's file is removed at shutdown, and at startup only if it is a
//!     socket nobody listens on any more (a server that did not stop cleanly).

use crate::accounts::Peer;
use crate::config::ServeArgs;
use crate::connection::{self, ConnectionContext};
use crate::data_dir::DataDir;
use crate::stream::Socket as ClientSocket;
use manycore_sql::{Counter, Engine, EngineConfig};
use manycore_storage::Storage;
use manycore_uring::SendRing;
use socket2::{Domain, Protocol, Socket, Type};
use std::net::SocketAddr;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How often old row versions and dead index entries are collected.
const GARBAGE_COLLECTION_INTERVAL: Duration = Duration::from_millis(100);
/// Sends a worker's ring has in the kernel at once; more wait for the next pass.
const SEND_RING_CAPACITY: u32 = 1024;
/// Pending connections the kernel queues per listener.
const LISTEN_BACKLOG: i32 = 1024;

/// --secure-file-priv's directory with `..` and symlinks resolved, or Err if it is missing,
/// not a directory or not readable: checked before anything else at startup, as MariaDB
/// refuses to start, rather than refusing every file statement later.
fn secure_file_priv_directory(dir: &Path) -> Result<PathBuf, String> {
    let refuse = |e: std::io::Error| {
        format!(
            "Failed to access directory for --secure-file-priv {}: {e}",
            dir.display()
        )
    };
    let resolved = std::fs::canonicalize(dir).map_err(refuse)?;
    std::fs::read_dir(&resolved).map_err(refuse)?;
    Ok(resolved)
}

pub fn serve(args: ServeArgs) -> Result<(), String> {
    let secure_file_priv = args
        .secure_file_priv
        .as_deref()
        .map(secure_file_priv_directory)
        .transpose()?;
    let data_dir = DataDir::open(&args.data_dir)?;
    let workers = args.worker_count();
    let (storage, durability) = crate::durability::recover(&data_dir.path, &args)?;
    let engine = Engine::new(
        storage.clone(),
        EngineConfig {
            workers,
            server_version: crate::connection::SERVER_VERSION.to_string(),
            data_dir: data_dir.path.clone(),
            max_connections: args.max_connections,
            max_allowed_packet: args.max_allowed_packet,
            secure_file_priv,
        },
    );
    engine.set_server_variable("port", &args.listen.port().to_string());
    let security = Arc::new(crate::tls::Security::load(
        &data_dir.path,
        args.tls_cert.as_deref(),
        args.tls_key.as_deref(),
    )?);
    publish_security_variables(&engine, &security, args.require_secure_transport);
    // A new data directory gets the grant tables and root@localhost without password.
    manycore_sql::Session::bootstrap_privileges(&engine)
        .map_err(|e| format!("cannot load accounts from the mysql database: {e}"))?;
    crate::accounts::warn_about_passwordless_accounts(
        &engine,
        &args.listen,
        data_dir.freshly_created,
    );
    crate::accounts::check_listen_address(&engine, &args.listen)?;

    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let listeners = bind_listeners(args.listen, workers)?;
    let local_socket = args.socket.as_deref().map(bind_local_socket).transpose()?;
    if let Some(path) = &args.socket {
        engine.set_server_variable("socket", &path.display().to_string());
    }
    let local_shares = local_connections(local_socket, workers);
    let listening = listeners
        .first()
        .and_then(|l| l.local_addr().ok())
        .unwrap_or(args.listen);
    tracing::info!(
        listen = %listening, socket = ?args.socket, workers,
        data_dir = %data_dir.path.display(), "manycore ready for connections"
    );
    let next_connection_id = Arc::new(AtomicU32::new(1));
    let failed_logins = Arc::new(crate::login_delay::FailedLogins::new(
        args.failed_login_delay_policy(),
    ));
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    let mut threads = Vec::new();
    for (worker, (listener, local)) in listeners.into_iter().zip(local_shares).enumerate() {
        let context = ConnectionContext {
            engine: engine.clone(),
            worker,
            next_connection_id: next_connection_id.clone(),
            max_allowed_packet: args.max_allowed_packet,
            max_connections: args.max_connections,
            connect_timeout: Duration::from_secs(args.connect_timeout),
            durability: durability.clone(),
            security: security.clone(),
            failed_logins: failed_logins.clone(),
            send_batching: args.send_batching == "uring",
            thread_id: 0, // Set by the worker's thread (`run_worker`).
        };
        let shutdown = shutdown_rx.clone();
        let core = (!cores.is_empty()).then(|| cores[worker % cores.len()]);
        let thread = std::thread::Builder::new()
            .name(format!("worker-{worker}"))
            .spawn(move || {
                if let Some(core) = core {
                    core_affinity::set_for_current(core);
                }
                run_worker(listener, local, context, shutdown)
            })
            .map_err(|e| format!("cannot start worker thread: {e}"))?;
        threads.push(thread);
    }
    let collector = spawn_garbage_collector(storage.clone(), shutdown_rx.clone())?;
    let checkpointer =
        crate::durability::spawn_checkpointer(durability.clone(), shutdown_rx.clone())?;

    wait_for_shutdown_signal()?;
    tracing::info!("shutting down");
    let _ = shutdown_tx.send(true);
    for thread in threads {
        let _ = thread.join();
    }
    let _ = collector.join();
    let _ = checkpointer.join();
    durability.shutdown(); // Invariant (3).
    if let Some(path) = &args.socket {
        let _ = std::fs::remove_file(path); // Invariant (4).
    }
    tracing::info!("stopped");
    Ok(())
}

/// What SHOW VARIABLES says about TLS and the caching_sha2_password key pair.
fn publish_security_variables(
    engine: &Engine,
    security: &crate::tls::Security,
    require_secure_transport: bool,
) {
    let path = |p: &std::path::Path| p.display().to_string();
    let on_off = if require_secure_transport {
        "ON"
    } else {
        "OFF"
    };
    for (name, value) in [
        ("have_ssl", "YES".to_string()),
        // MySQL documents have_openssl as an alias of have_ssl; clients test either.
        ("have_openssl", "YES".to_string()),
        ("ssl_cert", path(&security.cert_path)),
        ("ssl_key", path(&security.key_path)),
        ("version_ssl_library", crate::tls::LIBRARY.to_string()),
        ("require_secure_transport", on_off.to_string()),
        (
            "caching_sha2_password_public_key_path",
            path(&security.rsa.public_path),
        ),
        (
            "caching_sha2_password_private_key_path",
            path(&security.rsa.private_path),
        ),
    ] {
        engine.set_server_variable(name, &value);
    }
}

/// One listening socket per worker, all on `address`: SO_REUSEPORT spreads the
/// connections among them. The kernel lets any process of the same user join such a
/// group, so a second server started on a busy port would silently take a share of the
/// first one's connections. The address is therefore first bound alone, which fails if
/// anything listens there (and resolves port 0 to one port for every worker).
fn bind_listeners(
    address: SocketAddr,
    workers: usize,
) -> Result<Vec<std::net::TcpListener>, String> {
    let claim = bound_socket(address, false)?;
    // Linux checks a listener's port again at listen(); the claim listens too, so it
    // passes exactly the check a worker's listener must.
    claim
        .listen(1)
        .map_err(|e| format!("cannot listen on {address}: {e} (is another server running?)"))?;
    let address = claim
        .local_addr()
        .ok()
        .and_then(|a| a.as_socket())
        .ok_or_else(|| format!("cannot listen on {address}: no local address"))?;
    drop(claim);
    (0..workers)
        .map(|_| {
            let socket = bound_socket(address, true)?;
            socket
                .listen(LISTEN_BACKLOG)
                .map_err(|e| format!("cannot listen on {address}: {e}"))?;
            Ok(socket.into())
        })
        .collect()
}

/// A non-blocking TCP socket bound to `address`, with SO_REUSEADDR (connections of an
/// earlier run in TIME_WAIT do not block a restart) and, for a worker, SO_REUSEPORT.
fn bound_socket(address: SocketAddr, reuse_port: bool) -> Result<Socket, String> {
    let socket = Socket::new(
        Domain::for_address(address),
        Type::STREAM,
        Some(Protocol::TCP),
    )
    .map_err(|e| format!("cannot create socket: {e}"))?;
    socket
        .set_reuse_address(true)
        .map_err(|e| format!("SO_REUSEADDR: {e}"))?;
    if reuse_port {
        socket
            .set_reuse_port(true)
            .map_err(|e| format!("SO_REUSEPORT: {e}"))?;
    }
    socket
        .set_nonblocking(true)
        .map_err(|e| format!("O_NONBLOCK: {e}"))?;
    socket.bind(&address.into()).map_err(|e| {
        let hint = match e.kind() {
            std::io::ErrorKind::AddrInUse => " (is another server running?)",
            _ => "",
        };
        format!("cannot listen on {address}: {e}{hint}")
    })?;
    Ok(socket)
}

/// The local socket, bound and listening (invariant (4)). It is made reachable by every
/// user, as MariaDB's is: who may log in is the accounts' business, as on TCP loopback.
fn bind_local_socket(path: &Path) -> Result<UnixListener, String> {
    let shown = path.display();
    if let Ok(metadata) = std::fs::symlink_metadata(path) {
        if !metadata.file_type().is_socket() {
            return Err(format!(
                "cannot listen on socket {shown}: a file that is not a socket is there"
            ));
        }
        if UnixStream::connect(path).is_ok() {
            return Err(format!(
                "cannot listen on socket {shown}: another server is listening there"
            ));
        }
        std::fs::remove_file(path)
            .map_err(|e| format!("cannot remove the stale socket {shown}: {e}"))?;
    }
    let listener =
        UnixListener::bind(path).map_err(|e| format!("cannot listen on socket {shown}: {e}"))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777))
        .map_err(|e| format!("cannot make socket {shown} reachable: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("O_NONBLOCK: {e}"))?;
    Ok(listener)
}

/// The local socket's listener, held by worker 0, and every worker's handoff channel.
struct LocalAcceptor {
    listener: UnixListener,
    handoffs: Vec<mpsc::UnboundedSender<UnixStream>>,
}

/// What a worker has of the local socket: the acceptor (worker 0 only) and the channel
/// its share of the connections arrives on. Both None without `--socket`.
struct LocalConnections {
    acceptor: Option<LocalAcceptor>,
    inbox: Option<mpsc::UnboundedReceiver<UnixStream>>,
}

/// Each worker's `LocalConnections`: worker 0 accepts on `listener` and hands every
/// worker, itself included, its share through that worker's channel.
fn local_connections(listener: Option<UnixListener>, workers: usize) -> Vec<LocalConnections> {
    let Some(listener) = listener else {
        return (0..workers)
            .map(|_| LocalConnections {
                acceptor: None,
                inbox: None,
            })
            .collect();
    };
    let (handoffs, inboxes): (Vec<_>, Vec<_>) =
        (0..workers).map(|_| mpsc::unbounded_channel()).unzip();
    let mut acceptor = Some(LocalAcceptor { listener, handoffs });
    inboxes
        .into_iter()
        .map(|inbox| LocalConnections {
            acceptor: acceptor.take(),
            inbox: Some(inbox),
        })
        .collect()
}

fn run_worker(
    listener: std::net::TcpListener,
    local: LocalConnections,
    mut context: ConnectionContext,
    mut shutdown: watch::Receiver<bool>,
) {
    context.thread_id = os_thread_id();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!("worker {}: cannot start runtime: {e}", context.worker);
            return;
        }
    };
    let context = Arc::new(context);
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::from_std(listener) {
            Ok(listener) => listener,
            Err(e) => {
                tracing::error!("worker {}: listener: {e}", context.worker);
                return;
            }
        };
        let mut local_accept = match local.acceptor.map(LocalAccept::register).transpose() {
            Ok(accept) => accept,
            Err(e) => {
                tracing::error!("worker {}: local socket: {e}", context.worker);
                return;
            }
        };
        let mut inbox = local.inbox;
        let tasks = tokio::task::LocalSet::new();
        tasks
            .run_until(async {
                let send_ring = start_send_ring(&context);
                loop {
                    tokio::select! {
                        accepted = accept_local(local_accept.as_ref()), if local_accept.is_some() => {
                            match accepted {
                                Ok(stream) => local_accept.as_mut().expect("guarded").hand_over(stream),
                                Err(e) => {
                                    tracing::warn!("accept on the local socket: {e}");
                                    tokio::time::sleep(Duration::from_millis(10)).await;
                                }
                            }
                        }
                        Some(stream) = receive_local(&mut inbox), if inbox.is_some() => {
                            match tokio::net::UnixStream::from_std(stream) {
                                Ok(stream) => connection::spawn(
                                    ClientSocket::Local(stream),
                                    Peer::Local,
                                    context.clone(),
                                    send_ring.clone(),
                                ),
                                Err(e) => tracing::warn!("local connection: {e}"),
                            }
                        }
                        accepted = listener.accept() => match accepted {
                            Ok((stream, peer)) => connection::spawn(
                                ClientSocket::Tcp(stream),
                                Peer::Tcp(peer),
                                context.clone(),
                                send_ring.clone(),
                            ),
                            // Out of descriptors or a connection reset before accept:
                            // back off briefly instead of spinning.
                            Err(e) => {
                                tracing::warn!("accept: {e}");
                                tokio::time::sleep(Duration::from_millis(10)).await;
                            }
                        },
                        _ = shutdown.changed() => break,
                    }
                }
            })
            .await;
        // Dropping `tasks` drops every connection: sessions roll back (invariant (2)).
    });
}

/// The calling thread's operating-system id, read from /proc/thread-self
/// ("<pid>/task/<tid>"): std does not expose gettid(2), and this crate has no `unsafe`
/// (ARCHITECTURE.md invariant 6). 0 if /proc is not mounted.
fn os_thread_id() -> u64 {
    std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|link| link.file_name()?.to_str()?.parse().ok())
        .unwrap_or(0)
}

/// Worker 0's side of the local socket, on its runtime.
struct LocalAccept {
    listener: tokio::net::UnixListener,
    handoffs: Vec<mpsc::UnboundedSender<UnixStream>>,
    next: usize,
}

impl LocalAccept {
    fn register(acceptor: LocalAcceptor) -> std::io::Result<LocalAccept> {
        Ok(LocalAccept {
            listener: tokio::net::UnixListener::from_std(acceptor.listener)?,
            handoffs: acceptor.handoffs,
            next: 0,
        })
    }

    /// Gives the workers their connections in turn, worker 0 included.
    fn hand_over(&mut self, stream: UnixStream) {
        // A worker's channel closes only when the worker stops, at shutdown.
        let _ = self.handoffs[self.next].send(stream);
        self.next = (self.next + 1) % self.handoffs.len();
    }
}

/// The next connection on the local socket, taken off worker 0's runtime so that the
/// worker it is handed to can register it with its own.
async fn accept_local(accept: Option<&LocalAccept>) -> std::io::Result<UnixStream> {
    let accept = accept.expect("polled only with a listener");
    let (stream, _) = accept.listener.accept().await?;
    stream.into_std()
}

async fn receive_local(
    inbox: &mut Option<mpsc::UnboundedReceiver<UnixStream>>,
) -> Option<UnixStream> {
    inbox
        .as_mut()
        .expect("polled only with an inbox")
        .recv()
        .await
}

/// The worker's batched sender (`manycore_uring`) and its flusher task, or None when
/// batching is off or io_uring is unavailable (then each connection writes its own replies).
fn start_send_ring(context: &Arc<ConnectionContext>) -> Option<Rc<SendRing>> {
    if !context.send_batching {
        return None;
    }
    let ring = match SendRing::new(SEND_RING_CAPACITY) {
        Ok(ring) => ring,
        Err(e) => {
            tracing::warn!(
                "worker {}: io_uring unavailable ({e}); replies are sent with write",
                context.worker
            );
            return None;
        }
    };
    let (engine, worker) = (context.engine.clone(), context.worker);
    tokio::task::spawn_local(Rc::clone(&ring).run(move |sends| {
        engine
            .status()
            .add(worker, Counter::SendRingSends, sends as u64);
        engine.status().add(worker, Counter::SendRingSubmits, 1);
    }));
    Some(ring)
}

fn spawn_garbage_collector(
    storage: Arc<Storage>,
    shutdown: watch::Receiver<bool>,
) -> Result<std::thread::JoinHandle<()>, String> {
    std::thread::Builder::new()
        .name("garbage-collector".into())
        .spawn(move || {
            while !*shutdown.borrow() {
                storage.collect_garbage();
                std::thread::sleep(GARBAGE_COLLECTION_INTERVAL);
            }
        })
        .map_err(|e| format!("cannot start garbage collector: {e}"))
}

fn wait_for_shutdown_signal() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start signal runtime: {e}"))?;
    runtime.block_on(async {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .map_err(|e| format!("cannot install SIGTERM handler: {e}"))?;
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
        Ok(())
    })
}

/// Connection ids are unique for the life of the process; 0 is never used.
pub fn allocate_connection_id(counter: &AtomicU32) -> u32 {
    loop {
        let id = counter.fetch_add(1, Ordering::Relaxed);
        if id != 0 {
            return id;
        }
    }
}
