//! Files on the server, as MariaDB's --secure-file-priv allows them: SELECT ... INTO
//! OUTFILE/DUMPFILE (`outfile`) writes them, LOAD DATA INFILE (`load_data`) and LOAD_FILE()
//! read them. The only file I/O of the sql crate.
//!
//! Invariants:
//! (1) Only with `--secure-file-priv DIR` (`EngineConfig::secure_file_priv`, canonical):
//!     without it every such statement is 1290 and LOAD_FILE() is NULL.
//! (2) A file is used only if it lies inside DIR once the `..` and symlinks of its
//!     directory are resolved, and, when read, once its own symlink is too; otherwise
//!     1290. A relative name is refused (1290): MariaDB resolves it against the data or
//!     database directory, which a separate DIR never contains.
//! (3) A written file is created new (O_CREAT|O_EXCL, which follows no symlink), mode 0644
//!     as MariaDB's: an existing name is 1086, and no file is overwritten.
//! (4) The FILE privilege is checked by the caller before the name, as MariaDB orders them
//!     (a user without it learns nothing about paths).

use crate::error::{Error, ErrorCode, Result};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

/// 1290: the name lies outside secure_file_priv, or there is none.
pub fn refused() -> Error {
    Error::new(
        ErrorCode::OptionPreventsStatement,
        "The MariaDB server is running with the --secure-file-priv option so it cannot \
         execute this statement",
    )
}

/// `name` with its directory resolved, if it lies inside `dir` (invariant (2)).
fn resolve(dir: Option<&Path>, name: &str) -> Result<PathBuf> {
    let dir = dir.ok_or_else(refused)?;
    let path = Path::new(name);
    if !path.is_absolute() {
        return Err(refused());
    }
    let (Some(parent), Some(Component::Normal(file))) =
        (path.parent(), path.components().next_back())
    else {
        return Err(refused());
    };
    let parent = std::fs::canonicalize(parent).map_err(|_| refused())?;
    let resolved = parent.join(file);
    if !resolved.starts_with(dir) {
        return Err(refused());
    }
    Ok(resolved)
}

/// `(Errcode: 2 "No such file or directory")`, as MariaDB words an OS error.
fn errcode(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text);
    format!("(Errcode: {} \"{text}\")", e.raw_os_error().unwrap_or(0))
}

/// Where a read may go: a regular file inside `dir` (its own symlink followed and checked).
fn readable(dir: Option<&Path>, name: &str) -> Result<PathBuf> {
    let resolved = resolve(dir, name)?;
    let target = match std::fs::canonicalize(&resolved) {
        Ok(target) => target,
        Err(e) => {
            return Err(Error::new(
                ErrorCode::CantGetStat,
                format!("Can't get stat of '{name}' {}", errcode(&e)),
            ))
        }
    };
    if !dir.is_some_and(|dir| target.starts_with(dir)) {
        return Err(refused());
    }
    if !target.is_file() {
        return Err(Error::new(
            ErrorCode::TextfileNotReadable,
            format!("The file '{name}' must be in the database directory or be readable by all"),
        ));
    }
    Ok(target)
}

/// LOAD DATA INFILE's file: its bytes, or 1290, 13 (missing) or 1085 (not a file).
pub fn read(dir: Option<&Path>, name: &str) -> Result<Vec<u8>> {
    let path = readable(dir, name)?;
    std::fs::read(&path).map_err(|e| {
        Error::new(
            ErrorCode::TextfileNotReadable,
            format!(
                "The file '{name}' must be in the database directory or be readable by all {}",
                errcode(&e)
            ),
        )
    })
}

/// LOAD_FILE(): the file's bytes, or None where MariaDB gives NULL (outside `dir`,
/// missing, unreadable, or longer than `max_bytes`, max_allowed_packet).
pub fn read_at_most(dir: Option<&Path>, name: &str, max_bytes: u64) -> Option<Vec<u8>> {
    let path = readable(dir, name).ok()?;
    let file = File::open(path).ok()?;
    if file.metadata().ok()?.len() > max_bytes {
        return None;
    }
    let mut bytes = Vec::new();
    // take(): the file may grow after the length was read.
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= max_bytes).then_some(bytes)
}

/// A new file for SELECT ... INTO OUTFILE/DUMPFILE (invariant (3)): 1290, 1086 or 1.
pub fn create(dir: Option<&Path>, name: &str) -> Result<File> {
    let path = resolve(dir, name)?;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(&path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Error::new(
                ErrorCode::FileExists,
                format!("File '{name}' already exists"),
            ),
            _ => Error::new(
                ErrorCode::CantCreateFile,
                format!("Can't create file '{name}' {}", errcode(&e)),
            ),
        })
}

/// Error 3 for a write that failed part way (a full disk).
pub fn write_failed(name: &str, e: &std::io::Error) -> Error {
    Error::new(
        ErrorCode::ErrorOnWrite,
        format!("Error writing file '{name}' {}", errcode(e)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_the_directory_are_refused() {
        let root = std::env::temp_dir().join(format!("manycore-sfp-{}", std::process::id()));
        let dir = root.join("files");
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(root.join("secret"), b"s").expect("secret");
        std::os::unix::fs::symlink(root.join("secret"), dir.join("link")).expect("symlink");
        let dir = std::fs::canonicalize(&dir).expect("canonical");
        let inside = |name: &str| format!("{}/{name}", dir.display());
        let code = |r: Result<Vec<u8>>| r.err().map(|e| e.code);
        let refused = Some(ErrorCode::OptionPreventsStatement);
        assert_eq!(
            code(read(None, &inside("x"))),
            refused,
            "no directory given"
        );
        assert_eq!(code(read(Some(&dir), "x")), refused, "relative");
        assert_eq!(code(read(Some(&dir), &inside("../secret"))), refused);
        assert_eq!(
            code(read(Some(&dir), &inside("link"))),
            refused,
            "symlink out"
        );
        assert_eq!(
            code(read(Some(&dir), &inside("missing"))),
            Some(ErrorCode::CantGetStat)
        );
        let file = create(Some(&dir), &inside("new")).map(|_| ());
        assert!(file.is_ok(), "{file:?}");
        let again = create(Some(&dir), &inside("new")).err().map(|e| e.code);
        assert_eq!(again, Some(ErrorCode::FileExists));
        let out = create(Some(&dir), &inside("../new")).err().map(|e| e.code);
        assert_eq!(out, refused);
        assert_eq!(
            read_at_most(Some(&dir), &inside("new"), 0),
            Some(Vec::new())
        );
        assert_eq!(read_at_most(Some(&dir), &inside("link"), 10), None);
        std::fs::remove_dir_all(&root).expect("cleanup");
    }
}
