import JSON

extension DataError {
    /// Text that is not JSON, as bad input data: the message names the line, and there is no
    /// path (the document never became values to have one).
    package init(_ error: JSONError) { self.init(path: "", message: error.message) }
}

extension JSONTextWriter {
    /// The date-time as the string its `description` is, without making that string first.
    package mutating func string(_ t: CivilDateTime) {
        if !rawBytes({ CanonicalText.appendQuotedDateTime(t, to: &$0) }) { string(t.description) }
    }
}
