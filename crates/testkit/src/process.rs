//! Child processes, scratch directories and ports for throwaway servers.
//!
//! Invariants:
//! (1) A [`ServerProcess`] is stopped by PID on drop: SIGTERM, a bounded wait, SIGKILL.
//! (2) Spawned children get PR_SET_PDEATHSIG(SIGKILL), so a test process killed from
//!     outside (CI timeout, Ctrl-C) does not leave servers holding ports and CPU.
//! (3) Output goes to a log file, never to a pipe nobody drains: a chatty server can
//!     not block on a full pipe, and the log is what a failing start prints.

use std::fs::{self, File};
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a server gets to become ready; generous because CI shares 2 cores.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a server gets to exit after SIGTERM before it is SIGKILLed.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// A directory removed (recursively) on drop, unless `TESTKIT_KEEP_DIRS` is set.
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    pub fn new(prefix: &str) -> ScratchDir {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "{prefix}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        fs::create_dir_all(&path).expect("create scratch directory under the temp dir");
        ScratchDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        if std::env::var_os("TESTKIT_KEEP_DIRS").is_none() {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// A port on 127.0.0.1 that was free a moment ago. The OS picks it, so parallel
/// tests do not collide; the tiny race until the server binds is handled by
/// retrying the start.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port on loopback");
    listener
        .local_addr()
        .expect("local address of a bound listener")
        .port()
}

/// A spawned server with its output in `log_path`.
#[derive(Debug)]
pub struct ServerProcess {
    child: Option<Child>,
    name: String,
    log_path: PathBuf,
}

impl ServerProcess {
    /// Spawns `command` with stdout and stderr appended to `log_path`.
    pub fn spawn(name: &str, mut command: Command, log_path: &Path) -> ServerProcess {
        let log = File::options()
            .create(true)
            .append(true)
            .open(log_path)
            .expect("open server log file");
        let log_err = log.try_clone().expect("clone log file handle");
        command.stdin(Stdio::null()).stdout(log).stderr(log_err);
        die_with_parent(&mut command);
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {name} ({command:?}): {e}"));
        ServerProcess {
            child: Some(child),
            name: name.to_string(),
            log_path: log_path.into(),
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The exit status if the process has exited (and is reaped now).
    pub fn try_exit_status(&mut self) -> Option<ExitStatus> {
        let child = self.child.as_mut()?;
        child.try_wait().ok().flatten()
    }

    /// The server's output so far (the tail, if long), for panic messages.
    pub fn log_tail(&self) -> String {
        log_tail(&self.log_path)
    }

    /// Waits until `ready` returns true, bounded by [`START_TIMEOUT`]. Returns the
    /// server's output as `Err` if it exits first (the caller may retry on another
    /// port); panics with the output if the time runs out.
    pub fn wait_ready(&mut self, mut ready: impl FnMut() -> bool) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(status) = self.try_exit_status() {
                self.child = None;
                return Err(format!(
                    "{} exited during start ({status}):\n{}",
                    self.name,
                    self.log_tail()
                ));
            }
            if ready() {
                return Ok(());
            }
            if Instant::now() > deadline {
                let tail = self.log_tail();
                self.kill9();
                panic!(
                    "{} not ready after {START_TIMEOUT:?}; output:\n{tail}",
                    self.name
                );
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// Graceful stop: SIGTERM, wait up to [`STOP_TIMEOUT`], then SIGKILL.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        send_signal(child.id(), libc::SIGTERM);
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            if child.try_wait().ok().flatten().is_some() {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// Crash stop: SIGKILL at once, as a power cut would.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Sends `signal` to `pid`. Only used on children we spawned and have not reaped,
/// so the PID cannot have been recycled to an unrelated process.
pub fn send_signal(pid: u32, signal: libc::c_int) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// Arranges for the child to be SIGKILLed when the spawning thread dies (invariant 2).
pub fn die_with_parent(command: &mut Command) {
    // SAFETY: the closure runs between fork and exec and only calls prctl(2), which is
    // async-signal-safe and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// True if something accepts TCP connections on 127.0.0.1:`port`.
pub fn port_accepts(port: u16) -> bool {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
}

/// The last 64 KiB of a log file, lossily decoded.
pub fn log_tail(path: &Path) -> String {
    const TAIL_BYTES_MAX: usize = 64 * 1024;
    let mut bytes = Vec::new();
    if let Ok(mut file) = File::open(path) {
        let _ = file.read_to_end(&mut bytes);
    }
    let start = bytes.len().saturating_sub(TAIL_BYTES_MAX);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// True if a server's output says its port was taken (the free_port race).
pub fn is_port_taken(output: &str) -> bool {
    output.contains("Address already in use") || output.contains("AddrInUse")
}
