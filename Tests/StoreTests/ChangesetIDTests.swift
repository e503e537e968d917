import Foundation
import Planning
import Testing
@testable import Store

@Suite struct ChangesetIDTests {
    /// A generator that returns the given values in turn.
    struct Replay: RandomNumberGenerator {
        var values: [UInt64]
        mutating func next() -> UInt64 { values.removeFirst() }
    }

    @Test func anIDIsTheUTCStampAndSixCharactersOfTheAlphabet() {
        var random = Replay(values: [0, UInt64.max, 0b11111_00000_11110_00001_00010_00011])
        let at = Date(timeIntervalSince1970: 1_736_218_812) // 2025-01-07T03:00:12Z
        #expect(ChangesetID.generate(at: at, using: &random).rawValue == "cs-20250107-030012-000000")
        #expect(ChangesetID.generate(at: at, using: &random).rawValue == "cs-20250107-030012-zzzzzz")
        // Five bits per character, lowest first.
        #expect(ChangesetID.generate(at: at, using: &random).rawValue == "cs-20250107-030012-321y0z")
    }

    @Test func everyCharacterOfTheAlphabetIsDrawn() {
        var random = SystemRandomNumberGenerator()
        var seen = Set<Character>()
        for _ in 0..<400 { seen.formUnion(ChangesetID.generate(at: Date(), using: &random).rawValue.suffix(6)) }
        #expect(seen == Set(ChangesetID.alphabet))
    }
}
