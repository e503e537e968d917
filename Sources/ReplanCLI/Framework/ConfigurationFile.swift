import Foundation

/// The installation's configuration file, `/etc/replan/replan.conf` by default: one
/// `key = value` per line, `#` starts a comment line, blank lines are ignored. The service and
/// an operator's `sudo -u replan replan …` read the same file, so both see the same database
/// and model settings (the environment and flags still override it, in that order).
///
/// Only the syntax and the key names are checked when the file is read; values are checked
/// where they are used, exactly like the flag of the same name, with the file and line named.
struct ConfigurationFile: Sendable, Equatable {
    /// The installed location; `--config FILE` or `$REPLAN_CONFIG` name another.
    static let defaultPath = "/etc/replan/replan.conf"

    struct Entry: Sendable, Equatable {
        var value: String
        var line: Int
    }

    /// The file read, or nil when there is none (the default file does not exist).
    var path: String?
    /// Why no file was read, for `config show` ("/etc/replan/replan.conf does not exist").
    var absence: String?
    var entries: [String: Entry] = [:]

    static let none = ConfigurationFile(path: nil, absence: nil)

    /// Where the value of `key` came from, for messages: `/etc/replan/replan.conf:4`.
    func origin(of key: String) -> String? {
        guard let path, let entry = entries[key] else { return nil }
        return "\(path):\(entry.line)"
    }

    /// Finds and reads the configuration: `--config FILE`, else `$REPLAN_CONFIG`, else the
    /// default path when it exists. A file named explicitly must exist; the default file may
    /// be absent (a developer's machine), but when it exists and cannot be read the command
    /// stops: running on with another database is exactly the mistake this file prevents.
    static func load(flag: String?, environment: [String: String]) throws(CLIError) -> ConfigurationFile {
        if let flag { return try read(flag, source: "--config") }
        if let named = environment["REPLAN_CONFIG"], !named.isEmpty { return try read(named, source: "REPLAN_CONFIG") }
        guard FileManager.default.fileExists(atPath: defaultPath) else {
            return ConfigurationFile(path: nil, absence: "\(defaultPath) does not exist")
        }
        return try read(defaultPath, source: nil)
    }

    private static func read(_ path: String, source: String?) throws(CLIError) -> ConfigurationFile {
        // FileHandle rather than FileManager.contents(atPath:), which returns nil for
        // /dev/null (the tests' "no configuration").
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() ?? Data() else {
            let reason =
                FileManager.default.fileExists(atPath: path)
                ? "it is not readable by this user (run as the service user, e.g. sudo -u replan replan …)"
                : "it does not exist"
            throw CLIError(
                .usage, "cannot read the configuration file \(path)\(source.map { " (\($0))" } ?? ""): \(reason)")
        }
        if let refusal = untrusted(handle.fileDescriptor) {
            throw .badInput("refusing the configuration file \(path): \(refusal)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .badInput("the configuration file \(path) is not UTF-8 text")
        }
        do throws(ParseError) {
            return ConfigurationFile(path: path, absence: nil, entries: try parse(text))
        } catch {
            throw .badInput("\(path):\(error.line): \(error.message)")
        }
    }

    /// What to do with an API key found in this file.
    static let keyAdvice =
        "an API key does not belong in the configuration file (every user may read it): put the key alone in a file of mode 0600 (the service reads /etc/replan/openai-api-key) and name another file with api_key_file = PATH"

    /// Why a configuration file cannot be trusted, like ssh and sudo decide it: the file names
    /// the database and where the API key is sent, so one that another user may have written is
    /// refused. A regular file must be owned by root or by this user and not be writable by
    /// others; a device (`/dev/null`, the tests' "no configuration") holds nothing to trust.
    static func untrusted(_ fd: Int32) -> String? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let mode = String(info.st_mode & 0o7777, radix: 8)
        if info.st_mode & S_IWOTH != 0 {
            return "it is writable by every user (mode \(mode)); chmod o-w it, or name another file with --config"
        }
        if info.st_uid != 0 && info.st_uid != geteuid() {
            return
                "it belongs to another user (uid \(info.st_uid)), not to root or this user (uid \(geteuid())); chown it, or name another file with --config"
        }
        return nil
    }

    struct ParseError: Error, Equatable {
        var line: Int
        var message: String
    }

    /// The entries of a configuration text; unknown keys and repeated keys are errors (a typo
    /// must not silently leave a setting at its default).
    static func parse(_ text: String) throws(ParseError) -> [String: Entry] {
        var entries: [String: Entry] = [:]
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .enumerated()
        {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            // Nothing of a line is echoed unless it is plainly a key name: a pasted API key must
            // not reach the terminal or the journal through this message.
            guard let eq = line.firstIndex(of: "=") else {
                let what = SecretText.looksSecret(line) ? "looks like an API key; \(keyAdvice)" : "is not 'key = value'"
                throw ParseError(line: number, message: "this line \(what)")
            }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            // A value may be quoted to keep surrounding spaces or a '#'; nothing else is special.
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            if SecretText.looksSecret(value) {
                throw ParseError(line: number, message: "the value of this line looks like an API key; \(keyAdvice)")
            }
            guard let setting = SettingSpec.all.first(where: { $0.key == key }) else {
                let lower = key.lowercased()
                let plainName =
                    key.count <= 40 && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                if !plainName || SecretText.looksSecret(key) {
                    throw ParseError(line: number, message: "this line does not start with a known key; \(keyAdvice)")
                }
                if ["key", "token", "secret", "password"].contains(where: lower.contains), lower != "api_key_file" {
                    throw ParseError(line: number, message: "'\(key)' is not a setting: \(keyAdvice)")
                }
                let hint =
                    Suggestion.closest(to: key, among: SettingSpec.all.map(\.key)).map { " (did you mean '\($0)'?)" }
                    ?? ""
                throw ParseError(
                    line: number,
                    message:
                        "unknown key '\(key)'\(hint); known keys: \(SettingSpec.all.map(\.key).joined(separator: ", "))"
                )
            }
            if let earlier = entries[setting.key] {
                throw ParseError(line: number, message: "'\(key)' is already set on line \(earlier.line)")
            }
            entries[setting.key] = Entry(value: value, line: number)
        }
        return entries
    }
}
