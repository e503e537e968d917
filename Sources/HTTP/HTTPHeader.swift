/// One request header field, kept as an ordered name/value pair because a request may
/// legitimately repeat a name and servers can care about order.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
