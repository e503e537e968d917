// The helpers that record test issues. ReplanTestSupport is a plain library target, so a
// plain `swift build` (the release build of scripts/package) compiles it too, and there the
// Testing module is not on the search path; these exist only where it is, in test builds.
#if canImport(Testing)
    import Foundation
    import Testing

    extension Sandbox {
        /// Runs a command that must succeed, and returns its stdout.
        @discardableResult
        package func ok(
            _ arguments: [String], environment extra: [String: String?] = [:],
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> String {
            let outcome = try await run(arguments, environment: extra)
            #expect(
                outcome.code == 0 && !outcome.signaled, "replan \(arguments.joined(separator: " ")): \(outcome)",
                sourceLocation: sourceLocation)
            return outcome.stdout
        }

        /// Adds a one-off task with `replan task add`, which must succeed.
        package func addTask(
            _ id: String, _ title: String, _ start: String, _ end: String, category: String, user: String = "mei",
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            try await ok(
                [
                    "task", "add", "--user", user, "--id", id, "--title", title, "--category", category, "--start",
                    start,
                    "--end", end,
                ], sourceLocation: sourceLocation)
        }

        /// Runs a command with `--json` output that must succeed, and parses it.
        package func json(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws
            -> [String:
            Any]
        {
            let outcome = try await run(arguments)
            guard outcome.code == 0, !outcome.signaled else {
                throw TestFailure("replan \(arguments.joined(separator: " ")): \(outcome)")
            }
            return try outcome.json()
        }
    }

    /// Compares two plan dumps and records one issue per differing table.
    package func expectSamePlan(
        _ a: [String: [String]], _ b: [String: [String]], _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(a.keys.sorted() == b.keys.sorted(), "\(what): different tables", sourceLocation: sourceLocation)
        for table in a.keys.sorted() where a[table] != b[table] {
            let left = Set(a[table] ?? [])
            let right = Set(b[table] ?? [])
            Issue.record(
                "\(what): table \(table) differs\n only before: \(left.subtracting(right).sorted().prefix(10))\n only after: \(right.subtracting(left).sorted().prefix(10))",
                sourceLocation: sourceLocation)
        }
    }
#endif
