//! Data directories created once per machine (an `initdb`, a `mariadb-install-db`) and copied
//! for each server, so that a throwaway server starts in well under a second.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::spec::RunAs;

/// The template directory `<temp>/<base>-template`, created by `create` into a staging
/// directory and renamed into place unless it already holds `marker`; another process racing
/// to do the same is harmless (the loser's copy is discarded). Panics, naming `what`, when
/// `create` fails.
pub(super) fn cached(
    what: &str,
    base: &str,
    marker: &str,
    create: impl FnOnce(&Path) -> Result<(), String>,
) -> PathBuf {
    let path = std::env::temp_dir().join(format!("{base}-template"));
    if path.join(marker).exists() {
        return path;
    }
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos();
    let staging =
        std::env::temp_dir().join(format!("{base}-staging-{}-{nanos}", std::process::id()));
    let result = create(&staging).and_then(|()| match std::fs::rename(&staging, &path) {
        Ok(()) => Ok(()),
        Err(_) if path.join(marker).exists() => Ok(()),
        Err(err) => Err(format!("cannot move {} into place: {err}", staging.display())),
    });
    let _ = std::fs::remove_dir_all(&staging);
    if let Err(err) = result {
        panic!("cannot create the {what} template: {err}");
    }
    path
}

/// Copies a directory tree, keeping permissions, and gives every copy to `owner`.
pub(super) fn copy_tree(from: &Path, to: &Path, owner: Option<RunAs>) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    std::fs::set_permissions(to, std::fs::metadata(from)?.permissions())?;
    if let Some(owner) = owner {
        owner.chown(to)?;
    }
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &target, owner)?;
            continue;
        }
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
        if let Some(owner) = owner {
            std::os::unix::fs::lchown(&target, Some(owner.uid.as_raw()), Some(owner.gid.as_raw()))?;
        }
    }
    Ok(())
}
