import JSON
import Planning

/// One document of the original app's Firestore data: where it sits and its fields.
package struct FirestoreDocument: Sendable {
    /// The document's id (the last segment of its path).
    package var id: String
    /// Its Firestore path (`tasks/u1/userTasks/t1`), prefixed with the file it came from when
    /// the export is a directory of files (`u1.json:tasks/u1/userTasks/t1`): the report names
    /// records by this path.
    package var path: String
    package var fields: [String: JSONValue]

    package init(id: String, path: String, fields: [String: JSONValue]) {
        self.id = id
        self.path = path
        self.fields = fields
    }

    package subscript(_ field: String) -> JSONValue? {
        guard let v = fields[field], v != .null else { return nil }
        return v
    }
}

/// One task of the export with its `instances` subcollection.
package struct FirestoreTaskRecord: Sendable {
    package var document: FirestoreDocument
    package var instances: [FirestoreDocument]
}

/// Everything the export holds about one user of the original app.
package struct FirestoreUserRecords: Sendable {
    package var uid: String
    /// The file the user came from (a directory export), for messages.
    package var source: String?
    package var tasks: [FirestoreTaskRecord] = []
    package var studySettings: FirestoreDocument?
    package var settings: FirestoreDocument?
    package var statisticsRoot: FirestoreDocument?
    package var statistics: [FirestoreDocument] = []

    package init(uid: String, source: String?) {
        self.uid = uid
        self.source = source
    }
}

/// Reads the two shapes a Firestore export of the original app comes in:
///
/// - **Collection tree** (what the usual export tools write): an object whose
///   `__collections__` holds the root collections (`tasks`, `studySettings`, `settings`,
///   `userStatistics`), each an object from document id to document, and each document's
///   subcollections under its own `__collections__` (`userTasks`, `instances`,
///   `statistics`). Trees written without the `__collections__` markers (collections as plain
///   keys, subcollections inline in their parent document) are read the same way.
/// - **One document per user** (a per-user export): `{"uid": "…", "userTasks": {id: task},
///   "studySettings": {…}, "settings": {…}, "userStatistics": {…}}`, subcollections as above.
///
/// The structure must be right (an error names the JSON path and nothing is imported); the
/// fields of each document are judged later, one record at a time.
package enum FirestoreExport {
    static let rootCollections: Set<String> = ["tasks", "studySettings", "settings", "userStatistics"]

    /// The users of one export file. `source` is the file's name when the export is a
    /// directory of files (it prefixes every record's path).
    package static func users(in root: JSONValue, source: String?) throws(DataError) -> [FirestoreUserRecords] {
        guard case .object(let top) = root else {
            throw DataError(path: "", message: "expected an object (a Firestore export), got \(root.typeName)")
        }
        let prefix = source.map { "\($0):" } ?? ""
        if top["uid"] != nil { return [try perUser(top, prefix: prefix, source: source)] }

        let collections: [String: JSONValue]
        let base: String
        if let marked = top["__collections__"] {
            guard case .object(let c) = marked else {
                throw DataError(
                    path: "__collections__", message: "expected an object of collections, got \(marked.typeName)")
            }
            collections = c
            base = "__collections__"
        } else if !rootCollections.isDisjoint(with: top.keys) {
            collections = top
            base = ""
        } else {
            throw DataError(
                path: "",
                message:
                    "not a Firestore export of the original app: expected __collections__ (a collection tree), a per-user document with uid, or the collections \(rootCollections.sorted().joined(separator: ", "))"
            )
        }
        var users: [String: FirestoreUserRecords] = [:]
        func user(_ uid: String) -> FirestoreUserRecords {
            users[uid] ?? FirestoreUserRecords(uid: uid, source: source)
        }
        func jsonPath(_ parts: String...) -> String { ([base] + parts).filter { !$0.isEmpty }.joined(separator: ".") }

        for doc in try documents(collections["tasks"], jsonPath: jsonPath("tasks")) {
            let uid = doc.id
            var u = user(uid)
            u.tasks += try taskRecords(try documents(try subcollection(doc, "userTasks")), uid: uid, prefix: prefix)
            users[uid] = u
        }
        for (uid, doc, _) in try documents(collections["studySettings"], jsonPath: jsonPath("studySettings")) {
            users[uid] = user(uid)
            users[uid]!.studySettings = FirestoreDocument(
                id: uid, path: "\(prefix)studySettings/\(uid)", fields: fields(of: doc))
        }
        for (uid, doc, _) in try documents(collections["settings"], jsonPath: jsonPath("settings")) {
            users[uid] = user(uid)
            users[uid]!.settings = FirestoreDocument(id: uid, path: "\(prefix)settings/\(uid)", fields: fields(of: doc))
        }
        for doc in try documents(collections["userStatistics"], jsonPath: jsonPath("userStatistics")) {
            let uid = doc.id
            var u = user(uid)
            u.statisticsRoot = FirestoreDocument(
                id: uid, path: "\(prefix)userStatistics/\(uid)", fields: fields(of: doc.value))
            u.statistics = try documents(try subcollection(doc, "statistics")).map {
                FirestoreDocument(
                    id: $0.id, path: "\(prefix)userStatistics/\(uid)/statistics/\($0.id)", fields: fields(of: $0.value))
            }
            users[uid] = u
        }
        return users.keys.sorted().map { users[$0]! }
    }

    /// A user's task documents with their instances, named by their Firestore paths (both
    /// export shapes hold them the same way).
    private static func taskRecords(
        _ taskDocs: [(id: String, value: JSONValue, path: String)], uid: String,
        prefix: String
    ) throws(DataError) -> [FirestoreTaskRecord] {
        var records: [FirestoreTaskRecord] = []
        for taskDoc in taskDocs {
            let path = "\(prefix)tasks/\(uid)/userTasks/\(taskDoc.id)"
            let instances = try documents(try subcollection(taskDoc, "instances"))
                .map { FirestoreDocument(id: $0.id, path: "\(path)/instances/\($0.id)", fields: fields(of: $0.value)) }
            records.append(
                FirestoreTaskRecord(
                    document: FirestoreDocument(id: taskDoc.id, path: path, fields: fields(of: taskDoc.value)),
                    instances: instances))
        }
        return records
    }

    private static func perUser(_ top: [String: JSONValue], prefix: String, source: String?) throws(DataError)
        -> FirestoreUserRecords
    {
        let r = try JSONObjectReader(.object(top), path: "")
        try r.rejectUnknownKeys(["uid", "userTasks", "studySettings", "settings", "userStatistics"])
        let uid = try r.string("uid")
        var u = FirestoreUserRecords(uid: uid, source: source)
        u.tasks += try taskRecords(try documents(top["userTasks"], jsonPath: "userTasks"), uid: uid, prefix: prefix)
        if let s = top["studySettings"], s != .null {
            guard case .object = s else {
                throw DataError(path: "studySettings", message: "expected a document (object), got \(s.typeName)")
            }
            u.studySettings = FirestoreDocument(id: uid, path: "\(prefix)studySettings/\(uid)", fields: fields(of: s))
        }
        if let s = top["settings"], s != .null {
            guard case .object = s else {
                throw DataError(path: "settings", message: "expected a document (object), got \(s.typeName)")
            }
            u.settings = FirestoreDocument(id: uid, path: "\(prefix)settings/\(uid)", fields: fields(of: s))
        }
        if let s = top["userStatistics"], s != .null {
            guard case .object = s else {
                throw DataError(path: "userStatistics", message: "expected a document (object), got \(s.typeName)")
            }
            u.statisticsRoot = FirestoreDocument(id: uid, path: "\(prefix)userStatistics/\(uid)", fields: fields(of: s))
            u.statistics = try documents(try subcollection((uid, s, "userStatistics"), "statistics")).map {
                FirestoreDocument(
                    id: $0.id, path: "\(prefix)userStatistics/\(uid)/statistics/\($0.id)", fields: fields(of: $0.value))
            }
        }
        return u
    }

    /// A collection's documents by id (sorted, so the result never depends on hash order),
    /// each with its JSON path; an absent collection has none.
    private static func documents(_ collection: JSONValue?, jsonPath: String) throws(DataError) -> [(
        id: String, value: JSONValue, path: String
    )] {
        guard let collection, collection != .null else { return [] }
        guard case .object(let docs) = collection else {
            throw DataError(
                path: jsonPath,
                message: "expected a collection (an object of documents by id), got \(collection.typeName)")
        }
        var out: [(id: String, value: JSONValue, path: String)] = []
        out.reserveCapacity(docs.count)
        for id in docs.keys.sorted() {
            let value = docs[id]!
            let path = jsonPath.isEmpty ? id : "\(jsonPath).\(id)"
            guard case .object = value else {
                throw DataError(path: path, message: "expected a document (an object), got \(value.typeName)")
            }
            guard !id.isEmpty, !id.contains("/") else {
                throw DataError(path: path, message: "'\(id)' is not a Firestore document id")
            }
            out.append((id, value, path))
        }
        return out
    }

    /// A document's subcollection: under its `__collections__`, or inline under its name; with
    /// its JSON path.
    private static func subcollection(_ document: (id: String, value: JSONValue, path: String), _ name: String)
        throws(DataError) -> (JSONValue?, String)
    {
        if let marked = document.value["__collections__"], marked != .null {
            guard case .object(let c) = marked else {
                throw DataError(
                    path: "\(document.path).__collections__",
                    message: "expected an object of collections, got \(marked.typeName)")
            }
            if let sub = c[name] { return (sub, "\(document.path).__collections__.\(name)") }
        }
        return (document.value[name], "\(document.path).\(name)")
    }

    private static func documents(_ located: (JSONValue?, String)) throws(DataError) -> [(
        id: String, value: JSONValue, path: String
    )] {
        try documents(located.0, jsonPath: located.1)
    }

    /// A document's fields. Subcollections (`__collections__` or inline) stay in the
    /// dictionary: no field the importer reads has their names, and leaving them there shares
    /// the parsed tree's storage instead of copying every document of a large export.
    private static func fields(of document: JSONValue) -> [String: JSONValue] {
        guard case .object(let members) = document else { return [:] }
        return members
    }
}
