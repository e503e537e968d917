import Foundation

/// Reading `--json` output parsed by JSONSerialization (`Outcome.json()`).
extension Dictionary where Key == String, Value == Any {
    package func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    package func array(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
    package func string(_ key: String) -> String? { self[key] as? String }
    package func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
    package func bool(_ key: String) -> Bool? { (self[key] as? NSNumber)?.boolValue }
    package func isNull(_ key: String) -> Bool { self[key] is NSNull }
}
