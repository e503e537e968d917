/// How many terminal columns text takes: East Asian wide and fullwidth characters (Chinese,
/// Japanese, Korean, fullwidth forms) and emoji take two, combining marks and zero-width
/// characters none, everything else one. Columns of `stats`, `task list` and help are
/// aligned with it; `String.padding(toLength:)` counts UTF-16 units instead, which misaligns
/// (and may cut) a category named 英文.
enum DisplayWidth {
    static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0 { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        case .control: return 0
        default: break
        }
        if v == 0x200B || (0x1160...0x11FF).contains(v) { return 0 } // zero-width space, Hangul medial jamo
        if scalar.properties.isEmojiPresentation { return 2 }
        return isWide(v) ? 2 : 1
    }

    /// The East Asian Wide (W) and Fullwidth (F) blocks of Unicode's EastAsianWidth.txt, by
    /// block rather than code point: close enough for text a student types.
    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, // Hangul Jamo initial consonants
            0x2E80...0x303E, // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
            0x3041...0x33FF, // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
            0x3400...0x4DBF, // CJK Extension A
            0x4E00...0x9FFF, // CJK Unified Ideographs
            0xA000...0xA4CF, // Yi
            0xA960...0xA97F, // Hangul Jamo Extended-A
            0xAC00...0xD7A3, // Hangul syllables
            0xF900...0xFAFF, // CJK compatibility ideographs
            0xFE10...0xFE19, // vertical forms
            0xFE30...0xFE6F, // CJK compatibility forms, small form variants
            0xFF00...0xFF60, // fullwidth forms
            0xFFE0...0xFFE6, // fullwidth signs
            0x1B000...0x1B2FF, // Kana supplement and extensions
            0x1F200...0x1F2FF, // enclosed ideographic supplement
            0x20000...0x3FFFD: // CJK Extensions B and beyond (planes 2 and 3)
            return true
        default:
            return false
        }
    }

    /// `text` followed by spaces up to `width` columns (never cut: a longer text overflows).
    static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - of(text)))
    }

    /// Spaces then `text`, right-aligned in `width` columns.
    static func leftPadded(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - of(text))) + text
    }
}
