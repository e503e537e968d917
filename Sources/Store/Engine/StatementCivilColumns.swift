import CSQLite
import Foundation
import Planning

/// Typed reads of the date, time and enumeration columns replan writes itself, straight from the
/// engine's UTF-8 bytes: every loaded task row has four of them, and making a `String` of each first
/// was a noticeable share of a nightly run. The parsers are the types' own, so a column is
/// accepted exactly when the value's text would be.
extension SQLRow {
    /// A `YYYY-MM-DDTHH:MM` column, or nil when it does not hold one.
    func civilDateTime(_ column: Int32) -> CivilDateTime? {
        withColumnBytes(column) { CivilDateTime(utf8: $0) }
    }

    /// A `YYYY-MM-DD` column, or nil when it does not hold one.
    func civilDate(_ column: Int32) -> CivilDate? {
        withColumnBytes(column) { CivilDate(utf8: $0) }
    }

    /// A bookkeeping instant (`Timestamp.text`'s `YYYY-MM-DDTHH:MM:SSZ`), or nil.
    func timestamp(_ column: Int32) -> Date? {
        withColumnBytes(column) { Timestamp.date(utf8: $0) }
    }

    /// A task colour column, matched on its bytes without making a string of it first (every
    /// loaded task has one).
    func taskColor(_ column: Int32) -> TaskColor? {
        withColumnBytes(column) { b in
            let candidate: TaskColor? =
                switch b.first {
                case UInt8(ascii: "r"): .red
                case UInt8(ascii: "y"): .yellow
                case UInt8(ascii: "g"): .green
                case UInt8(ascii: "b"): .blue
                default: nil
                }
            return candidate.flatMap { $0.rawValue.utf8.elementsEqual(b) ? $0 : nil }
        }
    }

    /// A series frequency column (`daily`, `weekly`, `monthly`), matched on its bytes.
    func repeatFrequency(_ column: Int32) -> RepeatRule.Frequency? {
        withColumnBytes(column) { b in
            let candidate: RepeatRule.Frequency? =
                switch b.first {
                case UInt8(ascii: "d"): .daily
                case UInt8(ascii: "w"): .weekly
                case UInt8(ascii: "m"): .monthly
                default: nil
                }
            return candidate.flatMap { $0.rawValue.utf8.elementsEqual(b) ? $0 : nil }
        }
    }
}
