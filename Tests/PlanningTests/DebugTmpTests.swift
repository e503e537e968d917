import Foundation
import Testing
@testable import Planning

@Suite struct DebugTmpTests {
    @Test func debugSeed() {
        guard let s = ProcessInfo.processInfo.environment["DEBUG_SEED"], let seed = UInt64(s) else { return }
        var generator = StudentGenerator(seed: seed)
        let (_, plan, now) = generator.makeStudent()
        let civil = Postponer(now: now).civilNow(in: plan.zone)
        var current = plan
        for p in 1...4 {
            var pass = PostponementPass(plan: current, now: civil, createdAt: now)
            pass.run()
            print("pass \(p)")
            for e in pass.edits { print("  edit \(e.op) \(e.id) \(e.reason) \(String(describing: e.before)) → \(String(describing: e.after))") }
            for f in pass.flags { print("  flag \(f.id) \(f.kind)") }
            current = pass.plan
            if pass.edits.isEmpty { break }
        }
    }
}
