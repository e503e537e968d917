// Stability of the night's rules over consecutive nights (docs/benchmark.md, "Planning rules
// version 3: stability"). Compiled by bench/planning-stability.sh, optimised, against the JSON,
// Planning and Exchange modules built from the sources.
//
// Reads one `replan/1` document a line (the bench population, exported student by student; a
// document the decoder refuses is counted and left out), then for every student runs
// five nights at the same instant of consecutive days, each followed by a simulated day in
// which about 70 % of that day's open sessions are completed and the rest missed, nothing else
// touched; the checker's G10 reading (`GuaranteeChecker.stability`) runs on every night after
// the first. Prints how many sessions moved on more than one night and how far a missed
// session lands.
import Exchange
import Foundation
import Planning

/// SplitMix64: the same student gets the same day every run.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let data = FileManager.default.contents(atPath: arguments[1]),
    let firstNight = ISO8601DateFormatter().date(from: arguments[2])
else {
    print("usage: planning-stability STUDENTS.jsonl FIRST-NIGHT-ISO [NIGHTS]")
    exit(64)
}
let nights = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
var entries: [ReplanDocument.Entry] = []
var refused: [String] = []
for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
    do { entries += try ReplanDocumentDecoder(now: firstNight).decode(Data(line)).entries } catch {
        refused.append("\(error)")
    }
}

var movedOnNights: [String: Int] = [:]
/// Moves of a session that was not overdue that night (pushed by another), by session.
var pushedMoves: [String: Int] = [:]
var movedStudents: [String: Set<String>] = [:]
var distances: [Int] = []
var moves = 0
var breaches: [String] = []
var perNight = [Int](repeating: 0, count: nights)
for entry in entries {
    var plan = UserPlan(user: entry.user, tasks: entry.tasks, overrides: entry.overrides, slides: entry.slides)
    var random = SplitMix(state: entry.user.id.utf8.reduce(1_469_598_103_934_665_603) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 })
    for night in 0..<nights {
        let now = firstNight.addingTimeInterval(Double(night) * 86_400)
        let result = Postponer(now: now).postpone(plan)
        #if !NO_STABILITY_CHECK  // rules older than version 3 have no G10 reading
            if night > 0 {
                for b in GuaranteeChecker.stability(dayBetween: plan, night: result.plan, edits: result.edits, now: now) {
                    breaches.append("\(entry.user.id) night \(night): \(b)")
                }
            }
        #endif
        for e in result.edits where e.op == .move {
            moves += 1
            perNight[night] += 1
            movedOnNights["\(entry.user.id)/\(e.id)", default: 0] += 1
            movedStudents[entry.user.id, default: []].insert(e.id.description)
            if let b = e.before, b.start >= result.now { pushedMoves["\(entry.user.id)/\(e.id)", default: 0] += 1 }
            if let b = e.before, let a = e.after, b.start.date < result.now.date {
                distances.append(b.start.date.days(until: a.start.date))
            }
        }
        var next = result.plan
        let today = result.now.date
        for o in next.occurrences(from: today, through: today)
        where o.state == .open && o.start.date == today && random.next() % 100 < 70 {
            next.complete(o.id)
        }
        plan = next
    }
}
let sorted = distances.sorted()
let repeated = movedOnNights.filter { $0.value > 1 }
let repeatedStudents = Set(repeated.keys.map { String($0.split(separator: "/")[0]) })
func percentile(_ p: Int) -> Int { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * p / 100)] }
print("students \(entries.count) (\(refused.count) refused by the decoder: \(refused.prefix(3))), nights \(nights), moves \(moves) (per night \(perNight))")
print("sessions moved at least once \(movedOnNights.count), on more than one night \(repeated.count) of \(repeatedStudents.count) students")
let repeatedPushed = repeated.keys.filter { pushedMoves[$0, default: 0] > 0 }
print(
    "of those, moved at least once when not overdue (pushed) \(repeatedPushed.count) of "
        + "\(Set(repeatedPushed.map { $0.split(separator: "/")[0] }).count) students; sessions moved on more than one night "
        + "without being missed in between (every move but the first pushed) \(repeated.keys.filter { pushedMoves[$0, default: 0] >= movedOnNights[$0]! - 1 }.count)")
print("nights per session moved more than once: \(Dictionary(grouping: repeated.values, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key })")
print("missed sessions moved \(sorted.count): median \(percentile(50)) days, p90 \(percentile(90)) days, max \(sorted.last ?? 0)")
print("G10 breaches (moved though neither overdue nor pushed): \(breaches.count)")
for b in breaches.prefix(10) { print("  \(b)") }
