import JSON

/// A function the model may call, as offered in the request's `tools` list:
/// `{"type": "function", "function": {"name", "description", "parameters", "strict"}}`.
package struct ToolDefinition: Sendable, Equatable {
    package var name: String
    package var description: String
    /// The JSON Schema of the arguments object, sent as is.
    package var parameters: JSONValue
    /// Asks the server to make arguments match `parameters` exactly (Structured Outputs);
    /// the schema must then list every property as required and forbid additional ones.
    package var strict: Bool

    package init(name: String, description: String, parameters: JSONValue, strict: Bool = true) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.strict = strict
    }
}

extension ToolDefinition: Encodable {
    private enum CodingKeys: String, CodingKey {
        case type, function
    }

    private enum FunctionKeys: String, CodingKey {
        case name, description, parameters, strict
    }

    package func encode(to encoder: any Encoder) throws {
        var tool = encoder.container(keyedBy: CodingKeys.self)
        try tool.encode("function", forKey: .type)
        var function = tool.nestedContainer(keyedBy: FunctionKeys.self, forKey: .function)
        try function.encode(name, forKey: .name)
        try function.encode(description, forKey: .description)
        try function.encode(parameters, forKey: .parameters)
        try function.encode(strict, forKey: .strict)
    }
}
