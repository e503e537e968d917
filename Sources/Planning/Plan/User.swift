/// A student: id, IANA zone, language and optional display name (docs/data-format.md §2.1).
package struct User: Hashable, Sendable {
    package let id: String
    package var zone: UserZone
    package var language: String
    package var displayName: String?
    package var settings: UserSettings

    package init(
        id: String, zone: UserZone, language: String = "en", displayName: String? = nil,
        settings: UserSettings = UserSettings()
    ) throws(DataError) {
        try User.validateID(id)
        try User.validateLanguage(language)
        self.id = id
        self.zone = zone
        self.language = language
        self.displayName = displayName
        self.settings = settings
    }

    /// 1–64 characters of letters, digits and `_ - . @`.
    package static func validateID(_ id: String) throws(DataError) {
        let allowed = id.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                || "_-.@".unicodeScalars.contains($0)
        }
        guard (1...64).contains(id.count), allowed else {
            throw DataError(path: "id", message: "user id '\(id)' must be 1–64 letters, digits or _ - . @")
        }
    }

    /// A BCP-47-looking tag such as `en` or `zh-TW`: a 2–3 letter language, then up to three
    /// subtags of 1–8 letters or digits (`es-419`, `zh-Hant-TW`).
    package static func validateLanguage(_ tag: String) throws(DataError) {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        let ok =
            !parts.isEmpty && parts.count <= 4
            && parts.allSatisfy { p in
                (1...8).contains(p.count)
                    && p.unicodeScalars.allSatisfy {
                        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
                    }
            } && (2...3).contains(parts[0].count) && parts[0].unicodeScalars.allSatisfy(\.properties.isAlphabetic)
        guard ok else {
            throw DataError(path: "language", message: "'\(tag)' is not a language tag such as 'en' or 'zh-TW'")
        }
    }
}
