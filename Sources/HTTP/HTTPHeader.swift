/// One request header field, kept as an ordered name/value pair because a request may
/// legitimately repeat a name and servers can care about order.
package struct HTTPHeader: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
