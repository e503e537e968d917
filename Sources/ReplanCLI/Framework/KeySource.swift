import Foundation

/// Where the model API key comes from, in the order `run` looks: `--api-key-file`, the systemd
/// credential (`$CREDENTIALS_DIRECTORY/openai-api-key`), a non-empty `$OPENAI_API_KEY`, the
/// configuration file's `api_key_file`. `ReplanSettings` finds it here once for `run`, `preview`,
/// `config show` and `status`, so they cannot disagree on whether the model is on.
struct KeySource: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case file(path: String)
        case environment
    }

    var kind: Kind
    /// How messages name it: `--api-key-file`, `systemd credential`, `$OPENAI_API_KEY`,
    /// `/etc/replan/replan.conf:7: api_key_file`.
    var label: String

    /// The file the package's unit hands to the service as its credential (`LoadCredential=`).
    static let serviceCredential = "/etc/replan/openai-api-key"

    /// The first source that is set, or nil: no key, the model stage is skipped. `flag` is
    /// `--api-key-file`, `setting` the configuration file's `api_key_file` (resolved by
    /// `ReplanSettings`, which keeps the result).
    static func find(flag: String?, environment: [String: String], setting: ResolvedSetting?) -> KeySource? {
        if let path = flag { return KeySource(kind: .file(path: path), label: "--api-key-file") }
        if let dir = environment["CREDENTIALS_DIRECTORY"], !dir.isEmpty,
            FileManager.default.fileExists(atPath: dir + "/openai-api-key")
        {
            return KeySource(kind: .file(path: dir + "/openai-api-key"), label: "systemd credential")
        }
        // An empty variable counts as unset (as for every other setting), so the file's
        // api_key_file still applies.
        if let key = environment["OPENAI_API_KEY"], !key.trimmingWhitespace().isEmpty {
            return KeySource(kind: .environment, label: "$OPENAI_API_KEY")
        }
        if let file = setting { return KeySource(kind: .file(path: file.value), label: file.label) }
        return nil
    }

    /// What this source names, for `config show`: the file, never the key.
    var description: String {
        switch kind {
        case .file(let path): return label == "--api-key-file" ? "--api-key-file \(path)" : "\(path) (\(label))"
        case .environment: return label
        }
    }

    /// The key, or nil when the source is empty ("run without the model"). A key file holds the
    /// key on its first line: later lines are ignored with a warning; a UTF-8 byte-order mark
    /// (Windows editors) is dropped; anything else that is not printable ASCII is refused (it
    /// would be sent as part of the key); a file group or others may read gets a warning.
    /// Messages never contain the key.
    func read(context ctx: CommandContext) throws(CLIError) -> String? {
        switch kind {
        case .environment:
            return try Self.checked(ctx.environment["OPENAI_API_KEY"] ?? "", source: label)
        case .file(let path):
            let data = try Self.contents(path, label: label)
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & 0o044 != 0 {
                ctx.console.log(
                    "warning: the API key file \(path) is readable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it",
                    priority: .warning)
            }
            let parsed = try Self.key(from: data, path: path, label: label)
            if parsed.laterLines {
                ctx.console.log("warning: only the first line of the API key file \(path) is used", priority: .warning)
            }
            return parsed.key
        }
    }

    /// The key on the first line of a key file's bytes (nil: empty), and whether later lines
    /// hold anything.
    static func key(from data: Data, path: String, label: String) throws(CLIError) -> (key: String?, laterLines: Bool) {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError.usage(
                "the API key file \(path) (\(label)) is not UTF-8 text; write the key alone on its first line")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let later = lines.dropFirst().contains { !String($0).trimmingWhitespace().isEmpty }
        return (try checked(String(lines.first ?? ""), source: "the API key file \(path)"), later)
    }

    /// The file's bytes (at most 64 KiB: a key is far shorter), or an error with the system's
    /// reason (`Permission denied`).
    static func contents(_ path: String, label: String) throws(CLIError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CLIError.usage("cannot read the API key file \(path) (\(label)): \(reason)")
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < 65_536 {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                throw CLIError.usage("cannot read the API key file \(path) (\(label)): \(reason)")
            }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return data
    }

    /// nil for an empty key; a key with anything but printable ASCII (spaces, control
    /// characters, other scripts) is refused.
    static func checked(_ raw: String, source: String) throws(CLIError) -> String? {
        let key = raw.trimmingWhitespace()
        guard !key.isEmpty else { return nil }
        if key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw CLIError.usage("\(source) holds control characters; an API key is one line of printable text")
        }
        guard key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw CLIError.usage(
                "\(source) holds characters an API key does not have (spaces or non-ASCII); an API key is one line of printable ASCII"
            )
        }
        return key
    }
}
