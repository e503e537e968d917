import ReplanTestSupport
import Testing

@testable import Planning

/// docs/planning.md §1.6: one key per course, whatever part of it a title names.
@Suite struct ChainKeyTests {
    private func norm(_ s: String) -> String { ChainKey.normalizedTitle(s) }

    @Test func trimsFoldsCaseAndCollapsesWhiteSpace() {
        #expect(norm("  English   Reading \t") == "english reading")
    }

    @Test func foldsFullWidthLettersDigitsAndSpaces() {
        #expect(norm("ＥＮＧＬＩＳＨ　ｒｅａｄｉｎｇ") == "english reading")
        #expect(norm("Math　２") == "math")
    }

    @Test(arguments: [
        "Math [2/3]", "Math(2)", "Math (2)", "Math #2", "Math # 2", "Math Part 2", "math part2", "Math - Part 2",
        "Math 2", "Math: 2", "Math 2/3", "Math [2]", "Math (2/3)",
    ])
    func stripsOneTrailingPartMarker(_ title: String) {
        #expect(norm(title) == "math")
    }

    @Test(arguments: ["英文 第2課", "英文第二章", "英文 第 12 回", "英文第十課"])
    func stripsChineseOrdinalMarkers(_ title: String) {
        #expect(norm(title) == "英文")
    }

    @Test func stripsOnlyOneMarker() {
        #expect(norm("Math [1/2] 3") == "math [1/2]")
        #expect(norm("Math 2 (3)") == "math 2")
    }

    @Test func keepsCourseCodesGluedToLetters() {
        #expect(norm("MATH101") == "math101")
        #expect(norm("CS50") == "cs50")
    }

    @Test func aTitleThatIsOnlyAMarkerKeepsIt() {
        #expect(norm("2") == "2")
        #expect(norm("#3") == "#3")
        #expect(norm("第3課") == "第3課")
    }

    @Test func wordsThatEndInPartAreNotMarkers() {
        #expect(norm("Depart 2") == "depart")
        #expect(norm("Math (advanced)") == "math (advanced)")
    }

    @Test func partsOfOneCourseShareAKey() {
        #expect(
            ChainKey(title: "English reading [1/5]", category: "English")
                == ChainKey(title: "ｅｎｇｌｉｓｈ reading (2)", category: "English"))
    }

    @Test func differentCategoriesNeverShareAKey() {
        #expect(ChainKey(title: "Reading", category: "English") != ChainKey(title: "Reading", category: "History"))
    }

    @Test func sameSeriesSameKey() {
        let task = Fx.task(
            "vocab", "Vocab 1", "2025-01-01T20:00", "2025-01-01T20:30",
            repeat: RepeatRule(every: .daily))
        let plan = Fx.plan([task])
        let list = plan.occurrences(from: date("2025-01-01"), through: date("2025-01-05"))
        #expect(list.count == 5)
        #expect(Set(list.map(ChainKey.init)).count == 1)
    }

    /// docs/planning.md §1.6: the number a part marker carries.
    @Test func partNumbersOfEveryMarkerSpelling() {
        let cases: [(String, Int?)] = [
            ("Math [2/4]", 2), ("Math (3/4)", 3), ("Math (2)", 2), ("Math #12", 12), ("Math Part 2", 2),
            ("Math - part 3", 3), ("Math pt. 4", 4), ("數學 第2課", 2), ("數學 第二章", 2), ("數學 第十二回", 12),
            ("數學 第二十三課", 23), ("Math: 5", 5), ("ch.1", 1), ("Day 3", 3), ("MATH101", nil), ("CS50", nil),
            ("Math", nil), ("2", nil), ("ＭＡＴＨ　［２/４］", 2),
        ]
        for (title, part) in cases { #expect(ChainKey.partNumber(title) == part, "\(title)") }
    }
}
