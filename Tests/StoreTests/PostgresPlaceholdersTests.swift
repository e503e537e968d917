import Testing

@testable import Store

@Suite struct PostgresPlaceholdersTests {
    @Test func questionMarksBecomeNumberedPlaceholders() {
        #expect(
            PostgresPlaceholders.numbered("UPDATE tasks SET title = ?, version = ? WHERE id = ?")
                == "UPDATE tasks SET title = $1, version = $2 WHERE id = $3")
    }

    @Test func aQuestionMarkInQuotesOrACommentStays() {
        #expect(
            PostgresPlaceholders.numbered("SELECT '?', \"a?\" -- why?\nFROM t WHERE x = ? AND y = 'it''s ?'")
                == "SELECT '?', \"a?\" -- why?\nFROM t WHERE x = $1 AND y = 'it''s ?'")
    }

    @Test func sqlWithoutPlaceholdersIsUnchanged() {
        #expect(PostgresPlaceholders.numbered("SELECT 1") == "SELECT 1")
    }
}
