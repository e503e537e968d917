import Exchange
import Foundation
import JSON
import Planning

/// `import --from firestore`: reads the export (one file, or a directory of `.json` files),
/// the zones, and converts it; every failure is bad input (exit 65) naming the file and the
/// JSON path, before anything is written.
enum FirestoreImportSource {
    static func load(_ path: String, zone: String?, zoneMap: String?) throws(CLIError) -> FirestoreImporter.Outcome {
        var defaultZone: UserZone?
        if let zone {
            do { defaultZone = try UserZone(identifier: zone) } catch {
                throw CLIError.badInput("--time-zone: \(error.message)")
            }
        }
        let zones = try zoneMap.map(readZoneMap) ?? [:]
        if defaultZone == nil && zoneMap == nil {
            throw CLIError.usage(
                "--from firestore needs --time-zone TZ or --time-zone-map FILE: the export holds no time zone")
        }

        var importer = FirestoreImporter(defaultZone: defaultZone, zones: zones)
        var isDirectory: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".json") }
                    .sorted()
            } catch { throw CLIError.badInput("cannot read the directory \(path): \(error.localizedDescription)") }
            guard !names.isEmpty else { throw CLIError.badInput("\(path) holds no .json files") }
            // Files are converted one by one (a file's parsed tree is gone before the next is
            // read), but the converted students of all of them are written in one transaction,
            // so the size limit is on the whole directory.
            var total = 0
            var seen: [String: String] = [:]
            for name in names {
                let file = (path as NSString).appendingPathComponent(name)
                let bytes = try ImportCommand.readBounded(file)
                total += bytes.count
                guard total <= ImportCommand.maxDocumentBytes else {
                    throw CLIError.badInput(
                        "\(path) holds more than \(ImportCommand.maxDocumentBytes >> 20) MiB of .json files, the most replan imports at once; import it in parts"
                    )
                }
                let users = try parse(bytes, file: file, source: name)
                for u in users {
                    if let other = seen.updateValue(name, forKey: u.uid) {
                        throw CLIError.badInput(
                            "\(file): user \(u.uid) is also in \(other); each user must be in one file")
                    }
                }
                do { try importer.add(users) } catch { throw CLIError.badInput("\(file): \(error)") }
            }
            return importer.outcome
        }
        let users = try parse(try ImportCommand.readBounded(path), file: path, source: nil)
        do { return try importer.convert(users) } catch { throw CLIError.badInput("\(path): \(error)") }
    }

    /// The users of one file. The bytes are consumed: they are gone before the conversion
    /// starts, so only the parsed tree stays in memory.
    private static func parse(_ bytes: consuming [UInt8], file: String, source: String?) throws(CLIError)
        -> [FirestoreUserRecords]
    {
        let root: JSONValue
        do { root = try JSONValue(parsing: bytes) } catch { throw CLIError.badInput("\(file): \(error)") }
        do { return try FirestoreExport.users(in: root, source: source) } catch {
            throw CLIError.badInput("\(file): \(error)")
        }
    }

    /// `{"uid": "Asia/Taipei", …}`: every zone is checked, an unknown one is an error.
    private static func readZoneMap(_ path: String) throws(CLIError) -> [String: UserZone] {
        let root: JSONValue
        do { root = try JSONValue(parsing: try ImportCommand.readBounded(path)) } catch {
            throw CLIError.badInput("\(path): \(error)")
        }
        guard let object = root.objectValue else {
            throw CLIError.badInput("\(path): expected an object {\"uid\": \"IANA zone\", …}, got \(root.typeName)")
        }
        var zones: [String: UserZone] = [:]
        for uid in object.keys.sorted() {
            guard let name = object[uid]!.stringValue else {
                throw CLIError.badInput(
                    "\(path): \(uid): expected a zone name such as \"Asia/Taipei\", got \(object[uid]!.typeName)")
            }
            do { zones[uid] = try UserZone(identifier: name) } catch {
                throw CLIError.badInput("\(path): \(uid): \(error.message)")
            }
        }
        return zones
    }
}
