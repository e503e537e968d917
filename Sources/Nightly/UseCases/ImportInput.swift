import Exchange
import Foundation
import JSON
import Planning

/// What `import` reads, validated before anything is written: a replan/1 document, or the
/// original app's Firestore export (one file, or a directory of `.json` files) converted to
/// one, with the report of what the conversion corrected or left out. Every failure is bad
/// input naming the file and the JSON path.
package struct ImportInput: Sendable {
    /// The largest input accepted, from a file or standard input (256 MiB): a 100,000-student
    /// export is well below it, and an endless stream must not exhaust memory.
    package static let maxBytes = 256 << 20
    /// The `--from` name of replan's own format.
    package static let replanFormat = ReplanDocument.format

    package var document: ReplanDocument
    /// The Firestore conversion's corrections and omissions; nil for a replan/1 document.
    package var firestoreReport: FirestoreImportReport?

    /// Where a task stands in the input, for messages: its JSON path in a replan/1 document,
    /// its document path in a Firestore export.
    package func place(user u: Int, task t: Int) -> String {
        let e = document.entries[u]
        return firestoreReport != nil ? "tasks/\(e.user.id)/userTasks/\(e.tasks[t].id)" : "users[\(u)].tasks[\(t)]"
    }

    /// A replan/1 document from `path` (`-`: standard input).
    package static func replan(_ path: String, now: Date) throws(UseCaseError) -> ImportInput {
        let bytes = try readBounded(path)
        do {
            return ImportInput(document: try ReplanDocumentDecoder(now: now).decode(try JSONValue(parsing: bytes)))
        } catch {
            throw .badInput("\(path): \(error)")
        }
    }

    /// The Firestore export at `path` (a file, `-`, or a directory of `.json` files), every user
    /// in `zones[uid]` or else `defaultZone`.
    package static func firestore(_ path: String, defaultZone: UserZone?, zones: [String: UserZone])
        throws(UseCaseError) -> ImportInput
    {
        var importer = FirestoreImporter(defaultZone: defaultZone, zones: zones)
        var isDirectory: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".json") }
                    .sorted()
            } catch { throw .badInput("cannot read the directory \(path): \(error.localizedDescription)") }
            guard !names.isEmpty else { throw .badInput("\(path) holds no .json files") }
            // Files are converted one by one (a file's parsed tree is gone before the next is
            // read), but the converted students of all of them are written in one transaction,
            // so the size limit is on the whole directory.
            var total = 0
            var seen: [String: String] = [:]
            for name in names {
                let file = (path as NSString).appendingPathComponent(name)
                let bytes = try readBounded(file)
                total += bytes.count
                guard total <= maxBytes else {
                    throw .badInput(
                        "\(path) holds more than \(maxBytes >> 20) MiB of .json files, the most replan imports at once; import it in parts"
                    )
                }
                let users = try firestoreUsers(bytes, file: file, source: name)
                for u in users {
                    if let other = seen.updateValue(name, forKey: u.uid) {
                        throw .badInput("\(file): user \(u.uid) is also in \(other); each user must be in one file")
                    }
                }
                do { try importer.add(users) } catch { throw .badInput("\(file): \(error)") }
            }
            return ImportInput(importer.outcome)
        }
        let users = try firestoreUsers(try readBounded(path), file: path, source: nil)
        do { return ImportInput(try importer.convert(users)) } catch { throw .badInput("\(path): \(error)") }
    }

    /// `{"uid": "Asia/Taipei", …}`: every zone is checked, an unknown one is an error.
    package static func zoneMap(_ path: String) throws(UseCaseError) -> [String: UserZone] {
        let root: JSONValue
        do { root = try JSONValue(parsing: try readBounded(path)) } catch { throw .badInput("\(path): \(error)") }
        guard let object = root.objectValue else {
            throw .badInput("\(path): expected an object {\"uid\": \"IANA zone\", …}, got \(root.typeName)")
        }
        var zones: [String: UserZone] = [:]
        for uid in object.keys.sorted() {
            guard let name = object[uid]!.stringValue else {
                throw .badInput(
                    "\(path): \(uid): expected a zone name such as \"Asia/Taipei\", got \(object[uid]!.typeName)")
            }
            do { zones[uid] = try UserZone(identifier: name) } catch {
                throw .badInput("\(path): \(uid): \(error.message)")
            }
        }
        return zones
    }

    /// The bytes of `path` (`-`: standard input); more than `maxBytes` is bad input, read no
    /// further than one byte past the limit. An array, because the parser reads one: a `Data`
    /// would be copied into one, and a 200 MB export would sit in memory twice.
    package static func readBounded(_ path: String) throws(UseCaseError) -> [UInt8] {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let h = FileHandle(forReadingAtPath: path) else { throw .badInput("cannot read \(path)") }
            handle = h
        }
        var data: [UInt8] = []
        while data.count <= maxBytes {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw .badInput("cannot read \(path): \(error)")
            }
            guard let chunk, !chunk.isEmpty else { return data }
            data.append(contentsOf: chunk)
        }
        throw .badInput(
            "\(path == "-" ? "standard input" : path) is larger than \(maxBytes >> 20) MiB, the most replan imports at once; split the document by users"
        )
    }

    init(document: ReplanDocument, firestoreReport: FirestoreImportReport? = nil) {
        self.document = document
        self.firestoreReport = firestoreReport
    }

    init(_ outcome: FirestoreImporter.Outcome) {
        self.init(document: outcome.document, firestoreReport: outcome.report)
    }

    /// The users of one file. The bytes are consumed: they are gone before the conversion
    /// starts, so only the parsed tree stays in memory.
    private static func firestoreUsers(_ bytes: consuming [UInt8], file: String, source: String?)
        throws(UseCaseError) -> [FirestoreUserRecords]
    {
        let root: JSONValue
        do { root = try JSONValue(parsing: bytes) } catch { throw .badInput("\(file): \(error)") }
        do { return try FirestoreExport.users(in: root, source: source) } catch { throw .badInput("\(file): \(error)") }
    }
}
