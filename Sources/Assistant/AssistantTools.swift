/// The four tools of assistant.md as JSON Schemas (`strict: true`, no additional properties),
/// ready to send: the schemas are `WireJSON`, so integers stay integers on the wire.
///
/// Strict function calling requires every property to be listed in `required`; optional
/// fields are therefore nullable (`["string", "null"]`) and a null means "leave unchanged".
public enum AssistantTools {
    public static let saveTask = "saveTask"
    public static let updateTask = "updateTask"
    public static let deleteTask = "deleteTask"
    public static let endConversation = "end_conversation"

    static let dateTimeDescription = "local date-time YYYY-MM-DDTHH:MM in the student's time zone (a date YYYY-MM-DD for all-day)"

    public static let all: [ToolDefinition] = [
        ToolDefinition(name: saveTask, description: "Create new one-off study sessions. Each item is checked on its own; the result lists the new ids.",
                       parameters: object(["tasks": array(of: object([
                           "title": ["type": "string", "description": "1-200 characters"],
                           "note": ["type": "string", "description": "may be empty"],
                           "category": ["type": "string", "description": "a specific category, never empty, 未分類 or Uncategorized"],
                           "color": ["type": "string", "enum": ["red", "yellow", "green", "blue"],
                                     "description": "red urgent/important, yellow medium, green learning/growth, blue routine"],
                           "start": ["type": "string", "description": .string(dateTimeDescription)],
                           "end": ["type": "string", "description": .string(dateTimeDescription + "; after start")],
                           "allDay": ["type": "boolean"],
                           "reason": reason,
                       ]))])),
        ToolDefinition(name: updateTask, description: "Edit sessions. taskId is an id from the plan: a one-off task id, or ID@YYYY-MM-DD to move one occurrence of a series. The title, note, category and color of a series belong to all its sessions: change them with the series id ID (without @date), which cannot be moved as a whole. Null fields stay unchanged.",
                       parameters: object(["tasks": array(of: object([
                           "taskId": ["type": "string"],
                           "title": nullable("string"), "note": nullable("string"), "category": nullable("string"),
                           "color": ["type": ["string", "null"], "enum": ["red", "yellow", "green", "blue", nil]],
                           "start": nullable("string"), "end": nullable("string"), "allDay": nullable("boolean"),
                           "reason": reason,
                       ]))])),
        ToolDefinition(name: deleteTask, description: "Delete one-off sessions or skip single occurrences of a series (ID@YYYY-MM-DD). A whole series cannot be deleted.",
                       parameters: object(["tasks": array(of: object(["taskId": ["type": "string"], "reason": reason]))])),
        ToolDefinition(name: endConversation, description: "Call when all changes are done, or at once when nothing needs doing.",
                       parameters: object([
                           "summary": ["type": ["string", "null"], "description": "one or two sentences for the student"],
                           "status": ["type": ["string", "null"], "enum": ["done", "nothing-needed", "needs-student", nil],
                                      "description": "done: the changes are made; nothing-needed: the plan was fine; needs-student: something only the student can decide"],
                           "question": ["type": ["string", "null"], "description": "what the student must decide, when status is needs-student"],
                       ])),
    ]

    /// The per-item reason of the edit tools, stored with the edit in the changeset.
    static let reason: WireJSON = ["type": "string", "description": "why you make this edit, a few words for the student"]

    static func object(_ properties: [String: WireJSON]) -> WireJSON {
        ["type": "object", "properties": .object(properties), "required": .array(properties.keys.sorted().map { .string($0) }),
         "additionalProperties": false]
    }

    static func array(of item: WireJSON) -> WireJSON { ["type": "array", "items": item] }
    static func nullable(_ type: String) -> WireJSON { ["type": [.string(type), "null"]] }
}
