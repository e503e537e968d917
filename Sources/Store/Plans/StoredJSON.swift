import JSON
import Planning

/// JSON kept in TEXT columns (images, settings lists, reports). A column that does not parse
/// is reported as a malformed row naming the row, never its content.
enum StoredJSON {
    static func parse(_ text: String, entity: String, key: String) throws(StoreError) -> JSONValue {
        do throws(JSONError) {
            return try JSONValue(parsing: text)
        } catch {
            throw StoreError.malformedRow(entity: entity, key: key, problem: error.message)
        }
    }

    static func parse(_ text: String?, entity: String, key: String) throws(StoreError) -> JSONValue? {
        guard let text else { return nil }
        let value: JSONValue = try parse(text, entity: entity, key: key)
        return value
    }
}
