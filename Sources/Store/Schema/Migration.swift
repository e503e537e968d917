/// One numbered step of the schema's history. Applied once, in its own IMMEDIATE transaction,
/// and recorded in `schema_migrations`; never edited after release (add a new one instead).
package struct Migration: Sendable {
    package let version: Int
    package let name: String
    let apply: @Sendable (Database) throws(StoreError) -> Void

    package init(version: Int, name: String, apply: @escaping @Sendable (Database) throws(StoreError) -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }

    /// A migration that runs an SQL script.
    package static func sql(version: Int, name: String, _ script: String) -> Migration {
        Migration(version: version, name: name) { (db) throws(StoreError) in try db.executeScript(script) }
    }
}
