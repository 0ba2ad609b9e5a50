//! One client connection: handshake, authentication, then the command loop.
//!
//! A connection's life is `Handshake -> Authenticating -> Ready -> Closed`; the first two
//! happen in `establish`, `Ready` is `command_loop`. Reads go into one growing buffer
//! from which every complete payload is decoded in place (pipelined commands are served
//! in order); replies are appended to one output buffer written with a single `write`
//! per batch of commands.
//!
//! Invariants:
//! (1) Every reply's sequence id follows the request's (`Frame::reply_sequence_id`).
//! (2) A payload larger than `max_allowed_packet` gets error 1153 and the connection is
//!     closed (its remaining bytes cannot be framed reliably).
//! (3) Malformed commands get an error; only framing errors close the connection.
//! (4) Dropping a connection ends its session, which rolls back an open transaction.
//! (5) TLS starts only in answer to an SSLRequest, before authentication; the packet
//!     before it is read with exact reads so no TLS byte is consumed as MySQL data. The
//!     sequence ids continue across the upgrade (SSLRequest 1, response 2, reply 3).
//! (6) With `require_secure_transport` on, a login over plain TCP ends in 1045 after the
//!     exchange, as MariaDB does: the client learns nothing about the account. The local
//!     socket is a secure transport (as in MariaDB), but only TLS satisfies an account's
//!     REQUIRE SSL.
//! (7) A refused login is answered after the host's failed-login delay (`login_delay`),
//!     which runs after the connect timeout's deadline stopped applying, so a long delay
//!     still ends in the error packet.
//! (8) Nothing but the socket and the connection's own state is polled per command. KILL
//!     CONNECTION aborts the task and shutdown drops the worker's task set, both dropping
//!     the connection at its next await point (4); KILL QUERY's own `Notify` is polled
//!     only while a statement waits. A `select!` over kill and shutdown
//!     signals instead re-polled both on every wake-up, and each poll of a waiting
//!     `Notified` locks its `Notify`'s mutex: the shutdown watch's is one shared by every
//!     connection of both workers, so that was a shared write per command.
//! (9) With the worker's send ring, the command loop does not wait for its replies'
//!     send: it goes back to reading, and only a send the kernel did not take whole wakes
//!     it there (`Sender::poll_incomplete`) to write the rest. The output buffer
//!     comes back from the ring, and any rest is written, before the next reply is built
//!     (`reclaim_output`), so at most one send is in flight and replies keep their order.
//!     That saves a task wake-up and poll per reply (docs/performance.md).
//! (10) LOAD DATA LOCAL's file is read between its request and the empty packet that ends
//!     it, after the replies before the request were sent (their commits durable, as
//!     (durability (2)) asks); the statement then runs again with it (`wait_and_resume`).
//!     The file is held in memory, unbounded, like the rows it becomes.

use crate::accounts::{self, Peer};
use crate::sink::{ColumnTypes, WireSink};
use crate::stream::{Socket, Stream};
use manycore_protocol::auth::{AuthExchange, AuthStep, Credential};
use manycore_protocol::command::{parse_command, Command};
use manycore_protocol::handshake::{
    capability, mariadb_capability, parse_handshake_response, write_initial_handshake,
    ClientHandshake, InitialHandshake, Scramble, CHARSET_UTF8MB4_GENERAL_CI,
};
use manycore_protocol::packet::{next_payload, Frame, PacketWriter, HEADER_LEN};
use manycore_protocol::prepared::{parse_execute, ParamType};
use manycore_protocol::response::{
    status, write_eof, write_err, write_local_infile_request, write_ok, OkPacket,
};
use manycore_protocol::resultset::ResultSetEncoder;
use manycore_protocol::ProtocolError;
use manycore_sql::{
    Columns, ConnectionInfo, Counter, Engine, Error, ErrorCode, KillKind, Session, Wait,
};
use manycore_storage::LockWait;
use manycore_types::Value;
use manycore_uring::{SendRing, Sender};
use std::os::fd::AsRawFd;
use std::rc::Rc;
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::task::AbortHandle;

/// Sent in the handshake. The "5.5.5-" prefix is MariaDB's convention for clients that
/// parse the version as MySQL 5.x; MariaDB clients strip it.
pub const HANDSHAKE_VERSION: &str = "5.5.5-10.11.99-MariaDB-manycore";
/// What `SELECT VERSION()` returns.
pub const SERVER_VERSION: &str = "10.11.99-MariaDB-manycore";
/// Initial size of a connection's read buffer; it grows for large packets.
const READ_BUFFER_INITIAL: usize = 16 * 1024;
/// A connection whose output buffer grew past this returns it to this size when idle.
const WRITE_BUFFER_RETAINED_MAX: usize = 1024 * 1024;

pub struct ConnectionContext {
    pub engine: Arc<Engine>,
    pub worker: usize,
    pub next_connection_id: Arc<AtomicU32>,
    pub max_allowed_packet: u64,
    pub max_connections: u32,
    pub connect_timeout: Duration,
    pub durability: Arc<crate::durability::Durability>,
    pub security: Arc<crate::tls::Security>,
    /// Shared by all workers: failures count per client host, whichever worker saw them.
    pub failed_logins: Arc<crate::login_delay::FailedLogins>,
    /// `--send-batching uring`: each worker sends replies through an io_uring ring.
    pub send_batching: bool,
    /// The worker thread's operating-system id, set when the thread starts (PROCESSLIST's TID).
    pub thread_id: u64,
}

/// How KILL, from any thread, reaches this connection: KILL CONNECTION aborts its task,
/// KILL QUERY wakes a statement waiting for a row lock or a SLEEP (`unless_killed`).
#[derive(Default)]
struct KillSignal {
    /// Set by `spawn` before the task first runs, so before any session can be killed.
    task: OnceLock<AbortHandle>,
    query: Notify,
}

/// `future`'s output, or None if KILL QUERY came first: while it waits, or since the
/// running statement began (the session's flag, read after the wake-up was registered).
async fn unless_killed<F: std::future::Future>(
    kill: &KillSignal,
    session: &Session,
    future: F,
) -> Option<F::Output> {
    // A `Notified` receives every notify_waiters after its creation, polled or not.
    let killed = kill.query.notified();
    if session.interrupted() {
        return None;
    }
    tokio::select! {
        biased;
        _ = killed => None,
        output = future => Some(output),
    }
}

/// Per-statement state the protocol needs beyond the session's: parameter types sent
/// by the client (reused when later executes omit them) and long data.
struct PreparedState {
    param_types: Vec<Option<ParamType>>,
    /// One slot per parameter once COM_STMT_SEND_LONG_DATA arrived, else empty: an
    /// execution without long data then reads no more than this Vec's header.
    long_data: Vec<Option<Vec<u8>>>,
    /// The result columns whose definitions the client last received for this statement,
    /// in PREPARE's reply or an execution's: an execution with the same columns leaves
    /// them out under CACHE_METADATA, as MariaDB does.
    client_columns: Columns,
}

/// Where replies are built: the output buffer and what encoding result sets needs.
struct Reply {
    output: Vec<u8>,
    writer: PacketWriter,
    column_types: ColumnTypes,
}

impl Reply {
    /// A sink appending to the output; `binary`: rows of a prepared statement's execution;
    /// `held_columns`: the definitions the client holds for it, consulted only under
    /// CACHE_METADATA.
    fn sink<'a>(
        &'a mut self,
        encoder: ResultSetEncoder,
        status_flags: u16,
        binary: bool,
        held_columns: Option<&'a mut Columns>,
    ) -> WireSink<'a> {
        WireSink::new(
            &mut self.output,
            &mut self.writer,
            &mut self.column_types,
            encoder,
            status_flags,
            binary,
            held_columns.filter(|_| encoder.cache_metadata),
        )
    }
}

/// The statement id that names the last prepared statement (MariaDB's `LAST_STMT_ID`).
const LAST_PREPARED: u32 = u32::MAX;

struct Connection {
    /// The connection's handle on its worker's send ring; None where io_uring is
    /// unavailable or turned off. Declared before `stream`, so an unsubmitted send is
    /// unqueued before the socket closes.
    sender: Option<Sender>,
    stream: Stream,
    peer: Peer,
    context: Arc<ConnectionContext>,
    id: u32,
    capabilities: u32,
    /// MariaDB's extended capabilities both sides declared (`mariadb_capability`).
    extended_capabilities: u32,
    scramble: Scramble,
    input: Vec<u8>,
    /// Bytes of `input` holding data; `input[consumed..filled]` is not yet decoded.
    filled: usize,
    consumed: usize,
    reply: Reply,
    /// The wire-protocol side of the session's prepared statements (which the session,
    /// serving text and binary protocol alike, does not hold); foldhash for the same
    /// reason as the session's map: read on every COM_STMT_EXECUTE.
    prepared: foldhash::HashMap<u32, PreparedState>,
    /// The statement the last successful COM_STMT_PREPARE created, which the statement id
    /// `LAST_PREPARED` names: MariaDB Connector/Node and /J send PREPARE and EXECUTE
    /// together, before the id is known.
    last_prepared: Option<u32>,
    params: Vec<Value>,
    /// A login refusal `establish` decided on, answered after the delay (invariant (7)).
    refusal: Option<Error>,
    kill: Arc<KillSignal>,
    /// Bytes read and sent since `report_traffic` last counted them.
    unreported: Traffic,
}

/// Bytes_received and Bytes_sent not yet counted: the reads and sends that happen where
/// no session is at hand (the handshake, the read and send futures) add up here.
#[derive(Default)]
struct Traffic {
    received: u64,
    sent: u64,
}

enum Flow {
    Continue,
    Close,
    /// The statement was undone to wait (a row lock, a SLEEP); resume after the wait.
    /// `statement`: the interrupted work was this prepared statement's execution
    /// (binary result rows), else a COM_QUERY.
    Wait {
        wait: Wait,
        statement: Option<u32>,
    },
    /// COM_CHANGE_USER's exchange needs more packets (caching_sha2 full authentication);
    /// the command loop drives it to the end.
    ChangeUser(Box<ChangeUserAuth>),
}

/// A COM_CHANGE_USER whose authentication has started but not finished.
struct ChangeUserAuth {
    exchange: AuthExchange,
    step: AuthStep,
    user: String,
    database: Option<String>,
    /// The account logging in (None: unknown, a decoy exchange runs).
    login: Option<accounts::Login>,
    using_password: bool,
}

/// Starts connection `stream` as a task of the calling worker's `LocalSet` (invariant (8)).
pub fn spawn(
    stream: Socket,
    peer: Peer,
    context: Arc<ConnectionContext>,
    send_ring: Option<Rc<SendRing>>,
) {
    let kill = Arc::new(KillSignal::default());
    let task = tokio::task::spawn_local(run(stream, peer, context, send_ring, kill.clone()));
    kill.task
        .set(task.abort_handle())
        .expect("a connection's task is spawned once");
}

async fn run(
    stream: Socket,
    peer: Peer,
    context: Arc<ConnectionContext>,
    send_ring: Option<Rc<SendRing>>,
    kill: Arc<KillSignal>,
) {
    if let Socket::Tcp(tcp) = &stream {
        let _ = tcp.set_nodelay(true);
    }
    let id = crate::listener::allocate_connection_id(&context.next_connection_id);
    let engine = context.engine.clone();
    let worker = context.worker;
    engine.status().add(worker, Counter::Connections, 1);
    let sender = send_ring.map(|ring| ring.sender(stream.as_raw_fd()));
    let mut connection = Connection {
        sender,
        stream: Stream::Plain(stream),
        peer,
        context,
        id,
        capabilities: 0,
        extended_capabilities: 0,
        scramble: Scramble::random(),
        input: vec![0; READ_BUFFER_INITIAL],
        filled: 0,
        consumed: 0,
        reply: Reply {
            output: Vec::with_capacity(READ_BUFFER_INITIAL),
            writer: PacketWriter::new(0),
            column_types: ColumnTypes::default(),
        },
        prepared: foldhash::HashMap::default(),
        last_prepared: None,
        params: Vec::new(),
        refusal: None,
        kill,
        unreported: Traffic::default(),
    };
    let timeout = connection.context.connect_timeout;
    let session = match tokio::time::timeout(timeout, connection.establish(peer)).await {
        Ok(Some(session)) => session,
        Ok(None) => {
            connection.answer_refusal().await;
            engine.status().add(worker, Counter::AbortedConnects, 1);
            connection.report_traffic(None);
            return;
        }
        Err(_) => {
            tracing::debug!(connection = id, "handshake timed out");
            engine.status().add(worker, Counter::AbortedConnects, 1);
            connection.report_traffic(None);
            return;
        }
    };
    let mut session = session;
    connection.command_loop(&mut session).await;
    connection.report_traffic(Some(&session));
    // Dropping `session` ends it (invariant (4)), here or wherever the task is aborted.
}

impl Connection {
    /// Handshake and authentication; on success the session, ready for commands.
    async fn establish(&mut self, peer: Peer) -> Option<Session> {
        let engine = self.context.engine.clone();
        if engine.processlist().len() >= self.context.max_connections as usize {
            let error = Error::new(ErrorCode::ConCount, "Too many connections");
            self.send_error(&error);
            let _ = self.flush().await;
            return None;
        }
        let capabilities = capability::server(true);
        let handshake = InitialHandshake {
            server_version: HANDSHAKE_VERSION,
            connection_id: self.id,
            scramble: &self.scramble,
            capabilities,
            charset: CHARSET_UTF8MB4_GENERAL_CI,
            status_flags: status::AUTOCOMMIT,
            auth_plugin: accounts::DEFAULT_PLUGIN.name(),
        };
        self.reply.writer.set_sequence_id(0);
        self.reply.writer.write_with(&mut self.reply.output, |o| {
            write_initial_handshake(o, &handshake)
        });
        self.flush().await.ok()?;

        let mut payload = self.read_first_payload().await?;
        if let Ok(ClientHandshake::SslRequest(_)) = parse_handshake_response(&payload) {
            self.start_tls().await?;
            payload = self.read_handshake_payload().await?;
        }
        let response = match parse_handshake_response(&payload) {
            Ok(ClientHandshake::Response(response)) => response,
            Ok(ClientHandshake::SslRequest(_)) | Err(_) => {
                let error = Error::new(ErrorCode::HandshakeError, "Bad handshake");
                self.send_error(&error);
                let _ = self.flush().await;
                return None;
            }
        };
        self.capabilities = response.capabilities & capabilities;
        self.extended_capabilities =
            response.extended_capabilities & mariadb_capability::SERVER_DEFAULT;
        let user = String::from_utf8_lossy(response.username).into_owned();
        let database = response
            .database
            .filter(|d| !d.is_empty())
            .map(|d| String::from_utf8_lossy(d).into_owned());
        let using_password = !response.auth_response.is_empty();
        let login = accounts::find_login(&engine, &user, peer);
        let authenticated = self
            .authenticate(login.as_ref(), response.auth_plugin, response.auth_response)
            .await;
        let Some(login) = login.filter(|_| authenticated) else {
            self.refusal = Some(accounts::access_denied(&user, peer.ip(), using_password));
            return None;
        };
        if let Err(error) = self.admit(&login, &user, using_password) {
            self.refusal = Some(error);
            return None;
        }
        self.context.failed_logins.succeeded(peer.ip());
        let info = ConnectionInfo {
            id: self.id,
            user,
            host: peer.process_host(),
            account_host: login.account.host,
            using_password,
            worker: self.context.worker,
            thread_id: self.context.thread_id,
            database,
        };
        let kill_target = self.kill.clone();
        let on_kill = Box::new(move |kind: KillKind| match kind {
            KillKind::Connection => {
                if let Some(task) = kill_target.task.get() {
                    task.abort();
                }
            }
            KillKind::Query => kill_target.query.notify_waiters(),
        });
        match Session::new(engine, info, on_kill) {
            Ok(mut session) => {
                session.set_tls(self.stream.tls_info());
                session.set_multi_statements(self.capabilities & capability::MULTI_STATEMENTS != 0);
                session
                    .set_client_multi_results(self.capabilities & capability::MULTI_RESULTS != 0);
                session.set_client_ps_multi_results(
                    self.capabilities & capability::PS_MULTI_RESULTS != 0,
                );
                session.set_client_found_rows(self.capabilities & capability::FOUND_ROWS != 0);
                session.set_client_local_files(self.capabilities & capability::LOCAL_FILES != 0);
                let ok = OkPacket {
                    status_flags: session.status_flags(),
                    ..OkPacket::default()
                };
                self.reply
                    .writer
                    .write_with(&mut self.reply.output, |o| write_ok(o, &ok));
                self.flush().await.ok()?;
                Some(session)
            }
            Err(error) => {
                self.send_error(&error);
                let _ = self.flush().await;
                None
            }
        }
    }

    /// Runs one authentication exchange. An unknown account runs a decoy exchange so the
    /// client sees the same packets as for a wrong password.
    async fn authenticate(
        &mut self,
        login: Option<&accounts::Login>,
        plugin: Option<&[u8]>,
        auth_response: &[u8],
    ) -> bool {
        let checked = login.map(|l| &l.credential);
        let mut exchange = self.exchange_for(checked.cloned());
        let step = exchange.start(
            plugin,
            auth_response,
            &mut self.reply.output,
            &mut self.reply.writer,
        );
        self.drive_exchange(&mut exchange, step, checked).await
    }

    /// The exchange for `credential`, or a decoy one for an unknown account.
    fn exchange_for(&self, credential: Option<Credential>) -> AuthExchange {
        let credential =
            credential.unwrap_or_else(|| Credential::decoy(accounts::DEFAULT_PLUGIN, true));
        let secure = self.is_secure();
        AuthExchange::new(self.scramble.clone(), credential, secure, self.capabilities)
    }

    /// Runs an exchange from `step` to its end: true if it accepted. `checked` is the
    /// account's credential (None for a decoy), for the fast-auth cache.
    async fn drive_exchange(
        &mut self,
        exchange: &mut AuthExchange,
        mut step: AuthStep,
        checked: Option<&Credential>,
    ) -> bool {
        // The input range of the client's last auth packet (the RSA ciphertext).
        let mut last_payload = 0..0;
        loop {
            match step {
                AuthStep::Accepted => {
                    if let Some(credential) = checked {
                        accounts::remember_verified(credential, exchange.verified_digest());
                    }
                    return true;
                }
                AuthStep::Rejected(reason) => {
                    tracing::debug!(connection = self.id, ?reason, "authentication failed");
                    return false;
                }
                AuthStep::PublicKeyRequested => {
                    let pem = self.context.security.rsa.public_pem();
                    step = exchange.send_public_key(
                        pem,
                        &mut self.reply.output,
                        &mut self.reply.writer,
                    );
                }
                AuthStep::DecryptPassword => {
                    let security = self.context.security.clone();
                    let mut plaintext = Vec::new();
                    let ciphertext = &self.input[last_payload.clone()];
                    step = match security.rsa.decrypt(ciphertext, &mut plaintext) {
                        Some(password) => exchange.receive_rsa_decrypted(password),
                        None => exchange.reject_undecryptable(),
                    };
                    // The plaintext is the password: do not leave it in freed memory.
                    plaintext.fill(0);
                    std::hint::black_box(&plaintext);
                }
                AuthStep::Continue => {
                    if self.flush().await.is_err() {
                        return false;
                    }
                    let Some(frame) = self.read_frame().await else {
                        return false;
                    };
                    let start = self.consumed;
                    self.consumed += frame.consumed;
                    self.reply.writer.set_sequence_id(frame.reply_sequence_id());
                    last_payload = start + frame.payload.start..start + frame.payload.end;
                    let payload = &self.input[last_payload.clone()];
                    step =
                        exchange.receive(payload, &mut self.reply.output, &mut self.reply.writer);
                }
            }
        }
    }

    /// TLS or the local socket: a cleartext password may cross it, and it satisfies
    /// `require_secure_transport` (invariant (6)).
    fn is_secure(&self) -> bool {
        self.is_tls() || self.stream.is_local()
    }

    /// TLS, which alone satisfies an account's `REQUIRE SSL` (invariant (6)).
    fn is_tls(&self) -> bool {
        matches!(self.stream, Stream::Tls(_))
    }

    /// The global `require_secure_transport` (`--require-secure-transport`, or SET GLOBAL).
    fn secure_transport_required(&self) -> bool {
        let value = self
            .context
            .engine
            .global_variable("require_secure_transport");
        matches!(value, Some(Value::Int(1)))
    }

    /// The checks after the password was verified: the transport (1045 without TLS under
    /// `require_secure_transport`, as MariaDB), then the account's own (REQUIRE SSL, lock).
    fn admit(
        &self,
        login: &accounts::Login,
        user: &str,
        using_password: bool,
    ) -> Result<(), Error> {
        if !self.is_secure() && self.secure_transport_required() {
            tracing::debug!(connection = self.id, "login over plain TCP refused");
            return Err(accounts::access_denied(
                user,
                self.peer.ip(),
                using_password,
            ));
        }
        accounts::admit(login, user, self.peer.ip(), self.is_tls())
    }

    /// Reads the client's first packet with exact reads: after an SSLRequest the client
    /// sends its TLS ClientHello at once, and those bytes must stay in the socket for the
    /// TLS handshake (invariant (5)).
    async fn read_first_payload(&mut self) -> Option<Vec<u8>> {
        let mut header = [0u8; HEADER_LEN];
        self.stream.read_exact(&mut header).await.ok()?;
        let length = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
        let start = self.filled;
        let end = start + HEADER_LEN + length;
        // Only into the buffer as it is: a length claimed before authentication must not
        // make the server allocate anything (an SSLRequest has 32 bytes).
        if end <= self.input.len() {
            self.input[start..start + HEADER_LEN].copy_from_slice(&header);
            self.stream
                .read_exact(&mut self.input[start + HEADER_LEN..end])
                .await
                .ok()?;
            self.filled = end;
            self.count_received(end - start);
        } else {
            // Larger than any handshake response: the ordinary path frames it, growing
            // the buffer only as bytes arrive (and refusing one over max_allowed_packet).
            self.input[start..start + HEADER_LEN].copy_from_slice(&header);
            self.filled += HEADER_LEN;
            self.count_received(HEADER_LEN);
        }
        self.read_handshake_payload().await
    }

    /// The next payload of the connection phase, consumed from the input buffer; the
    /// reply's sequence id is set from it.
    async fn read_handshake_payload(&mut self) -> Option<Vec<u8>> {
        let frame = self.read_frame().await?;
        let payload = self.input[self.consumed..][frame.payload.clone()].to_vec();
        self.consumed += frame.consumed;
        self.reply.writer.set_sequence_id(frame.reply_sequence_id());
        Some(payload)
    }

    /// Upgrades the stream after an SSLRequest (invariant (5)).
    async fn start_tls(&mut self) -> Option<()> {
        let status = self.context.engine.status();
        status.add(self.context.worker, Counter::SslAccepts, 1);
        let security = self.context.security.clone();
        if let Err(error) = self.stream.upgrade(&security.acceptor).await {
            tracing::debug!(connection = self.id, %error, "TLS handshake failed");
            return None;
        }
        let status = self.context.engine.status();
        status.add(self.context.worker, Counter::SslFinishedAccepts, 1);
        Some(())
    }

    /// Sends the login refusal `establish` decided on, if any, after the host's
    /// failed-login delay (invariant (7); accounts invariant (3)).
    async fn answer_refusal(&mut self) {
        let Some(error) = self.refusal.take() else {
            return;
        };
        self.delay_refusal().await;
        self.send_error(&error);
        let _ = self.flush().await;
    }

    /// Counts a refused login from the peer and waits its host's delay.
    async fn delay_refusal(&self) {
        let delay = self.context.failed_logins.failed(self.peer.ip());
        if !delay.is_zero() {
            tracing::debug!(connection = self.id, ?delay, "failed login delayed");
            tokio::time::sleep(delay).await;
        }
    }

    async fn command_loop(&mut self, session: &mut Session) {
        loop {
            // Before the commands run, so SHOW STATUS counts the bytes of its own command
            // (and of the login, the first time), as MariaDB's does.
            self.report_traffic(Some(session));
            // Serve every complete command already buffered before writing replies.
            loop {
                let frame = match self.next_buffered_frame() {
                    Ok(Some(frame)) => frame,
                    Ok(None) => break,
                    Err(error) => {
                        if matches!(error, ProtocolError::PacketTooLarge { .. }) {
                            // Read the rest of it so the client, which writes the whole
                            // payload before reading, gets our error in sequence.
                            self.discard_oversized_payload().await;
                        } else {
                            self.reply_to_unframed_packet();
                        }
                        self.send_protocol_error(&error);
                        let _ = self.flush().await;
                        return;
                    }
                };
                let start = self.consumed;
                self.consumed += frame.consumed;
                self.reply.writer.set_sequence_id(frame.reply_sequence_id());
                let payload = start + frame.payload.start..start + frame.payload.end;
                let reply_start =
                    crate::durability::ReplyStart::new(&self.reply.output, &self.reply.writer);
                let mut flow = self.dispatch(session, payload);
                let mut committed = manycore_storage::take_commit_lsn();
                if let Flow::Wait { .. } = flow {
                    flow = self
                        .wait_and_resume(session, flow, &mut committed, reply_start)
                        .await;
                }
                if let Flow::ChangeUser(auth) = flow {
                    flow = self.finish_change_user(session, *auth).await;
                }
                // Durability invariant (2): no reply before what it acknowledges is durable.
                // Borrowed, not cloned: the log is shared by every worker, and a reference
                // count write per command would be a shared write (ARCHITECTURE (3)).
                let (output, writer) = (&mut self.reply.output, &mut self.reply.writer);
                crate::durability::await_commit(
                    &self.context.durability,
                    committed,
                    reply_start,
                    output,
                    writer,
                )
                .await;
                if let Flow::Close = flow {
                    let _ = self.flush().await;
                    return;
                }
            }
            if !self.reply.output.is_empty() && self.send_replies().await.is_err() {
                return;
            }
            if self.read_more_unless_send_incomplete().await.is_err() {
                // A client that closed only its writing side still reads what it is owed.
                let _ = self.reclaim_output().await;
                return;
            }
            if self.reclaim_output().await.is_err() {
                return;
            }
        }
    }

    /// Waits for row locks, DDL's table locks, user locks and SLEEPs (without blocking the worker:
    /// other connections run meanwhile) and re-runs the undone statement until it
    /// completes, fails, innodb_lock_wait_timeout or lock_wait_timeout passes (1205) or
    /// KILL QUERY arrives (1317). Session invariant (4).
    ///
    /// A LOAD DATA LOCAL waits for its file: the replies so far (of the statements before
    /// it in the command, whose commits `committed` covers) are sent once durable, then the
    /// request, and the file's bytes are read from the client.
    async fn wait_and_resume(
        &mut self,
        session: &mut Session,
        mut flow: Flow,
        committed: &mut Option<u64>,
        reply_start: crate::durability::ReplyStart,
    ) -> Flow {
        // Lock waits of one statement share one timeout, from the first of them.
        let mut lock_deadline = None;
        while let Flow::Wait { wait, statement } = flow {
            let waited = match wait {
                Wait::RowLock(lock) => {
                    let timeout = session.row_lock_wait_timeout();
                    self.wait_for_lock(session, lock, &mut lock_deadline, timeout)
                        .await
                }
                Wait::TableLock(lock) => {
                    let timeout = session.table_lock_wait_timeout();
                    self.wait_for_lock(session, lock, &mut lock_deadline, timeout)
                        .await
                }
                Wait::Sleep(duration) => {
                    let slept = tokio::time::sleep(duration);
                    match unless_killed(&self.kill, session, slept).await {
                        Some(()) => Ok(()),
                        None => Err(session.interrupt_wait()),
                    }
                }
                Wait::LocalFile(name) => {
                    let (output, writer) = (&mut self.reply.output, &mut self.reply.writer);
                    let durability = &self.context.durability;
                    let earlier = committed.take();
                    if !crate::durability::await_commit(
                        durability,
                        earlier,
                        reply_start,
                        output,
                        writer,
                    )
                    .await
                    {
                        session.drop_pending();
                        return Flow::Continue;
                    }
                    match self.receive_local_file(name.as_bytes()).await {
                        Some(data) => session.supply_local_file(data),
                        None => return Flow::Close,
                    }
                    Ok(())
                }
                Wait::UserLock(mut lock) => {
                    // Released or timed out, the statement runs again and its GET_LOCK
                    // call answers 1 or 0; killed, the call answers NULL.
                    let deadline = tokio::time::Instant::from_std(lock.deadline());
                    let released = tokio::time::timeout_at(deadline, lock.released());
                    if unless_killed(&self.kill, session, released).await.is_none() {
                        session.interrupt_user_lock_wait();
                    }
                    Ok(())
                }
            };
            if let Err(error) = waited {
                self.send_error(&error);
                return Flow::Continue;
            }
            let result = {
                let mut sink = self.sink(session.status_flags(), statement);
                session.resume(&mut sink)
            };
            flow = self.finish_statement(session, result, statement);
        }
        flow
    }

    /// Asks the client for the file LOAD DATA LOCAL names and reads what it sends until the
    /// empty packet that ends it (a client that cannot read the file sends only that).
    /// None if the connection broke.
    async fn receive_local_file(&mut self, name: &[u8]) -> Option<Vec<u8>> {
        self.reply.writer.write_with(&mut self.reply.output, |o| {
            write_local_infile_request(o, name)
        });
        self.flush().await.ok()?;
        let mut data = Vec::new();
        loop {
            let frame = loop {
                match self.next_buffered_frame() {
                    Ok(Some(frame)) => break frame,
                    Ok(None) => self.read_more().await.ok()?,
                    Err(error) => {
                        tracing::debug!(connection = self.id, %error, "bad LOAD DATA packet");
                        return None;
                    }
                }
            };
            let start = self.consumed;
            self.consumed += frame.consumed;
            self.reply.writer.set_sequence_id(frame.reply_sequence_id());
            let payload = &self.input[start + frame.payload.start..start + frame.payload.end];
            if payload.is_empty() {
                return Some(data);
            }
            data.extend_from_slice(payload);
        }
    }

    /// One wait for the end of the transaction `lock` names, bounded by the statement's
    /// deadline (set by its first lock wait: now plus `timeout`).
    async fn wait_for_lock(
        &self,
        session: &mut Session,
        lock: LockWait,
        deadline: &mut Option<tokio::time::Instant>,
        timeout: Duration,
    ) -> Result<(), Error> {
        let immediate = lock.holder() == 0;
        let deadline = *deadline.get_or_insert_with(|| tokio::time::Instant::now() + timeout);
        let waited = tokio::time::timeout_at(deadline, lock.wait());
        match unless_killed(&self.kill, session, waited).await {
            Some(Err(_)) => Err(session.abandon_lock_wait()),
            Some(Ok(())) => {
                if immediate {
                    // The holder ended before the wait began (the row changed under the
                    // statement): let other connections run first.
                    tokio::task::yield_now().await;
                }
                Ok(())
            }
            None => Err(session.interrupt_wait()),
        }
    }

    /// Reports a statement's error, or turns a lock wait into `Flow::Wait`.
    fn finish_statement(
        &mut self,
        session: &mut Session,
        result: manycore_sql::Result<()>,
        statement: Option<u32>,
    ) -> Flow {
        match result {
            Ok(()) => Flow::Continue,
            Err(error) => match (error.wait, session.take_wait()) {
                (Some(_), Some(wait)) => Flow::Wait { wait, statement },
                _ => {
                    self.send_error(&error);
                    Flow::Continue
                }
            },
        }
    }

    /// Handles one command whose payload is `self.input[payload]`.
    fn dispatch(&mut self, session: &mut Session, payload: std::ops::Range<usize>) -> Flow {
        // The command borrows the input buffer while replies go to the output buffer.
        let input = std::mem::take(&mut self.input);
        let flow = match parse_command(&input[payload.clone()], self.capabilities) {
            Ok(command) => self.execute(session, command, &input[payload]),
            Err(error) => {
                self.send_protocol_error(&error);
                if error.is_fatal() {
                    Flow::Close
                } else {
                    Flow::Continue
                }
            }
        };
        self.input = input;
        flow
    }

    fn execute(&mut self, session: &mut Session, command: Command<'_>, payload: &[u8]) -> Flow {
        // The worker's context, not the engine, is cloned: the engine's reference count is
        // shared by every worker, and a write to it per command is a shared write
        // (ARCHITECTURE (3)); the context's belongs to this worker's thread.
        let context = Arc::clone(&self.context);
        let engine = &context.engine;
        match command {
            Command::Quit => return Flow::Close,
            Command::Query { query } => {
                session.count(Counter::Questions, 1);
                let text = manycore_sql::query_text::decode(query);
                let result = {
                    let mut sink = self.sink(session.status_flags(), None);
                    session.run_query(&text, &mut sink)
                };
                return self.finish_statement(session, result, None);
            }
            Command::InitDb { schema } => {
                let name = String::from_utf8_lossy(schema);
                match session.init_db(&name) {
                    Ok(()) => self.send_ok(session),
                    Err(error) => self.send_error(&error),
                }
            }
            Command::Ping => self.send_ok(session),
            Command::Debug => {
                let flags = session.status_flags();
                self.reply
                    .writer
                    .write_with(&mut self.reply.output, |o| write_eof(o, 0, flags));
            }
            Command::Statistics => {
                let text = statistics_line(engine);
                self.reply
                    .writer
                    .write_packet(&mut self.reply.output, text.as_bytes());
            }
            Command::ProcessKill { connection_id } => {
                let mut sink = self.sink(session.status_flags(), None);
                let result = session.run_query(&format!("KILL {connection_id}"), &mut sink);
                if let Err(error) = result {
                    self.send_error(&error);
                }
            }
            Command::FieldList { table, wildcard } => {
                let table = String::from_utf8_lossy(table).into_owned();
                let wildcard = String::from_utf8_lossy(wildcard).into_owned();
                let result = {
                    let mut sink = self.sink(session.status_flags(), None);
                    session.field_list(&table, &wildcard, &mut sink)
                };
                if let Err(error) = result {
                    self.send_error(&error);
                }
            }
            Command::SetOption { multi_statements } => {
                session.set_multi_statements(multi_statements);
                let flags = session.status_flags();
                self.reply
                    .writer
                    .write_with(&mut self.reply.output, |o| write_eof(o, 0, flags));
            }
            Command::ResetConnection => {
                session.reset();
                self.prepared.clear();
                self.last_prepared = None;
                self.send_ok(session);
            }
            Command::ChangeUser(change) => return self.change_user(change),
            Command::StmtPrepare { query } => {
                session.count(Counter::ComStmtPrepare, 1);
                let text = manycore_sql::query_text::decode(query);
                match session.prepare(&text) {
                    Ok(info) => {
                        let state = PreparedState {
                            param_types: vec![None; info.params.len()],
                            long_data: Vec::new(),
                            client_columns: info.columns.clone(),
                        };
                        self.prepared.insert(info.id, state);
                        self.last_prepared = Some(info.id);
                        let flags = session.status_flags();
                        let mut sink = self.sink(flags, None);
                        sink.prepare_ok(info.id, info.params.len(), &info.columns, flags);
                    }
                    Err(error) => {
                        self.last_prepared = None;
                        self.send_error(&error);
                    }
                }
            }
            Command::StmtExecute { statement_id } => {
                session.count(Counter::Questions, 1);
                session.count(Counter::ComStmtExecute, 1);
                let statement_id = self.resolve_statement_id(statement_id);
                return self.execute_prepared(session, statement_id, payload);
            }
            Command::StmtSendLongData {
                statement_id,
                param_id,
                data,
            } => {
                // No reply, by protocol.
                let statement_id = self.resolve_statement_id(statement_id);
                if let Some(state) = self.prepared.get_mut(&statement_id) {
                    if state.long_data.is_empty() {
                        state.long_data.resize(state.param_types.len(), None);
                    }
                    if let Some(slot) = state.long_data.get_mut(param_id as usize) {
                        slot.get_or_insert_with(Vec::new).extend_from_slice(data);
                    }
                }
            }
            Command::StmtClose { statement_id } => {
                // No reply, by protocol.
                let statement_id = self.resolve_statement_id(statement_id);
                if self.last_prepared == Some(statement_id) {
                    self.last_prepared = None;
                }
                self.prepared.remove(&statement_id);
                session.close_prepared(statement_id);
            }
            Command::StmtReset { statement_id } => {
                let statement_id = self.resolve_statement_id(statement_id);
                if let Some(state) = self.prepared.get_mut(&statement_id) {
                    state.long_data.clear();
                }
                match session.reset_prepared(statement_id) {
                    Ok(()) => self.send_ok(session),
                    Err(error) => self.send_error(&error),
                }
            }
            Command::StmtFetch { .. } => {
                self.send_error(&Error::not_supported("cursors (COM_STMT_FETCH)"));
            }
            Command::Unknown(code) => {
                tracing::debug!(connection = self.id, code, "unknown command");
                self.send_error(&Error::new(ErrorCode::UnknownCommand, "Unknown command"));
            }
        }
        Flow::Continue
    }

    /// `statement_id`, or the last prepared statement's for `LAST_PREPARED` (MariaDB's
    /// `find_prepared_statement`); without one it stays unknown, as in MariaDB.
    fn resolve_statement_id(&self, statement_id: u32) -> u32 {
        match (statement_id, self.last_prepared) {
            (LAST_PREPARED, Some(last)) => last,
            _ => statement_id,
        }
    }

    fn execute_prepared(
        &mut self,
        session: &mut Session,
        statement_id: u32,
        payload: &[u8],
    ) -> Flow {
        let encoder = self.encoder();
        let Some(state) = self.prepared.get_mut(&statement_id) else {
            let error = Error::new(
                ErrorCode::UnknownStmtHandler,
                format!(
                    "Unknown prepared statement handler ({statement_id}) given to \
                     mysqld_stmt_execute"
                ),
            );
            self.send_error(&error);
            return Flow::Continue;
        };
        let has_long_data = !state.long_data.is_empty();
        let long_data = has_long_data.then_some(&state.long_data[..]);
        let execute = match parse_execute(payload, &mut state.param_types, long_data) {
            Ok(execute) => execute,
            Err(error) => {
                let error = protocol_error(&error);
                self.send_error(&error);
                return Flow::Continue;
            }
        };
        if execute.cursor_requested() {
            // Clients asking for a read-only cursor accept a plain result set: MySQL
            // answers this way when the statement returns no rows through a cursor.
            tracing::trace!(connection = self.id, "cursor requested; streaming instead");
        }
        self.params.clear();
        self.params.extend(execute.params().map(|p| p.to_value()));
        if has_long_data {
            state.long_data.clear();
        }
        let held_columns = Some(&mut state.client_columns);
        let mut sink = self
            .reply
            .sink(encoder, session.status_flags(), true, held_columns);
        let result = session.execute_prepared(statement_id, &self.params, &mut sink);
        self.finish_statement(session, result, Some(statement_id))
    }

    fn change_user(&mut self, change: manycore_protocol::command::ChangeUser<'_>) -> Flow {
        // Re-authentication may need more packets (async reads): the exchange starts here
        // and `finish_change_user` drives it from the command loop.
        let user = String::from_utf8_lossy(change.username).into_owned();
        let using_password = !change.auth_response.is_empty();
        let login = accounts::find_login(&self.context.engine, &user, self.peer);
        let mut exchange = self.exchange_for(login.as_ref().map(|l| l.credential.clone()));
        let step = exchange.start(
            change.auth_plugin,
            change.auth_response,
            &mut self.reply.output,
            &mut self.reply.writer,
        );
        let database = (!change.schema.is_empty())
            .then(|| String::from_utf8_lossy(change.schema).into_owned());
        Flow::ChangeUser(Box::new(ChangeUserAuth {
            exchange,
            step,
            user,
            database,
            login,
            using_password,
        }))
    }

    /// Completes COM_CHANGE_USER: the rest of the exchange, then the session's new
    /// identity, or 1045 and the connection closed.
    async fn finish_change_user(&mut self, session: &mut Session, auth: ChangeUserAuth) -> Flow {
        let ChangeUserAuth {
            mut exchange,
            step,
            user,
            database,
            login,
            using_password,
        } = auth;
        let checked = login.as_ref().map(|l| &l.credential);
        let authenticated = self.drive_exchange(&mut exchange, step, checked).await;
        let peer_ip = self.peer.ip();
        let Some(login) = login.filter(|_| authenticated) else {
            self.delay_refusal().await;
            self.send_error(&accounts::access_denied(&user, peer_ip, using_password));
            return Flow::Close;
        };
        if let Err(error) = self.admit(&login, &user, using_password) {
            self.delay_refusal().await;
            self.send_error(&error);
            return Flow::Close;
        }
        self.context.failed_logins.succeeded(peer_ip);
        let host = accounts::host_name(peer_ip);
        self.prepared.clear();
        self.last_prepared = None;
        match session.change_user(user, host, login.account.host, using_password, database) {
            Ok(()) => {
                self.send_ok(session);
                Flow::Continue
            }
            Err(error) => {
                self.send_error(&error);
                Flow::Close
            }
        }
    }

    /// The sink for one command's results: for `statement`'s execution binary rows, and
    /// under CACHE_METADATA no column definitions the client already holds for it.
    fn sink(&mut self, status_flags: u16, statement: Option<u32>) -> WireSink<'_> {
        let encoder = self.encoder();
        let held_columns = statement
            .and_then(|id| self.prepared.get_mut(&id))
            .map(|s| &mut s.client_columns);
        self.reply
            .sink(encoder, status_flags, statement.is_some(), held_columns)
    }

    fn encoder(&self) -> ResultSetEncoder {
        ResultSetEncoder::new(self.capabilities, self.extended_capabilities)
    }

    fn send_ok(&mut self, session: &Session) {
        let ok = OkPacket {
            status_flags: session.status_flags(),
            warnings: session.warning_count(),
            ..OkPacket::default()
        };
        self.reply
            .writer
            .write_with(&mut self.reply.output, |o| write_ok(o, &ok));
    }

    fn send_error(&mut self, error: &Error) {
        let (code, state) = (error.number(), error.sqlstate());
        let message = error.message.as_bytes();
        self.reply.writer.write_with(&mut self.reply.output, |o| {
            write_err(o, code, state, message)
        });
    }

    fn send_protocol_error(&mut self, error: &ProtocolError) {
        self.send_error(&protocol_error(error));
    }

    /// Skips the packets of a payload larger than max_allowed_packet (bounded in bytes and
    /// time) and sets the reply's sequence id one past its last packet. Invariant (2).
    async fn discard_oversized_payload(&mut self) {
        const DISCARD_BYTES_MAX: u64 = 4 << 30;
        const DISCARD_TIME_MAX: Duration = Duration::from_secs(30);
        let deadline = tokio::time::Instant::now() + DISCARD_TIME_MAX;
        let mut discarded = 0u64;
        loop {
            while self.filled - self.consumed < HEADER_LEN {
                let read = tokio::time::timeout_at(deadline, self.read_more()).await;
                if !matches!(read, Ok(Ok(()))) {
                    return;
                }
            }
            let header = &self.input[self.consumed..self.consumed + HEADER_LEN];
            let length = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
            self.reply.writer.set_sequence_id(header[3].wrapping_add(1));
            let mut remaining = HEADER_LEN + length;
            loop {
                let available = (self.filled - self.consumed).min(remaining);
                self.consumed += available;
                remaining -= available;
                discarded += available as u64;
                if remaining == 0 {
                    break;
                }
                let read = tokio::time::timeout_at(deadline, self.read_more()).await;
                if discarded > DISCARD_BYTES_MAX || !matches!(read, Ok(Ok(()))) {
                    return;
                }
            }
            if length < manycore_protocol::packet::MAX_PACKET_CHUNK {
                return;
            }
        }
    }

    /// Sets the reply's sequence id after a packet that could not be framed (out of
    /// order): one past the header's, so the client reads our error in sequence.
    fn reply_to_unframed_packet(&mut self) {
        if let Some(&sequence_id) = self.input[..self.filled].get(self.consumed + 3) {
            self.reply
                .writer
                .set_sequence_id(sequence_id.wrapping_add(1));
        }
    }

    /// The next complete payload already in the buffer, if any.
    fn next_buffered_frame(&mut self) -> Result<Option<Frame>, ProtocolError> {
        let max = usize::try_from(self.context.max_allowed_packet).unwrap_or(usize::MAX);
        next_payload(&mut self.input[self.consumed..self.filled], max)
    }

    /// Reads until a complete payload is buffered (handshake phase).
    async fn read_frame(&mut self) -> Option<Frame> {
        loop {
            match self.next_buffered_frame() {
                Ok(Some(frame)) => return Some(frame),
                Ok(None) => self.read_more().await.ok()?,
                Err(error) => {
                    self.reply_to_unframed_packet();
                    self.send_protocol_error(&error);
                    let _ = self.flush().await;
                    return None;
                }
            }
        }
    }

    /// Reads more bytes, first moving undecoded bytes to the front and growing the buffer
    /// when it is full (a large packet). Err on EOF or error.
    async fn read_more(&mut self) -> std::io::Result<()> {
        if self.consumed > 0 {
            self.input.copy_within(self.consumed..self.filled, 0);
            self.filled -= self.consumed;
            self.consumed = 0;
        }
        if self.filled == self.input.len() {
            let limit = self.context.max_allowed_packet as usize + 2 * HEADER_LEN;
            let grown = (self.input.len() * 2).min(limit.max(self.input.len() + HEADER_LEN));
            self.input.resize(grown.max(self.input.len() + 1), 0);
        }
        let n = self.stream.read(&mut self.input[self.filled..]).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        self.filled += n;
        self.count_received(n);
        Ok(())
    }

    fn count_received(&mut self, bytes: usize) {
        self.unreported.received += bytes as u64;
    }

    /// Counts the traffic since the last call: in `session`'s counters, or only in the
    /// server's before there is a session (a refused login).
    fn report_traffic(&mut self, session: Option<&Session>) {
        let Traffic { received, sent } = std::mem::take(&mut self.unreported);
        match session {
            Some(session) => {
                session.count(Counter::BytesReceived, received);
                session.count(Counter::BytesSent, sent);
            }
            None => {
                let (status, worker) = (self.context.engine.status(), self.context.worker);
                status.add(worker, Counter::BytesReceived, received);
                status.add(worker, Counter::BytesSent, sent);
            }
        }
    }

    /// Writes the output and waits until it is written.
    async fn flush(&mut self) -> std::io::Result<()> {
        self.reclaim_output().await?;
        self.count_sent(self.reply.output.len());
        let result = self
            .stream
            .write_all(&mut self.reply.output, self.sender.as_mut())
            .await;
        self.trim_output();
        result
    }

    /// Hands the output to the send ring without waiting (invariant (9)); writes it and
    /// waits where the ring does not apply.
    async fn send_replies(&mut self) -> std::io::Result<()> {
        let bytes = self.reply.output.len();
        let started = match &mut self.sender {
            Some(sender) => self.stream.start_send(&mut self.reply.output, sender),
            None => false,
        };
        if !started {
            return self.flush().await;
        }
        self.count_sent(bytes);
        Ok(())
    }

    /// Invariant (9): the output buffer back from the ring, whatever the kernel did not
    /// take written.
    async fn reclaim_output(&mut self) -> std::io::Result<()> {
        let Some(sender) = &mut self.sender else {
            return Ok(());
        };
        let result = self
            .stream
            .finish_send(sender, &mut self.reply.output)
            .await;
        self.trim_output();
        result
    }

    /// `read_more`, cut short by a send in flight that needs its rest written.
    async fn read_more_unless_send_incomplete(&mut self) -> std::io::Result<()> {
        let Some(mut sender) = self.sender.take() else {
            return self.read_more().await;
        };
        let read = tokio::select! {
            biased;
            () = std::future::poll_fn(|cx| sender.poll_incomplete(cx)) => Ok(()),
            read = self.read_more() => read,
        };
        self.sender = Some(sender);
        read
    }

    fn count_sent(&mut self, bytes: usize) {
        self.unreported.sent += bytes as u64;
    }

    fn trim_output(&mut self) {
        if self.reply.output.capacity() > WRITE_BUFFER_RETAINED_MAX {
            self.reply.output.shrink_to(WRITE_BUFFER_RETAINED_MAX);
        }
    }
}

fn protocol_error(error: &ProtocolError) -> Error {
    let code = match error.code() {
        1153 => ErrorCode::NetPacketTooLarge,
        1047 => ErrorCode::UnknownCommand,
        1210 => ErrorCode::WrongArguments,
        1043 => ErrorCode::HandshakeError,
        1156 | 1158 => ErrorCode::NetReadError,
        _ => ErrorCode::MalformedPacket,
    };
    Error::new(code, error.to_string())
}

/// COM_STATISTICS's reply, in the format `mariadb-admin status` prints.
fn statistics_line(engine: &Engine) -> String {
    let uptime = engine.uptime_seconds().max(1);
    let questions = engine.status().get(Counter::Questions);
    format!(
        "Uptime: {uptime}  Threads: {}  Questions: {questions}  Slow queries: 0  Opens: 0  \
         Open tables: 0  Queries per second avg: {:.3}",
        engine.processlist().len(),
        questions as f64 / uptime as f64
    )
}
