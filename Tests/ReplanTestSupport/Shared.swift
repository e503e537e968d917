import Synchronization

/// A value a test shares with other threads (callbacks, fake reviewers, consoles): written
/// there, read here. The one lock of the tests' shared state, instead of a class with its own
/// lock per test file.
package final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    package init(_ value: Value) { storage = Mutex(value) }

    /// The value now.
    package var value: Value { storage.withLock { $0 } }

    /// Changes the value in place, with no other thread in between.
    package func update(_ change: (inout Value) -> Void) { storage.withLock { change(&$0) } }

    /// Replaces the value.
    package func set(_ newValue: Value) { update { $0 = newValue } }
}

extension Shared where Value: RangeReplaceableCollection {
    /// An empty list.
    package convenience init() { self.init(Value()) }

    package func append(_ element: Value.Element) { update { $0.append(element) } }

    /// Everything appended so far, in order.
    package var all: Value { value }
}

extension Shared where Value == Int {
    /// A count from zero.
    package convenience init() { self.init(0) }

    package func increment() { update { $0 += 1 } }

    package var count: Int { value }
}

extension Shared where Value == Bool {
    /// A flag, not yet set.
    package convenience init() { self.init(false) }

    package func set() { set(true) }

    package var isSet: Bool { value }
}

extension Shared {
    /// An optional value, not yet set.
    package convenience init<Wrapped>() where Value == Wrapped? { self.init(nil) }
}
