import ReplanTestSupport
import Testing

/// CI runs with `REPLAN_REQUIRE_POSTGRES=1`: there, a PostgreSQL test that would be skipped
/// for lack of a server is a failure, so a broken harness cannot pass as green.
@Suite struct PostgresRequirementTests {
    @Test func aRequiredServerIsThere() {
        #expect(
            !TemporaryPostgres.isRequired || TemporaryPostgres.isAvailable,
            "REPLAN_REQUIRE_POSTGRES=1 but REPLAN_TEST_POSTGRES_URL is not set: start the tests with scripts/test")
    }
}
