//! The file layer: every byte this crate reads or writes goes through `Disk`, so tests can
//! swap in `sim::SimDisk`, which loses, reorders and tears unsynced writes and injects
//! ENOSPC and fsync failures.
//!
//! A `Disk` is one directory of flat files named by `&str`.
//!
//! Contract (what callers may assume, and all they may assume, of a real file system):
//! (1) Bytes written are durable only after `sync(name)` returns Ok; before that a crash
//!     may keep any subset of them, in any order, each write possibly cut short.
//! (2) Creating, renaming and removing files is durable only after `sync_dir()`.
//! (3) A failed `sync` leaves the file in an unknown state; it must not be retried
//!     (the page cache may have dropped the dirty pages: the fsyncgate lesson).
//! (4) `write_at` may fail with ENOSPC after writing a prefix.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub trait Disk: Send + Sync + 'static {
    /// Names of the files in the directory, in no particular order.
    fn list(&self) -> io::Result<Vec<String>>;
    /// Creates an empty file, replacing any file of that name.
    fn create(&self, name: &str) -> io::Result<()>;
    fn len(&self, name: &str) -> io::Result<u64>;
    /// Reads up to `buf.len()` bytes at `offset`; returns how many (0 at the end).
    fn read_at(&self, name: &str, offset: u64, buf: &mut [u8]) -> io::Result<usize>;
    fn write_at(&self, name: &str, offset: u64, bytes: &[u8]) -> io::Result<()>;
    /// fdatasync: the file's data (and its length) are durable when this returns Ok.
    fn sync(&self, name: &str) -> io::Result<()>;
    fn truncate(&self, name: &str, len: u64) -> io::Result<()>;
    fn rename(&self, from: &str, to: &str) -> io::Result<()>;
    fn remove(&self, name: &str) -> io::Result<()>;
    /// Makes creations, renames and removals durable (fsync of the directory).
    fn sync_dir(&self) -> io::Result<()>;
}

/// Reads a whole file.
pub(crate) fn read_all(disk: &dyn Disk, name: &str) -> io::Result<Vec<u8>> {
    let len = disk.len(name)?;
    let len = usize::try_from(len).map_err(|_| io::Error::other("file too large"))?;
    let mut out = vec![0u8; len];
    let mut filled = 0;
    while filled < len {
        let n = disk.read_at(name, filled as u64, &mut out[filled..])?;
        if n == 0 {
            out.truncate(filled);
            break;
        }
        filled += n;
    }
    Ok(out)
}

/// The real file system. Keeps one open handle per file so the log writer's appends and
/// fdatasyncs do not reopen the file.
pub struct FsDisk {
    dir: PathBuf,
    handles: Mutex<HashMap<String, Arc<File>>>,
}

impl FsDisk {
    /// Uses (and creates, if missing) the directory `dir`.
    pub fn open(dir: impl AsRef<Path>) -> io::Result<Arc<FsDisk>> {
        std::fs::create_dir_all(dir.as_ref())?;
        Ok(Arc::new(FsDisk {
            dir: dir.as_ref().to_path_buf(),
            handles: Mutex::new(HashMap::new()),
        }))
    }

    fn path(&self, name: &str) -> PathBuf {
        assert!(
            !name.contains('/') && !name.is_empty() && name != "." && name != "..",
            "file name {name:?} is not a plain name"
        );
        self.dir.join(name)
    }

    fn handle(&self, name: &str) -> io::Result<Arc<File>> {
        if let Some(file) = self.handles.lock().get(name) {
            return Ok(file.clone());
        }
        let file = Arc::new(
            OpenOptions::new()
                .read(true)
                .write(true)
                .open(self.path(name))?,
        );
        self.handles.lock().insert(name.to_string(), file.clone());
        Ok(file)
    }
}

impl Disk for FsDisk {
    fn list(&self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                names.extend(entry.file_name().to_str().map(str::to_string));
            }
        }
        Ok(names)
    }

    fn create(&self, name: &str) -> io::Result<()> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(self.path(name))?;
        self.handles.lock().insert(name.to_string(), Arc::new(file));
        Ok(())
    }

    fn len(&self, name: &str) -> io::Result<u64> {
        Ok(std::fs::metadata(self.path(name))?.len())
    }

    fn read_at(&self, name: &str, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        self.handle(name)?.read_at(buf, offset)
    }

    fn write_at(&self, name: &str, offset: u64, bytes: &[u8]) -> io::Result<()> {
        self.handle(name)?.write_all_at(bytes, offset)
    }

    fn sync(&self, name: &str) -> io::Result<()> {
        self.handle(name)?.sync_data()
    }

    fn truncate(&self, name: &str, len: u64) -> io::Result<()> {
        self.handle(name)?.set_len(len)
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        std::fs::rename(self.path(from), self.path(to))?;
        let mut handles = self.handles.lock();
        handles.remove(to);
        if let Some(file) = handles.remove(from) {
            handles.insert(to.to_string(), file);
        }
        Ok(())
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        self.handles.lock().remove(name);
        std::fs::remove_file(self.path(name))
    }

    fn sync_dir(&self) -> io::Result<()> {
        File::open(&self.dir)?.sync_all()
    }
}

/// True if `e` means the device is full (retryable once space is freed).
pub(crate) fn is_disk_full(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::StorageFull || e.raw_os_error() == Some(28)
}
