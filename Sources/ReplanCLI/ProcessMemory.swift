import Foundation

/// The process's own memory figures, reported by `run` so a deployment (and the tests) can
/// see that memory stays flat however many students a night has.
enum ProcessMemory {
    /// Peak resident set size in KiB (`getrusage`; Linux reports `ru_maxrss` in KiB).
    static func peakResidentKiB() -> Int {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss)
    }
}
