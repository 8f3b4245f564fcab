//! Socket addresses for files in the notification directory.
//!
//! A Unix socket address holds at most 107 bytes of path. When a database lives deep in the
//! filesystem, the socket files beside it are reached instead through `/proc/self/fd/N/`, where
//! `N` is an open handle on their directory (Linux), which keeps the address short.

use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// The longest path a Unix socket address holds (108 bytes with the terminating zero).
const MAX_SOCKET_PATH: usize = 107;

/// Addresses of the sockets in one directory.
pub(super) struct Addresses<'a> {
    dir: &'a Path,
    handle: Option<File>,
}

impl<'a> Addresses<'a> {
    pub(super) fn new(dir: &'a Path) -> Self {
        Addresses { dir, handle: None }
    }

    /// The address of the socket file `name` in the directory.
    pub(super) fn of(&mut self, name: &OsStr) -> std::io::Result<PathBuf> {
        let direct = self.dir.join(name);
        if direct.as_os_str().len() <= MAX_SOCKET_PATH {
            return Ok(direct);
        }
        let handle = match &self.handle {
            Some(handle) => handle,
            None => self.handle.insert(File::open(self.dir)?),
        };
        Ok(PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd())).join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_paths_are_used_directly_and_long_ones_through_a_handle() {
        let dir = std::env::temp_dir();
        let mut addresses = Addresses::new(&dir);
        assert_eq!(addresses.of(OsStr::new("a.sock")).unwrap(), dir.join("a.sock"));
        let long = "x".repeat(120);
        let address = addresses.of(OsStr::new(&long)).unwrap();
        assert!(address.starts_with("/proc/self/fd/"), "{}", address.display());
    }
}
