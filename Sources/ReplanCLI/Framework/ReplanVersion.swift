/// The version `replan --version` prints and the man page and `.deb` carry. Bumped by hand on a
/// release (the build cannot ask git: a source tarball has no history).
enum ReplanVersion {
    static let current = "0.17.0"
}
