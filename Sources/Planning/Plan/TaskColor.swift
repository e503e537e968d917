/// The four task colours and what they mean to the student.
package enum TaskColor: String, CaseIterable, Sendable, Codable {
    /// urgent / important
    case red
    /// medium
    case yellow
    /// learning / growth
    case green
    /// routine
    case blue

    /// Accepts a colour name or one of the original app's RGBA strings (`0.7,0.16,0.13,0.4`).
    ///
    /// The original app stored colours as "r,g,b,a" fractions; only four were ever offered, but
    /// rounding drifted between app versions, so an RGBA string maps to the nearest of the
    /// four reference colours (alpha ignored) rather than needing an exact match.
    package init?(importing text: String) {
        if let named = TaskColor(rawValue: text.lowercased()) {
            self = named
            return
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingCharacters(in: " "))
        }
        guard parts.count == 4, parts.allSatisfy({ $0 != nil && (0...1).contains($0!) }) else { return nil }
        self = TaskColor.nearest(red: parts[0]!, green: parts[1]!, blue: parts[2]!)
    }

    /// The colour whose reference is nearest (squared RGB distance; alpha plays no part: the
    /// app drew the same four colours at different opacities).
    package static func nearest(red r: Double, green g: Double, blue b: Double) -> TaskColor {
        func distance(_ ref: (Double, Double, Double)) -> Double {
            (r - ref.0) * (r - ref.0) + (g - ref.1) * (g - ref.1) + (b - ref.2) * (b - ref.2)
        }
        return TaskColor.allCases.min { distance($0.referenceRGB) < distance($1.referenceRGB) }!
    }

    /// The original app's colour for this meaning (its Firestore import matches against it too).
    package var referenceRGB: (Double, Double, Double) {
        switch self {
        case .red: return (0.7, 0.16, 0.13)
        case .yellow: return (0.85, 0.65, 0.13)
        case .green: return (0.2, 0.6, 0.3)
        case .blue: return (0.2, 0.4, 0.75)
        }
    }
}
