//! Owns the file steps of backups and restores: copies private to their owner from the start
//! (0600 files, 0700 folders, whatever the umask), the media folder without uploads still being
//! received, flushing to disk, a folder's size, and a folder filled beside its final name that
//! is removed unless it is put in place.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use super::BackupError;
use crate::db::PARTIAL_UPLOAD;
use crate::primitives::{private_dir, private_file};

/// Copies the media files (uploads still being received aside) into the new folder `to`.
pub(super) fn copy_media(from: &Path, to: &Path) -> Result<(), BackupError> {
    private_dir(to)
        .map_err(|e| BackupError::files(format!("cannot create {}", to.display()), e))?;
    let cannot_read = |e| BackupError::files(format!("cannot read {}", from.display()), e);
    let entries = match fs::read_dir(from) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(cannot_read(e)),
    };
    for entry in entries {
        let entry = entry.map_err(&cannot_read)?;
        let name = entry.file_name();
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if !is_file || name.to_string_lossy().starts_with(PARTIAL_UPLOAD) {
            continue;
        }
        copy_private(&entry.path(), &to.join(&name))?;
    }
    Ok(())
}

/// Copies the file `from` to the new file `to`, private to its owner from the start (not with
/// `from`'s mode, as `fs::copy` would), and flushes it to disk.
pub(super) fn copy_private(from: &Path, to: &Path) -> Result<(), BackupError> {
    let mut source = File::open(from)
        .map_err(|e| BackupError::files(format!("cannot read {}", from.display()), e))?;
    let mut target = private_file(to)
        .map_err(|e| BackupError::files(format!("cannot create {}", to.display()), e))?;
    std::io::copy(&mut source, &mut target)
        .and_then(|_| target.sync_all())
        .map_err(|e| BackupError::files(format!("cannot copy {}", from.display()), e))
}

/// Bytes of every file in `folder` and the folders in it.
pub(super) fn folder_bytes(folder: &Path) -> Result<u64, BackupError> {
    let failed = |path: &Path, e| BackupError::files(path.display().to_string(), e);
    let mut total = 0;
    for entry in fs::read_dir(folder).map_err(|e| failed(folder, e))? {
        let entry = entry.map_err(|e| failed(folder, e))?;
        let meta = entry.metadata().map_err(|e| failed(&entry.path(), e))?;
        total += if meta.is_dir() {
            folder_bytes(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// The folder `path` is in (`.` for a bare name), created (private) when missing.
pub(super) fn folder_of(path: &Path) -> Result<&Path, BackupError> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    private_dir(folder).map_err(|e| {
        BackupError::files(format!("cannot create the folder {}", folder.display()), e)
    })?;
    Ok(folder)
}

pub(super) fn sync_file(path: &Path) -> Result<(), BackupError> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| BackupError::files(format!("cannot flush {} to disk", path.display()), e))
}

/// `path` with `suffix` added to its name.
pub(super) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// A folder being filled beside its final name; removed unless it is put in place.
pub(super) struct Staging {
    pub(super) path: PathBuf,
}

impl Staging {
    pub(super) fn new(beside: &Path) -> Result<Staging, BackupError> {
        let name = beside
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "backup".into());
        let path = beside.with_file_name(format!(
            ".{name}.partial-{}",
            crate::primitives::random_hex(6)
        ));
        private_dir(&path)
            .map_err(|e| BackupError::files(format!("cannot create {}", path.display()), e))?;
        Ok(Staging { path })
    }

    pub(super) fn finish(self, to: &Path) -> Result<(), BackupError> {
        fs::rename(&self.path, to).map_err(|e| {
            BackupError::files(format!("cannot move the backup to {}", to.display()), e)
        })?;
        std::mem::forget(self);
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}
