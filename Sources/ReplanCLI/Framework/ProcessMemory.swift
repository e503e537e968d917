import Foundation

/// The process's own memory figures, reported by `run` so a deployment (and the tests) can
/// see that memory stays flat however many students a night has.
enum ProcessMemory {
    /// Peak resident set size in KiB.
    ///
    /// Linux's `getrusage` carries the parent's high-water mark across fork and exec, so a
    /// `replan` started by a large process would report the parent's peak; `VmHWM` in
    /// `/proc/self/status` belongs to this program's own address space. `getrusage` is the
    /// fallback where `/proc` is not mounted.
    static func peakResidentKiB() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        {
            return kib
        }
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss)
    }
}
