//! Owns the serve lock: the advisory file lock (`<db>.lock`) a serving process holds on its
//! database for its whole life, so that a restore never runs under it. The kernel releases it
//! when the process ends, however it ends.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use super::files::{folder_of, sibling};
use super::BackupError;
use crate::primitives::private_file;

/// The lock a serving process holds on its database while it lives.
pub struct ServeLock {
    _file: File,
}

impl ServeLock {
    /// Takes the lock, or says who holds it.
    pub fn acquire(db_path: &Path) -> Result<ServeLock, BackupError> {
        let path = lock_path(db_path);
        folder_of(&path)?;
        let file = match private_file(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                File::options().write(true).open(&path)
            }
            created => created,
        }
        .map_err(|e| {
            BackupError::files(format!("cannot open the lock file {}", path.display()), e)
        })?;
        match file.try_lock() {
            Ok(()) => Ok(ServeLock { _file: file }),
            Err(fs::TryLockError::WouldBlock) => Err(BackupError::Serving {
                db: db_path.to_path_buf(),
                lock: path,
            }),
            Err(fs::TryLockError::Error(e)) => Err(BackupError::files(
                format!("cannot lock {}", path.display()),
                e,
            )),
        }
    }
}

/// Where the lock of the database at `db_path` is kept.
pub(super) fn lock_path(db_path: &Path) -> PathBuf {
    sibling(db_path, ".lock")
}
