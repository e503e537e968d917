import JSON

/// Reads one JSON object of an input document field by field, naming the JSON path of every
/// problem (`users[0].tasks[3].end`) and rejecting keys it was not asked about, so that a typo
/// never silently drops data.
package struct JSONObjectReader {
    package let path: String
    private let members: [String: JSONValue]

    package init(_ value: JSONValue, path: String) throws(DataError) {
        guard case .object(let members) = value else {
            throw DataError(path: path, message: "expected an object, got \(value.typeName)")
        }
        self.path = path
        self.members = members
    }

    package func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Fails on the first key (alphabetically) not in `known`.
    package func rejectUnknownKeys(_ known: Set<String>) throws(DataError) {
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw DataError(
                path: child(unknown),
                message: "unknown key (expected one of: \(known.sorted().joined(separator: ", ")))")
        }
    }

    package func has(_ key: String) -> Bool { value(key) != nil }

    /// The member, or nil when it is absent or null. (Spelled out: in `$0 == .null ? nil : $0`
    /// the `nil` is `JSONValue.null`, which is expressible by nil, so null came back.)
    package func value(_ key: String) -> JSONValue? {
        guard let v = members[key], v != .null else { return nil }
        return v
    }

    private func typed<T>(_ key: String, _ expected: String, _ extract: (JSONValue) -> T?) throws(DataError) -> T? {
        guard let v = value(key) else { return nil }
        guard let t = extract(v) else {
            throw DataError(path: child(key), message: "expected \(expected), got \(v.typeName)")
        }
        return t
    }

    private func required<T>(_ key: String, _ v: T?) throws(DataError) -> T {
        guard let v else { throw DataError(path: child(key), message: "is required") }
        return v
    }

    package func optionalString(_ key: String) throws(DataError) -> String? {
        try typed(key, "a string") { $0.stringValue }
    }
    package func string(_ key: String) throws(DataError) -> String { try required(key, optionalString(key)) }
    package func optionalBool(_ key: String) throws(DataError) -> Bool? {
        try typed(key, "true or false") { $0.boolValue }
    }
    package func optionalInt(_ key: String) throws(DataError) -> Int? {
        try typed(key, "a whole number") { $0.intValue }
    }
    package func int(_ key: String) throws(DataError) -> Int { try required(key, optionalInt(key)) }
    package func optionalArray(_ key: String) throws(DataError) -> [JSONValue]? {
        try typed(key, "an array") { $0.arrayValue }
    }
    package func optionalObject(_ key: String) throws(DataError) -> JSONObjectReader? {
        guard let v = value(key) else { return nil }
        return try JSONObjectReader(v, path: child(key))
    }

    package func optionalDate(_ key: String) throws(DataError) -> CivilDate? {
        guard let s = try optionalString(key) else { return nil }
        guard let d = CivilDate(s) else {
            throw DataError(path: child(key), message: "'\(s)' is not a date YYYY-MM-DD")
        }
        return d
    }

    package func date(_ key: String) throws(DataError) -> CivilDate { try required(key, optionalDate(key)) }

    /// A local date-time `YYYY-MM-DDTHH:MM[:SS]`, or an instant with an offset converted into
    /// `zone`; with `allowDate`, a plain date means its midnight (all-day tasks).
    package func dateTime(_ key: String, zone: UserZone, allowDate: Bool) throws(DataError) -> CivilDateTime {
        let s = try string(key)
        if let t = CivilDateTime(s) { return t }
        if allowDate, let d = CivilDate(s) { return CivilDateTime(date: d, time: TimeOfDay(minutes: 0)) }
        // Offsets are whole minutes, so an instant is on a minute exactly when its seconds are
        // zero: like a local time, it may not carry seconds the plan would silently drop.
        if let instant = Timestamp.date(s), instant.timeIntervalSince1970.truncatingRemainder(dividingBy: 60) == 0 {
            return zone.civil(instant)
        }
        throw DataError(
            path: child(key),
            message: "'\(s)' is not a local date-time YYYY-MM-DDTHH:MM\(allowDate ? " or a date YYYY-MM-DD" : "")")
    }
}
