import JSON
import Planning

/// What a Firestore import did differently from what the export literally says, and what it
/// could not take: every item names the record by its path in the export and says why, so a
/// student (or whoever migrates them) can check each one.
package struct FirestoreImportReport: Hashable, Sendable {
    /// Why a record was imported differently from the export.
    package enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A monthly series on day 29–31: the app skipped months without that day; replan
        /// holds the session on the last day of those months.
        case monthEnd = "month-end"
        /// An all-day task whose stored UTC instant names another date than the student's.
        case allDayDate = "all-day-date"
        /// A task the app silently dropped because a field it needed did not decode; replan
        /// imports it with a default for that field.
        case droppedByApp = "dropped-by-app"
        /// An empty or placeholder (`未分類`) category, replaced.
        case category
        /// A value replan cannot hold as given (out of range, too long, control characters),
        /// brought into range.
        case adjusted
        /// A setting the export's document does not hold under any name replan knows, given
        /// replan's default.
        case defaulted = "default"
    }

    package struct Correction: Hashable, Sendable {
        package var kind: Kind
        package var path: String
        package var message: String
    }

    /// A record (or a value inside one) that is not imported.
    package struct Omission: Hashable, Sendable {
        package var path: String
        package var message: String
    }

    /// A field of the app's documents that replan does not use, over every document that has
    /// it: nothing of the export is dropped without a word (issue 28, item 18).
    package struct UnusedField: Hashable, Sendable {
        /// Where the field stands, the document ids as `*` (`tasks/*/userTasks/*.createdAt`).
        package var field: String
        package var documents: Int
        /// The first document that has it.
        package var example: String
        package var message: String
    }

    package var corrections: [Correction] = []
    package var omissions: [Omission] = []
    package private(set) var notUsed: [UnusedField] = []
    private var notUsedIndex: [String: Int] = [:]

    package init() {}

    mutating func correct(_ kind: Kind, _ path: String, _ message: String) {
        corrections.append(Correction(kind: kind, path: path, message: message))
    }

    mutating func omit(_ path: String, _ message: String) {
        omissions.append(Omission(path: path, message: message))
    }

    mutating func unused(_ field: String, in path: String, _ message: String) {
        if let i = notUsedIndex[field] {
            notUsed[i].documents += 1
        } else {
            notUsedIndex[field] = notUsed.count
            notUsed.append(UnusedField(field: field, documents: 1, example: path, message: message))
        }
    }

    /// The report as JSON (`--json`), in the order the records were read.
    package var json: JSONValue {
        [
            "corrections": .array(
                corrections.map {
                    ["kind": .string($0.kind.rawValue), "path": .string($0.path), "message": .string($0.message)]
                }),
            "notImported": .array(omissions.map { ["path": .string($0.path), "message": .string($0.message)] }),
            "notUsed": .array(
                notUsed.map {
                    [
                        "field": .string($0.field), "documents": .int($0.documents), "example": .string($0.example),
                        "message": .string($0.message),
                    ]
                }),
        ]
    }

    /// The report as lines of text.
    package var lines: [String] {
        var out: [String] = []
        if !corrections.isEmpty {
            out.append("corrections (\(corrections.count)):")
            out += corrections.map { "  \($0.path): [\($0.kind.rawValue)] \($0.message)" }
        }
        if !omissions.isEmpty {
            out.append("not imported (\(omissions.count)):")
            out += omissions.map { "  \($0.path): \($0.message)" }
        }
        if !notUsed.isEmpty {
            out.append("fields not used (\(notUsed.count)):")
            out += notUsed.map {
                "  \($0.field): \($0.message) (\($0.documents) document\($0.documents == 1 ? "" : "s"), e.g. \($0.example))"
            }
        }
        return out
    }
}
