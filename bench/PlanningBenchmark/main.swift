// Planning benchmark: CPU time of the night's local rules for one user with about 300
// occurrences in the planning range. Compiled by bench/planning.sh together with
// every file under Sources/Planning/ into one optimised module, so there is no `import Planning`.
import Foundation

/// CPU time of this process in nanoseconds (the machine is shared; wall time would measure
/// the neighbours too).
func cpuNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// A busy student on 2025-01-08 at 03:00 in Taipei: six daily series (two of them with a
/// missed run), weekday one-off sessions with missed runs and scattered missed sessions.
/// `heavy` (the default): most past sessions missed, four series chains — a catch-up night.
/// `typical`: about one past session in ten missed and one series with a missed evening.
let typical = CommandLine.arguments.dropFirst(2).first == "typical"

func makePlan() -> (UserPlan, Date) {
    let zone = try! UserZone(identifier: "Asia/Taipei")
    let today = CivilDate("2025-01-08")!
    var settings = UserSettings()
    settings.windows = try! WeeklyWindows(text: [.mon: ["08:00-12:00", "13:00-21:00"], .tue: ["08:00-12:00", "13:00-21:00"],
                                                 .wed: ["08:00-12:00", "13:00-21:00"], .thu: ["08:00-12:00", "13:00-21:00"],
                                                 .fri: ["08:00-12:00", "13:00-18:00"], .sat: ["10:00-16:00"]])
    let user = try! User(id: "bench", zone: zone, settings: settings)
    var tasks: [StudyTask] = []
    var overrides: [OccurrenceOverride] = []
    let courses = [("Vocab", "English", 7 * 60), ("Math drill", "Math", 8 * 60 + 30), ("Physics", "Physics", 14 * 60),
                   ("Reading", "English", 19 * 60), ("Piano", "Music", 20 * 60), ("Chemistry", "Chemistry", 16 * 60)]
    for (i, c) in courses.enumerated() {
        let first = today.adding(days: -12)
        let start = CivilDateTime(date: first, time: TimeOfDay(minutes: c.2))
        let id = "series\(i)"
        tasks.append(StudyTask(id: id, userID: "bench", title: c.0, category: c.1, start: start,
                               end: start.adding(minutes: 45), repeatRule: RepeatRule(every: .daily)))
        // History: everything before the last three days is done, except for two series
        // whose last two days were missed (they form chains).
        for back in 3...12 { overrides.append(OccurrenceOverride(taskID: id, originalDate: today.adding(days: -back), state: .completed)) }
        if i >= (typical ? 1 : 2) {
            for back in 1...2 { overrides.append(OccurrenceOverride(taskID: id, originalDate: today.adding(days: -back), state: .completed)) }
        }
    }
    var n = 0
    for day in -7...27 {
        let date = today.adding(days: day)
        guard date.weekday != .sun else { continue }
        for (slot, (title, category)) in [("Essay", "English"), ("Lab report", "Chemistry"), ("History notes", "History")].enumerated() {
            n += 1
            let start = CivilDateTime(date: date, time: TimeOfDay(minutes: (9 + slot * 2) * 60 + (n % 3) * 15))
            let missedAndOpen = day < 0 && (typical ? n % 10 == 0 : n % 4 != 0)
            tasks.append(StudyTask(id: "task\(n)", userID: "bench", title: "\(title) \(n)", category: category, start: start,
                                   end: start.adding(minutes: 60 + (n % 3) * 30), completed: day < 0 && !missedAndOpen))
        }
    }
    let now = zone.instant(CivilDateTime(date: today, time: TimeOfDay(minutes: 180)))
    return (UserPlan(user: user, tasks: tasks, overrides: overrides), now)
}

let (plan, now) = makePlan()
let range = PlanningRange(today: plan.zone.civil(now).date, settings: plan.settings)
let inRange = plan.occurrences(from: range.lookback, through: range.through).count
let runs = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200
let postponer = Postponer(now: now)

var sample = postponer.postpone(plan) // warm up, and show what a run does
var times: [UInt64] = []
for _ in 0..<runs {
    let t0 = cpuNanoseconds()
    sample = postponer.postpone(plan)
    times.append(cpuNanoseconds() - t0)
}

// What the nightly job does next with the result (PlanCommitter): the row changes and the
// occurrence-level edits of the changeset.
let commitNow = now
var rowChanges = 0, reported = 0
var diffTimes: [UInt64] = []
for _ in 0..<runs {
    let t0 = cpuNanoseconds()
    let changes = PlanDiff.changes(from: plan, to: sample.plan, now: commitNow) { entity, _ in entity.rawValue }
    let edits = OccurrenceDiff.edits(from: plan, to: sample.plan, changes: changes, through: range.through) { _ in .rescheduled }
    diffTimes.append(cpuNanoseconds() - t0)
    rowChanges = changes.count; reported = edits.count
}

// The student's morning note of that night (docs/planning.md §12), rendered in each complete
// language: what a student with notifications on adds to the night.
var noteTimes: [UInt64] = []
var noteLength = 0
for i in 0..<runs {
    let t0 = cpuNanoseconds()
    let night = MorningNote.Night(
        edits: sample.edits, flags: sample.flags, summary: sample.summary, planDate: plan.zone.civil(now).date, deleteAfterDays: 7,
        changesetID: "cs-20250108-030000-abcdef")
    let note = MorningNote.render(night, language: i % 2 == 0 ? "en" : "zh-TW")
    noteTimes.append(cpuNanoseconds() - t0)
    noteLength = max(noteLength, note?.body.count ?? 0)
}

func summary(_ samples: [UInt64]) -> String {
    let sorted = samples.sorted()
    return String(format: "median %.3f ms, p90 %.3f ms over %d runs",
                  Double(sorted[sorted.count / 2]) / 1e6, Double(sorted[sorted.count * 9 / 10]) / 1e6, sorted.count)
}
print("planning benchmark (\(typical ? "typical" : "heavy") night): \(plan.tasks.count) tasks, \(inRange) occurrences in range \(range.lookback)…\(range.through)")
print("one run: \(sample.edits.count) edits, dropped \(sample.summary.dropped), rescheduled \(sample.summary.rescheduled), chained \(sample.summary.chained), \(sample.flags.count) flags")
print("changeset diff (PlanDiff + OccurrenceDiff): \(rowChanges) row changes, \(reported) edits; CPU time \(summary(diffTimes))")
print("CPU time per plan: \(summary(times))")
print("morning note (en and zh-TW alternately, up to \(noteLength) characters): CPU time \(summary(noteTimes))")
