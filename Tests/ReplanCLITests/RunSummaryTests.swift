import Foundation
import ReplanTestSupport
import Testing

@testable import Nightly
@testable import ReplanCLI

/// The closing line of `replan run`: model errors counted and named, and a journald priority
/// that says how bad the night was.
@Suite struct RunSummaryTests {
    static func report(
        due: Int, changed: Int, failed: Int = 0, modelErrors: [String: Int] = [:],
        wanted: Int = 0, modelFailed: Int = 0
    ) -> NightlyRunner.Report {
        var r = NightlyRunner.Report()
        r.runID = 7
        r.due = due
        r.changed = changed
        r.unchanged = due - changed - failed
        r.failed = failed
        r.modelErrors = modelErrors
        r.modelWanted = wanted
        r.modelFailed = modelFailed
        r.startedAt = Date(timeIntervalSince1970: 0)
        r.finishedAt = Date(timeIntervalSince1970: 2.5)
        return r
    }

    @Test func aQuietNightIsANoticeWithZeroModelErrors() {
        let s = RunSummary(report: Self.report(due: 3, changed: 1), modelOff: nil, peakRSSKiB: 40 * 1024)
        #expect(
            s.text
                == "run 7: 3 due, 1 changed, 2 unchanged, 0 skipped, 0 failed, 0 model errors, model asked for 0, 0 tokens, est. $0.00, 2.5 s, peak RSS 40 MiB"
        )
        #expect(s.priority == .notice)
    }

    @Test func twoModelErrorsInAThousandAreAWarningWithTheCommonestNamed() {
        let s = RunSummary(
            report: Self.report(
                due: 1000, changed: 1000, modelErrors: ["HTTP 503": 1, "timeout": 1, "HTTP 401 invalid_api_key": 3],
                wanted: 40, modelFailed: 5),
            modelOff: nil, peakRSSKiB: 0)
        #expect(
            s.text.contains("0 failed, 5 model errors (HTTP 401 invalid_api_key: 3, HTTP 503: 1, 1 more kind(s))"),
            "\(s.text)")
        #expect(s.priority == .warning)
    }

    @Test func theModelUnavailableForEveryoneIsAnErrorNamingWhy() {
        let s = RunSummary(
            report: Self.report(
                due: 4, changed: 4, modelErrors: ["HTTP 401 invalid_api_key": 4], wanted: 4, modelFailed: 4),
            modelOff: nil, peakRSSKiB: 0)
        #expect(s.text.hasSuffix("; model unavailable for every student: HTTP 401 invalid_api_key"), "\(s.text)")
        #expect(s.priority == .error)
        #expect(
            RunSummary(report: Self.report(due: 2, changed: 0, failed: 2), modelOff: nil, peakRSSKiB: 0).priority
                == .error)
        #expect(
            RunSummary(report: Self.report(due: 2, changed: 0, failed: 1), modelOff: nil, peakRSSKiB: 0).priority
                == .warning)
    }
}
