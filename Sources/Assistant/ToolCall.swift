import JSON

/// One function call the model asked for: which tool, with which arguments, under which id
/// (the `tool` message answering it must carry the same id).
///
/// `arguments` is the JSON text the model produced, unparsed: it may be invalid, and the
/// tool executor must be able to say so. Servers that send arguments as a JSON object
/// instead of a string (some local ones do) are accepted; the object is re-serialised
/// with sorted keys.
package struct ToolCall: Sendable, Equatable {
    package var id: String
    package var name: String
    package var arguments: String

    package init(id: String, name: String, arguments: String) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}

extension ToolCall: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, type, function
    }

    private enum FunctionKeys: String, CodingKey {
        case name, arguments
    }

    package init(from decoder: any Decoder) throws {
        let call = try decoder.container(keyedBy: CodingKeys.self)
        let function = try call.nestedContainer(keyedBy: FunctionKeys.self, forKey: .function)
        // A missing id is left empty; the response decoder gives it a positional one.
        id = try call.decodeIfPresent(String.self, forKey: .id) ?? ""
        name = try function.decode(String.self, forKey: .name)
        arguments = try Self.argumentsText(function.decodeIfPresent(JSONValue.self, forKey: .arguments))
    }

    /// Arguments as JSON text: a string is taken as is, an object or other value is
    /// serialised, and none at all (seen for tools without parameters) is `{}`.
    static func argumentsText(_ value: JSONValue?) throws -> String {
        switch value {
        case .string(let text)?:
            return text
        case nil, .null?:
            return "{}"
        case let structured?:
            return String(decoding: try JSONCoding.encode(structured), as: UTF8.self)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var call = encoder.container(keyedBy: CodingKeys.self)
        try call.encode(id, forKey: .id)
        try call.encode("function", forKey: .type)
        var function = call.nestedContainer(keyedBy: FunctionKeys.self, forKey: .function)
        try function.encode(name, forKey: .name)
        try function.encode(arguments, forKey: .arguments)
    }
}
