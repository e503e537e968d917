import Foundation

/// Turns SIGINT and SIGTERM into a raised `Interruption` instead of killing the process, so a
/// run can roll back the user in progress and exit 130/143 with nothing half-written.
enum SignalTrap {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func install() -> Interruption {
        // A closed stdout or stderr (`replan run | head`) must not end a run half-way: without
        // this the first write after the reader went away killed the process (exit 141), and
        // libcurl with NOSIGNAL can raise SIGPIPE on a dropped connection too. Writes then
        // fail with EPIPE, which `Console` treats as "nobody is listening" (issue 13, item 8).
        signal(SIGPIPE, SIG_IGN)
        let interruption = Interruption()
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                if sig == SIGINT && interruption.isPaging { return }
                if interruption.isRaised || !interruption.isGraceful {
                    // A second signal means "now", and short commands stop at once: SQLite rolls
                    // back any transaction that was open, so nothing is half-written.
                    exit(sig == SIGTERM ? 143 : 130)
                }
                interruption.raise(sig)
            }
            source.resume()
            sources.append(source)
        }
        return interruption
    }
}
