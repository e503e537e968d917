import Planning

/// The key of an override or slide row in a changeset, `TASKID@YYYY-MM-DD` (the original date
/// of an override, the from date of a slide).
///
/// Read straight from the key's bytes when it has the shape replan writes (one `@`, a
/// canonical date after it); anything else goes through `OccurrenceID(_:)`, so a key is
/// accepted exactly when `OccurrenceID` reads it with a date. Every edit of every changeset
/// has its key read (conflict check, write, statistics base), and building the pieces as
/// strings cost more than the row lookup the key is for.
struct ChildRowKey: Hashable {
    let taskID: String
    let date: CivilDate

    init?(_ key: String) {
        var text = key
        let canonical = text.withUTF8 { (b) -> (taskID: String, date: CivilDate)? in
            let at = b.count - 11
            guard at > 0, b[at] == UInt8(ascii: "@"),
                let date = CivilDate(utf8: UnsafeBufferPointer(rebasing: b[(at + 1)...])),
                !b[..<at].contains(UInt8(ascii: "@"))
            else { return nil }
            return (String(decoding: UnsafeBufferPointer(rebasing: b[..<at]), as: UTF8.self), date)
        }
        if let canonical {
            taskID = canonical.taskID
            date = canonical.date
            return
        }
        guard let id = OccurrenceID(key), let date = id.originalDate else { return nil }
        taskID = id.taskID
        self.date = date
    }
}
