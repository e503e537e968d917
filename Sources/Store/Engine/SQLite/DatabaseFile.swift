#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The database file on disk, created by replan itself before SQLite sees it.
///
/// SQLite would create a missing file with the process umask (often world-readable), and the
/// database holds students' plans and model transcripts; so a missing file is created with
/// open(2) and mode 0600 (set again with fchmod, whatever the umask), and SQLite is then only
/// allowed to open it. SQLite gives the `-wal` and `-shm` files the database file's
/// permissions, so they follow. Two spellings used to escape this (issue 13, item 6): a
/// `file:NAME` path, which SQLite read as a URI and created as NAME with the umask, and a
/// dangling symlink, whose target SQLite created.
///
/// An existing file is only looked at by path (stat, chmod), never opened: closing any
/// descriptor of the database file drops every POSIX lock this process holds on it, including
/// the locks of SQLite connections already open (the nightly runner opens one per worker).
/// Without those locks another process closing its connection believes it is the last one,
/// checkpoints and deletes the -wal and -shm files under the running job, and the job's later
/// commits are lost (SQLite's "How To Corrupt", §2.2).
enum DatabaseFile {
    /// Creates the file when missing. - Returns: whether this call created it (an existing
    /// file is not changed here: it may turn out to be another application's).
    @discardableResult
    static func prepare(_ path: String) throws(StoreError) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw StoreError.cannotOpen(path: path, reason: "not a regular file")
            }
            return false
        }
        guard errno == ENOENT else { throw StoreError.cannotOpen(path: path, reason: lastSystemError()) }
        var link = stat()
        let dangling = lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK
        // O_EXCL: only a file this call creates is opened (and closed) here, and no connection
        // can hold locks on a file that did not exist. A dangling symlink is followed to
        // create its target (O_EXCL would refuse the link itself); its target did not exist
        // either, so the same holds.
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC | (dangling ? 0 : O_EXCL), 0o600)
        if fd >= 0 {
            let restricted = fchmod(fd, 0o600) == 0
            close(fd)
            if !restricted {
                throw StoreError.cannotOpen(
                    path: path, reason: "cannot restrict permissions to 0600: \(lastSystemError())")
            }
            return true
        }
        // Another process created it meanwhile: it is theirs to initialise or ours to check.
        if errno == EEXIST { return false }
        throw StoreError.cannotOpen(path: path, reason: lastSystemError())
    }

    /// Restricts an existing database (known to be replan's) and its sidecar files to 0600:
    /// an earlier, looser file would otherwise keep its mode.
    static func tighten(_ path: String) throws(StoreError) {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & 0o077 != 0, chmod(path, 0o600) != 0 {
            throw StoreError.cannotOpen(path: path, reason: "cannot restrict permissions to 0600: \(lastSystemError())")
        }
        for suffix in ["-wal", "-shm"] {
            var sidecar = stat()
            if stat(path + suffix, &sidecar) == 0, sidecar.st_mode & 0o077 != 0 { _ = chmod(path + suffix, 0o600) }
        }
    }

    /// The path as SQLite must be given it so that it names exactly this file: SQLite reads a
    /// name starting with `file:` as a URI (Debian's build enables URIs), so such a relative
    /// name is prefixed with `./`.
    static func literal(_ path: String) -> String {
        path.hasPrefix("file:") ? "./" + path : path
    }

    /// The permission bits of a file (tests and diagnostics).
    static func mode(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o777)
    }

    static func lastSystemError() -> String { String(cString: strerror(errno)) }
}
