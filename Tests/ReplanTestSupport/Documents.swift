/// Builders of `replan/1` documents (docs/data-format.md §3) as Foundation values, for the
/// tests that import through the binary. Target-specific scenes live in extensions.
package enum Documents {
    /// A document holding `users`.
    package static func document(_ users: [[String: Any]]) -> [String: Any] {
        ["format": "replan/1", "users": users]
    }

    /// A student in Asia/Taipei with Mon–Fri 09:00–17:00 windows and `instruction` for the model.
    package static func user(_ id: String, instruction: String = "", tasks: [[String: Any]]) -> [String: Any] {
        [
            "id": id, "timeZone": "Asia/Taipei", "language": "en",
            "settings": [
                "instruction": instruction,
                "windows": [
                    "mon": ["09:00-17:00"], "tue": ["09:00-17:00"], "wed": ["09:00-17:00"],
                    "thu": ["09:00-17:00"], "fri": ["09:00-17:00"],
                ],
            ],
            "tasks": tasks,
        ]
    }

    /// A one-off task; its category is its title unless told.
    package static func task(
        _ id: String, _ title: String, _ start: String, _ end: String, category: String? = nil,
        completed: Bool = false
    ) -> [String: Any] {
        [
            "id": id, "title": title, "category": category ?? title, "color": "green", "start": start, "end": end,
            "allDay": false, "completed": completed,
        ]
    }
}
