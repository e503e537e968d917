import JSON
import Planning

/// Reads the `arguments` text of a tool call into an object reader, forgiving the ways
/// OpenAI-compatible servers differ and refusing everything else with a message the model
/// can act on.
///
/// Accepted: a JSON object as text (the API's form); an object the server sent as an object
/// (`ToolCall` already re-serialised it); a JSON string that itself holds the object (some
/// local models double-encode); empty text for a tool without arguments. Refused: text that
/// is not JSON, and any other JSON value.
enum ToolArguments {
    static func parse(_ text: String) throws(ToolFailure) -> JSONObjectReader {
        let trimmed = text.trimmingWhitespace()
        var value: JSONValue
        if trimmed.isEmpty {
            value = .object([:])
        } else {
            do {
                value = try JSONValue(parsing: trimmed)
            } catch {
                throw ToolFailure("the arguments are not valid JSON (\(error.message)); send one JSON object")
            }
        }
        if case .string(let inner) = value, let decoded = try? JSONValue(parsing: inner), decoded.objectValue != nil {
            value = decoded
        }
        guard value.objectValue != nil else {
            throw ToolFailure("the arguments must be a JSON object, got \(value.typeName)")
        }
        do { return try object(value) } catch { throw ToolFailure(error) }
    }

    /// A reader of one object of the arguments, in which a null member counts as absent:
    /// strict schemas make every field required, so "leave unchanged" arrives as null.
    /// (`JSONObjectReader` alone would report a null as a value of the wrong type.)
    static func object(_ value: JSONValue) throws(DataError) -> JSONObjectReader {
        guard case .object(let members) = value else { return try JSONObjectReader(value, path: "") }
        return try JSONObjectReader(.object(members.filter { $0.value != JSONValue.null }), path: "")
    }
}

/// Why one tool call or one item of it was refused; `message` goes back to the model.
struct ToolFailure: Error, Equatable {
    let message: String
    /// The nearest slot the rules would accept, for a placement refused for want of room.
    var nearest: TimeRange?
    /// What the offer holds for the rest of the call (docs/model.md §13): the nearest slot, or
    /// for a series every session at the time offered.
    var reserved: [TimeRange]

    init(_ message: String, nearest: TimeRange? = nil, reserved: [TimeRange]? = nil) {
        self.message = message
        self.nearest = nearest
        self.reserved = reserved ?? nearest.map { [$0] } ?? []
    }

    /// Any error of the rules the executor consults, in the words of its own description.
    init(_ error: any Error) {
        switch error {
        case let failure as ToolFailure: self = failure
        case let data as DataError:
            message = data.description
            nearest = nil
            reserved = []
        case let placement as PlacementError:
            message = placement.description
            nearest = nil
            reserved = []
        default:
            message = String(describing: error)
            nearest = nil
            reserved = []
        }
    }
}
