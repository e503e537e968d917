/// Short ids derived from content (FNV-1a, base-32), stable across runs and machines.
package enum StableID {
    package static func make(prefix: String, parts: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in part.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            hash = (hash ^ 0x1F) &* 0x100_0000_01b3 // separator, so ["ab","c"] ≠ ["a","bc"]
        }
        return "\(prefix)-\(base32(hash, length: 10))"
    }

    /// Lower-case Crockford-style base 32 without ambiguous letters.
    package static func base32(_ value: UInt64, length: Int) -> String {
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var v = value
        var out = ""
        for _ in 0..<length {
            out.append(alphabet[Int(v & 31)])
            v >>= 5
        }
        return out
    }
}
