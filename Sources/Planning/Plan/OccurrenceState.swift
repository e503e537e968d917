/// Where an occurrence stands: still to do, done, or deliberately not done.
package enum OccurrenceState: String, Sendable, Hashable, Codable, CaseIterable {
    case open, completed, skipped
}
