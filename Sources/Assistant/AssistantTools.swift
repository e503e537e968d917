import JSON

/// The five tools of docs/model.md §12 as JSON Schemas (`strict: true`, no additional properties),
/// ready to send: the schemas are `JSONValue`s, which go out with whole numbers as integers.
///
/// Strict function calling requires every property to be listed in `required`; optional
/// fields are therefore nullable (`["string", "null"]`) and a null means "leave unchanged".
package enum AssistantTools {
    package static let saveTask = "saveTask"
    package static let updateTask = "updateTask"
    package static let deleteTask = "deleteTask"
    package static let endConversation = "end_conversation"
    package static let setGoal = "set_goal"

    static let dateTimeDescription = "YYYY-MM-DDTHH:MM local (YYYY-MM-DD if all-day)"

    package static let all: [ToolDefinition] = [
        ToolDefinition(
            name: saveTask,
            description:
                "Create sessions: one-off, or a series (repeat). Each item is checked on its own; the result lists the new ids.",
            parameters: object([
                "tasks": array(
                    of: object([
                        "title": ["type": "string"],
                        "note": ["type": "string"],
                        "category": ["type": "string"],
                        "color": [
                            "type": "string", "enum": ["red", "yellow", "green", "blue"],
                            "description": "red urgent, yellow medium, green learning, blue routine",
                        ],
                        "start": ["type": "string", "description": .string(dateTimeDescription)],
                        "end": ["type": "string"],
                        "allDay": ["type": "boolean"],
                        "repeat": repeatRule,
                        "reason": reason,
                    ]))
            ])),
        ToolDefinition(
            name: updateTask,
            description:
                "Edit or move sessions by id (SERIES@DATE: one session of a series; SERIES: title, note, category, color of all its sessions). Null: unchanged.",
            parameters: object([
                "tasks": array(
                    of: object([
                        "taskId": ["type": "string"],
                        "title": nullable("string"), "note": nullable("string"), "category": nullable("string"),
                        "color": ["type": ["string", "null"], "enum": ["red", "yellow", "green", "blue", nil]],
                        "start": nullable("string"), "end": nullable("string"), "allDay": nullable("boolean"),
                        "reason": reason,
                    ]))
            ])),
        ToolDefinition(
            name: deleteTask,
            description: "Delete one-off sessions, or skip single sessions of a series (SERIES@DATE).",
            parameters: object(["tasks": array(of: object(["taskId": ["type": "string"], "reason": reason]))])),
        ToolDefinition(
            name: endConversation, description: "Call when all changes are done, or at once when nothing needs doing.",
            parameters: object([
                "summary": ["type": ["string", "null"], "description": "one or two sentences for the student"],
                "status": ["type": ["string", "null"], "enum": ["done", "nothing-needed", "needs-student", nil]],
                "question": ["type": ["string", "null"], "description": "what the student must decide, if anything"],
            ])),
        ToolDefinition(
            name: setGoal,
            description:
                "State the goal the instruction commits the plan to, in the terms of the system message, or 'not-checkable: why'.",
            parameters: object([
                "goal": ["type": "string"],
                "reviewAgainOn": [
                    "type": ["string", "null"], "description": "YYYY-MM-DD to look again, or null",
                ],
            ])),
    ]

    /// `saveTask`'s nullable `repeat` (docs/model.md §12): null creates a one-off session. A
    /// nested nullable object is written as `anyOf` with null, the form strict mode documents.
    static let repeatRule: JSONValue = [
        "anyOf": [
            object([
                "every": ["type": "string", "enum": ["daily", "weekly", "monthly"]],
                "until": ["type": ["string", "null"], "description": "last date YYYY-MM-DD; null: no end"],
                "missed": ["type": ["string", "null"], "enum": ["shift", "skip", "make-up", nil]],
            ]),
            ["type": "null"],
        ]
    ]

    /// The per-item reason of the edit tools, stored with the edit in the changeset.
    static let reason: JSONValue = ["type": "string", "description": "why, in a few words for the student"]

    static func object(_ properties: [String: JSONValue]) -> JSONValue {
        [
            "type": "object", "properties": .object(properties),
            "required": .array(properties.keys.sorted().map { .string($0) }),
            "additionalProperties": false,
        ]
    }

    static func array(of item: JSONValue) -> JSONValue { ["type": "array", "items": item] }
    static func nullable(_ type: String) -> JSONValue { ["type": [.string(type), "null"]] }
}
