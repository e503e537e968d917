import Foundation
import Planning
import Store

/// The goal of a student's instruction as the student or the operator sees and corrects it
/// (`settings show`, `settings set --goal`, docs/model.md §17). The goal is kept with what the
/// model last handled (`model_memory`); these calls change nothing else of it.
package struct InstructionGoals {
    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    /// What `settings show` says of the goal.
    package struct Shown: Sendable, Hashable {
        package var stated: StatedGoal?
        /// Whether it belongs to the instruction the student has now.
        package var current: Bool
    }

    package func goal(of userID: String) throws(UseCaseError) -> Shown {
        let db = database.connection
        return try storeCall { () throws(StoreError) -> Shown in
            let settings = try UserRepository(db).settings(for: userID)
            let stated = try ModelMemoryRepository(db).memory(userID: userID)?.goal
            return Shown(stated: stated, current: stated?.belongs(to: Self.digest(settings.instruction)) ?? false)
        }
    }

    /// Saves `settings` (validated by the caller) and then states or clears the goal, in one
    /// transaction: a goal that cannot be kept leaves the settings as they were.
    ///
    /// - Parameter goal: `.some(nil)` clears the goal; nil leaves it as it is.
    package func save(
        _ settings: UserSettings?, goal: Goal??, by source: StatedGoal.Source, of userID: String, now: Date
    ) throws(UseCaseError) {
        let db = database.connection
        if case .some(.some) = goal {
            var instruction = settings?.instruction
            if instruction == nil { instruction = try self.settings(of: userID).instruction }
            guard Self.digest(instruction ?? "") != nil else {
                throw .badInput("a goal belongs to an instruction, and \(userID) has none (give --instruction too)")
            }
        }
        try storeCall { () throws(StoreError) in
            try db.write { (db) throws(StoreError) in
                let users = UserRepository(db)
                if let settings { _ = try users.saveSettings(settings, for: userID) }
                guard let goal else { return }
                let user = try users.get(userID)
                let memories = ModelMemoryRepository(db)
                let today = user.zone.civil(now).date
                var memory =
                    try memories.memory(userID: userID)
                    ?? ModelMemory(
                        instructionDigest: nil, settingsDigest: nil, reviewedOn: nil, planFrom: today,
                        planThrough: today, planDigest: "")
                if let goal, let digest = Self.digest(user.settings.instruction) {
                    memory.goal = StatedGoal(goal: goal, setBy: source, instructionDigest: digest, setOn: today)
                } else {
                    memory.goal = nil
                }
                memory.goalUnmended = []
                try memories.store(userID: userID, memory)
            }
        }
    }

    func settings(of userID: String) throws(UseCaseError) -> UserSettings {
        let users = UserRepository(database.connection)
        return try storeCall { () throws(StoreError) in try users.settings(for: userID) }
    }

    static func digest(_ instruction: String) -> String? {
        let trimmed = instruction.trimmingWhitespace()
        return trimmed.isEmpty ? nil : ModelCallPolicy.instructionDigest(trimmed)
    }
}
