import Foundation
import JSON
import Nightly
import Planning

/// `replan import FILE`: a `replan/1` document, all or nothing.
struct ImportCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "import",
        abstract:
            "import a replan/1 JSON document, or the original app's Firestore export (all or nothing; - reads stdin)",
        discussion: """
            The whole input is validated first; an error names its JSON path and nothing is written.
            Users are created or updated (zone, language, settings); the input's tasks replace the
            stored tasks of the same id (with their occurrences and slides); other stored tasks stay.
            Each user's changes are one changeset of origin import (undo them with replan undo).
            Importing the same input twice changes nothing the second time.

            --from firestore reads the original app's Firestore export: a collection tree
            (__collections__) or a directory of per-user documents. The export holds no time zone:
            --time-zone gives every user one, --time-zone-map FILE ({"uid": "Asia/Taipei", ...})
            gives users their own. It prints every correction it made (with the record's path in
            the export and why) and every record it could not take; --check prints the same
            without writing anything.
            """)

    @Argument(
        name: "FILE", help: "the input (a replan/1 document; with --from firestore a file or directory; -: stdin)",
        completion: .file)
    var file: String
    @Flag(name: "--json", help: "print the result as JSON") var json: Bool
    @Option(name: "--from", help: "the input's format: replan (replan/1, the default) or firestore")
    var from: Source?
    @Option(
        name: "--time-zone", value: "TZ", help: "--from firestore: the IANA zone of every user the map does not name")
    var timeZone: String?
    @Option(
        name: "--time-zone-map", value: "FILE", help: "--from firestore: a JSON file {\"uid\": \"IANA zone\", ...}",
        completion: .file)
    var timeZoneMap: String?
    @Flag(name: "--check", help: "validate and print what would be imported; write nothing") var check: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let path = self.file
        let input: ImportInput
        switch self.from ?? .replan {
        case .replan:
            for (option, given) in [
                ("--time-zone", self.timeZone != nil), ("--time-zone-map", self.timeZoneMap != nil),
            ]
            where given {
                throw CLIError.usage(
                    "\(option) is only for --from firestore (a replan/1 document names every user's zone)")
            }
            input = try useCase { () throws(UseCaseError) in try ImportInput.replan(path, now: ctx.now) }
        case .firestore:
            let zone = try self.timeZone.map(CLIValues.zone)
            let zoneMap = self.timeZoneMap
            let zones = try useCase { () throws(UseCaseError) in try zoneMap.map(ImportInput.zoneMap) ?? [:] }
            if zone == nil && zoneMap == nil {
                throw CLIError.usage(
                    "--from firestore needs --time-zone TZ or --time-zone-map FILE: the export holds no time zone")
            }
            input = try useCase { () throws(UseCaseError) in
                try ImportInput.firestore(path, defaultZone: zone, zones: zones)
            }
        }
        let report = input.firestoreReport

        let check = self.check
        // A dry run touches no database at all (and never creates one).
        let results: [Importer.UserResult]
        if check {
            results = []
        } else {
            let db = try ctx.openDatabase()
            results = try useCase { () throws(UseCaseError) in
                try Importer(database: db, now: ctx.now).commit(input, source: path)
            }
        }
        let changesets = Dictionary(results.map { ($0.userID, $0.changesetID) }, uniquingKeysWith: { a, _ in a })
        let created = Set(results.filter(\.created).map(\.userID))
        let summaries = Importer.check(input)
        if self.json {
            var out: [String: JSONValue] = [
                "schema": "replan.import/1", "check": .bool(check),
                "users": .array(
                    summaries.map { c -> JSONValue in
                        let changeset: JSONValue =
                            (changesets[c.userID] ?? nil).map { .string($0.description) } ?? .null
                        return [
                            "user": .string(c.userID), "changesetId": changeset,
                            "created": .bool(created.contains(c.userID)),
                            "tasks": .int(c.tasks), "series": .int(c.series),
                            "completedOccurrences": .int(c.completedSessions),
                            "focusMinutes": .int(c.focusMinutes),
                        ]
                    }),
            ]
            if let report, case .object(let r) = report.json { out.merge(r) { a, _ in a } }
            ctx.console.out(JSONValue.object(out).prettyText)
        } else {
            for c in summaries {
                let what =
                    "\(c.tasks) tasks (\(c.series) series, \(c.completedSessions) completed sessions), \(c.focusMinutes) focus minutes"
                if check {
                    ctx.console.out("would import \(c.userID) (\(c.zoneIdentifier)): \(what)")
                } else if let cs = changesets[c.userID] ?? nil {
                    // `undo` takes back all of it, and removes a student this import added.
                    let new = created.contains(c.userID) ? ", a new student: `replan undo \(cs)` removes them" : ""
                    ctx.console.out(
                        report == nil
                            ? "imported \(c.userID) (changeset \(cs)\(new))"
                            : "imported \(c.userID) (changeset \(cs)\(new)): \(what)")
                } else {
                    ctx.console.out("imported \(c.userID): already up to date")
                }
            }
            for line in report?.lines ?? [] { ctx.console.out(line) }
        }
        return .success
    }

    /// `--from`: the input's format. `replan/1`, the document's own name for it, is `replan`.
    enum Source: String, ArgumentChoice {
        case replan, firestore
        static func choice(_ text: String) -> Source? {
            text == ImportInput.replanFormat ? .replan : Source(rawValue: text)
        }
        /// A usage error, as it always was.
        static func rejection(_ text: String, option: String) -> CLIError {
            .usage("\(option) '\(text)' is not replan or firestore")
        }
    }
}
