import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

/// The student's texts (`texts/*.json`, compiled into `NoteTextsData.swift` by `scripts/texts`):
/// the compiled copy is the data files', every complete language has every text, and each
/// text fills in the same values as the English one.
@Suite struct NoteTextsTests {
    static func placeholders(_ text: String) -> Set<String> {
        var names = Set<String>()
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    @Test func theCompiledTextsAreTheDataFiles() throws {
        let directory = TestFiles.path("texts")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
        #expect(Set(files.map { String($0.dropLast(5)) }) == Set(NoteTexts.files.keys))
        for file in files {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            var trimmed = Substring(text)
            while trimmed.hasSuffix("\n") { trimmed = trimmed.dropLast() }
            #expect(
                NoteTexts.files[String(file.dropLast(5))] == String(trimmed),
                "texts/\(file) and Sources/Planning/Notes/NoteTextsData.swift differ: run scripts/texts")
        }
    }

    @Test(arguments: NoteTexts.complete)
    func aCompleteLanguageHasEveryText(_ language: String) throws {
        let table = try #require(NoteTexts.table(language), "no texts/\(language).json")
        let english = try #require(NoteTexts.table("en"))
        for key in NoteTexts.requiredKeys {
            let text = table[key] ?? ""
            #expect(!text.trimmingCharacters(in: .whitespaces).isEmpty, "\(language) has no text for \(key)")
            #expect(
                Self.placeholders(text) == Self.placeholders(english[key] ?? ""),
                "\(language) \(key) fills in other values than en")
        }
        let unknown = Set(table.keys).subtracting(NoteTexts.requiredKeys)
        #expect(unknown.isEmpty, "\(language) has texts nobody uses: \(unknown.sorted())")
    }

    @Test func everyReasonFlagAndSummaryFieldIsRequired() {
        let keys = Set(NoteTexts.requiredKeys)
        for r in PlanEdit.Reason.allCases { #expect(keys.contains("reason.\(r.rawValue)")) }
        for f in PlanFlag.Kind.allCases {
            #expect(keys.contains("flag.\(f.rawValue)") || keys.contains("flag.\(f.rawValue).one"))
        }
        for field in PlanSummary.fields { #expect(keys.contains("summary.\(field).other")) }
    }

    @Test func aLanguageWithoutTextsFallsBackToEnglishAndSaysSo() {
        let french = NoteTexts(language: "fr")
        #expect(french.language == "en")
        #expect(french.fellBack)
        #expect(french.date(date("2025-01-06")) == "Mon 6 Jan")
        for tag in ["zh-TW", "zh_TW", "zh-Hant", "zh-Hant-HK", "ZH-tw"] {
            let t = NoteTexts(language: tag)
            #expect(t.language == "zh-TW" && !t.fellBack, "\(tag)")
        }
        #expect(NoteTexts(language: "en-GB").language == "en")
        #expect(!NoteTexts(language: "en-GB").fellBack)
        #expect(NoteTexts(language: "zh-TW").date(date("2025-01-06")) == "1月6日週一")
    }
}
