import Foundation
import Planning
import Testing

@testable import Store

@Suite struct ChangesetIDTests {
    @Test func anIDIsTheUTCStampAndSixCharactersOfTheAlphabet() {
        let at = Date(timeIntervalSince1970: 1_736_218_812) // 2025-01-07T03:00:12Z
        #expect(ChangesetID.generate(at: at, suffix: 0).rawValue == "cs-20250107-030012-000000")
        #expect(ChangesetID.generate(at: at, suffix: (1 << 30) - 1).rawValue == "cs-20250107-030012-zzzzzz")
        // Five bits per character, most significant first.
        #expect(
            ChangesetID.generate(at: at, suffix: 0b00011_00010_00001_11110_00000_11111).rawValue
                == "cs-20250107-030012-321y0z")
    }

    /// One night's changesets all carry the run's time: their ids must still come in order, so
    /// the b-trees keyed by changeset id are appended to rather than written all over.
    @Test func idsOfOneProcessComeInOrderAndWrapAround() {
        let at = Date(timeIntervalSince1970: 1_736_218_812)
        let suffixes = ChangesetIDSuffixes(start: 1000)
        let ids = (0..<2000).map { _ in ChangesetID.generate(at: at, suffix: suffixes.take()) }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        let nearTheEnd = ChangesetIDSuffixes(start: ChangesetIDSuffixes.count - 1)
        #expect(nearTheEnd.take() == ChangesetIDSuffixes.count - 1)
        #expect(nearTheEnd.take() == 0)
    }

    @Test func everyCharacterOfTheAlphabetIsUsed() {
        var seen = Set<Character>()
        let suffixes = ChangesetIDSuffixes(start: UInt32.random(in: 0..<ChangesetIDSuffixes.count))
        for _ in 0..<400 {
            seen.formUnion(ChangesetID.generate(at: Date(), suffix: suffixes.take()).rawValue.suffix(1))
        }
        #expect(seen == Set(ChangesetID.alphabet))
    }
}
