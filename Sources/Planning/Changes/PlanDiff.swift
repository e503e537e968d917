import Foundation
import JSON

/// The row-level difference between the plan the nightly job (or a command) loaded and the
/// working copy it edited: what a changeset stores and applies.
///
/// Versions are not compared; the after-image gets the before-image's version + 1 (a new row
/// version 1) and `updatedAt = now`, so concurrent edits are detected by version at commit.
/// Order matters for foreign keys and is mirrored for undo: task inserts and updates first,
/// then override and slide rows, then task deletions (whose overrides and slides are removed
/// before them).
package enum PlanDiff {
    /// - Parameter reason: the reason recorded for a row, from the occurrence-level edits.
    package static func changes(
        from original: UserPlan, to working: UserPlan, now: Date,
        reason: (RowChange.Entity, String) -> String
    ) -> [RowChange] {
        var upserts: [RowChange] = []
        var children: [RowChange] = []
        var deletions: [RowChange] = []

        // Only the keys that differ are sorted (a night changes a handful of a plan's rows).
        for id in differingKeys(original.tasks, working.tasks, same: sameContent) {
            let old = original.tasks[id]
            let new = working.tasks[id]
            switch (old, new) {
            case (let o?, nil):
                deletions.append(
                    RowChange(entity: .task, key: id, before: RowImage.task(o), after: nil, reason: reason(.task, id)))
            case (let o, var n?):
                if let o, sameContent(o, n) { continue }
                n.version = (o?.version ?? 0) + 1
                n.updatedAt = now
                if o == nil { n.createdAt = now } else { n.createdAt = o!.createdAt }
                upserts.append(
                    RowChange(
                        entity: .task, key: id, before: o.map(RowImage.task), after: RowImage.task(n),
                        reason: reason(.task, id)))
            case (nil, nil): break
            }
        }

        for key in differingKeys(original.overrides, working.overrides, same: sameContent) {
            let old = original.overrides[key]
            let new = working.overrides[key]
            var after: JSONValue?
            if var n = new {
                n.version = (old?.version ?? 0) + 1
                after = RowImage.override(n)
            }
            let change = RowChange(
                entity: .override, key: key.description, before: old.map(RowImage.override), after: after,
                reason: reason(.override, key.description))
            if new == nil && working.tasks[key.taskID] == nil {
                deletions.insert(change, at: 0)
            } else {
                children.append(change)
            }
        }

        let slideKeys = { (plan: UserPlan) in
            Dictionary(plan.allSlides.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        }
        let oldSlides = slideKeys(original)
        let newSlides = slideKeys(working)
        for key in Set(oldSlides.keys).union(newSlides.keys).sorted() {
            let old = oldSlides[key]
            let new = newSlides[key]
            if let o = old, let n = new, o.days == n.days { continue }
            var after: JSONValue?
            if var n = new {
                n.version = (old?.version ?? 0) + 1
                after = RowImage.slide(n)
            }
            let change = RowChange(
                entity: .slide, key: key, before: old.map(RowImage.slide), after: after, reason: reason(.slide, key))
            if new == nil && working.tasks[old!.taskID] == nil {
                deletions.insert(change, at: 0)
            } else {
                children.append(change)
            }
        }
        // Children of deleted tasks go before the task row itself.
        let childDeletions = deletions.filter { $0.entity != .task }
        let taskDeletions = deletions.filter { $0.entity == .task }
        return upserts + children + childDeletions + taskDeletions
    }

    /// The keys present on one side only or whose values differ, sorted.
    private static func differingKeys<Key: Comparable, Value>(
        _ old: [Key: Value], _ new: [Key: Value],
        same: (Value, Value) -> Bool
    ) -> [Key] {
        var keys: [Key] = []
        for (key, o) in old {
            guard let n = new[key] else {
                keys.append(key)
                continue
            }
            if !same(o, n) { keys.append(key) }
        }
        for key in new.keys where old[key] == nil { keys.append(key) }
        return keys.sorted()
    }

    private static func sameContent(_ a: StudyTask, _ b: StudyTask) -> Bool {
        var b = b
        b.version = a.version
        b.updatedAt = a.updatedAt
        b.createdAt = a.createdAt
        return a == b
    }

    private static func sameContent(_ a: OccurrenceOverride, _ b: OccurrenceOverride) -> Bool {
        var b = b
        b.version = a.version
        return a == b
    }
}
