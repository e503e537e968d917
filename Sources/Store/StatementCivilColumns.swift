import CSQLite
import Foundation
import Planning

/// Typed reads of the date and time columns replan writes itself, straight from SQLite's
/// UTF-8 bytes: every loaded task row has four of them, and going through `String` and the
/// general parsers cost a tenth of a nightly run. Only the exact stored shapes take the fast
/// path (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH:MM:SSZ`); anything else goes to
/// the general parser, so a column is accepted exactly when the parser would accept it.
extension Statement {
    /// A `YYYY-MM-DDTHH:MM` column, or nil when it does not hold one.
    func civilDateTime(_ column: Int32) -> CivilDateTime? {
        withColumnBytes(column) { b in
            if b.count == 16, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"),
               let date = Statement.date(b), let h = Statement.number(b, 11, 2), let m = Statement.number(b, 14, 2),
               h < 24, m < 60 {
                return CivilDateTime(date: date, time: TimeOfDay(hour: h, minute: m))
            }
            return CivilDateTime(String(decoding: b, as: UTF8.self))
        }
    }

    /// A `YYYY-MM-DD` column, or nil when it does not hold one.
    func civilDate(_ column: Int32) -> CivilDate? {
        withColumnBytes(column) { b in
            if b.count == 10, let date = Statement.date(b) { return date }
            return CivilDate(String(decoding: b, as: UTF8.self))
        }
    }

    /// A bookkeeping instant (`Timestamp.text`'s `YYYY-MM-DDTHH:MM:SSZ`), or nil.
    func timestamp(_ column: Int32) -> Date? {
        withColumnBytes(column) { b in
            if b.count == 20, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
               b[19] == UInt8(ascii: "Z"), let date = Statement.date(b),
               let h = Statement.number(b, 11, 2), let m = Statement.number(b, 14, 2), let s = Statement.number(b, 17, 2),
               h < 24, m < 60, s < 60 {
                return Date(timeIntervalSince1970: Double(date.dayNumber * 86_400 + h * 3600 + m * 60 + s))
            }
            return Timestamp.date(String(decoding: b, as: UTF8.self))
        }
    }

    private func withColumnBytes<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return body(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// The `YYYY-MM-DD` at the start of `b`, validated like `CivilDate(year:month:day:)`.
    private static func date(_ b: UnsafeBufferPointer<UInt8>) -> CivilDate? {
        guard b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              let y = number(b, 0, 4), let m = number(b, 5, 2), let d = number(b, 8, 2) else { return nil }
        return CivilDate(year: y, month: m, day: d)
    }

    /// `width` decimal digits at `start`, or nil when any of them is not a digit.
    private static func number(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ width: Int) -> Int? {
        var value = 0
        for i in start..<(start + width) {
            let digit = b[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }
}
