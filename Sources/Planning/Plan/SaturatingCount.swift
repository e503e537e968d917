/// Counts that come from outside (a model server's token usage, its headers) are summed and
/// converted without ever trapping: Swift's `+` traps on overflow, and one server reporting
/// 6e18 tokens used to crash every nightly run before anything was committed (issue 13,
/// item 7). Such a count saturates at `Int.max` instead; it is a wrong number, not a crash,
/// and it is visible in the log.
extension Int {
    /// `a + b`, or `Int.max` / `Int.min` where the sum does not fit.
    package static func saturating(_ a: Int, plus b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }

    /// A non-negative count from a floating-point value: NaN and negatives are 0, values
    /// beyond `Int.max` are `Int.max`, fractions are truncated.
    package static func count(clamping value: Double) -> Int {
        guard value.isFinite ? value > 0 : value == .infinity else { return 0 }
        // 2^63 is exactly representable; every double below it converts without trapping.
        return value >= 9_223_372_036_854_775_808.0 ? .max : Int(value)
    }
}
