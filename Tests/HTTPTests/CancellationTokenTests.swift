import Foundation
import HTTP
import ReplanTestSupport
import Testing

@Suite struct CancellationTokenTests {
    @Test func startsUncancelledAndStaysCancelled() {
        let token = CancellationToken()
        #expect(!token.isCancelled)
        token.cancel()
        token.cancel()
        #expect(token.isCancelled)
    }

    @Test func waitRunsItsCourseWhenNotCancelled() {
        let start = Date()
        #expect(CancellationToken().wait(seconds: 0.1) == false)
        #expect(Date().timeIntervalSince(start) >= 0.09)
    }

    @Test func waitReturnsEarlyOnCancellation() {
        let token = CancellationToken()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { token.cancel() }
        let start = Date()
        #expect(token.wait(seconds: 10) == true)
        // Early, not after the 10 s: the margin is for a loaded machine.
        #expect(Date().timeIntervalSince(start) < 9)
    }
}
