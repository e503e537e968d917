import Planning
import Testing

private let taipei = try! UserZone(identifier: "Asia/Taipei")

@Suite("User")
struct UserTests {
    @Test(
        "ids are 1–64 letters, digits or _ - . @",
        arguments: [
            "mei", "a", "Mei_Lin-2025", "mei.lin@example.edu", String(repeating: "x", count: 64), "0", "_-.@",
        ])
    func validIDs(_ id: String) throws {
        let user = try User(id: id, zone: taipei)
        #expect(user.id == id)
    }

    @Test(
        "anything else is not a user id",
        arguments: [
            "", String(repeating: "x", count: 65), "mei lin", "mei/lin", "美玲", "mei#1", "mei\n", "mé", "mei+tag",
        ])
    func invalidIDs(_ id: String) {
        #expect(throws: DataError(path: "id", message: "user id '\(id)' must be 1–64 letters, digits or _ - . @")) {
            try User(id: id, zone: taipei)
        }
    }

    @Test("language defaults to en")
    func defaultLanguage() throws {
        let user = try User(id: "mei", zone: taipei)
        #expect(user.language == "en")
        #expect(user.displayName == nil)
        #expect(user.settings == UserSettings())
        #expect(user.zone.identifier == "Asia/Taipei")
    }

    @Test("language tags", arguments: ["en", "zh-TW", "zh-Hant-TW", "en-US", "yue", "es-419", "de-CH-1996"])
    func languageTags(_ tag: String) throws {
        let user = try User(id: "mei", zone: taipei, language: tag)
        #expect(user.language == tag)
    }

    @Test(
        "not language tags",
        arguments: ["", "e", "english-language", "zh_TW", "zh-", "-TW", "12", "1e-US", "zh TW", "中文"])
    func notLanguageTags(_ tag: String) {
        #expect(throws: DataError(path: "language", message: "'\(tag)' is not a language tag such as 'en' or 'zh-TW'"))
        {
            try User(id: "mei", zone: taipei, language: tag)
        }
    }
}
