//! The data directory and its lock file.
//!
//! Invariant: at most one server process uses a data directory. The lock is an exclusive
//! `flock` (std's `File::try_lock`) on `manycore.lock`, held for the life of the process
//! (the kernel releases it even after kill -9, so a crashed server never leaves a stale
//! lock behind).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

pub struct DataDir {
    pub path: PathBuf,
    /// Kept open: closing it would release the lock.
    _lock: File,
    pub freshly_created: bool,
}

impl DataDir {
    pub fn open(path: &Path) -> Result<DataDir, String> {
        let freshly_created = !path.join("manycore.lock").exists();
        std::fs::create_dir_all(path)
            .map_err(|e| format!("cannot create data directory {}: {e}", path.display()))?;
        let lock_path = path.join("manycore.lock");
        let mut lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
        if lock.try_lock().is_err() {
            return Err(format!(
                "data directory {} is in use by another manycore process (lock file {} is \
                 held); stop that server or choose another --data-dir",
                path.display(),
                lock_path.display()
            ));
        }
        lock.set_len(0)
            .map_err(|e| format!("cannot write {}: {e}", lock_path.display()))?;
        writeln!(lock, "{}", std::process::id())
            .map_err(|e| format!("cannot write {}: {e}", lock_path.display()))?;
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        Ok(DataDir {
            path,
            _lock: lock,
            freshly_created,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_open_of_the_same_directory_fails_with_a_clear_message() {
        let dir = std::env::temp_dir().join(format!("manycore-lock-test-{}", std::process::id()));
        let first = DataDir::open(&dir).expect("first open");
        let second = DataDir::open(&dir).err().expect("second open must fail");
        assert!(
            second.contains("in use by another manycore process"),
            "{second}"
        );
        drop(first);
        assert!(
            DataDir::open(&dir).is_ok(),
            "lock released when the holder closes it"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
