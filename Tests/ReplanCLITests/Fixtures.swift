import Foundation
import ReplanTestSupport

/// The `replan/1` documents the CLI end-to-end tests import. Dates: 2025-01-06 is a Monday.
extension Documents {
    /// Worked example 2 of docs/planning.md §9.2: windows Mon–Fri 09:00–17:00 (the defaults), "English
    /// reading" Mon 1/6 … Fri 1/10 at 10:00–11:00 as one-off tasks `PREFIX-1` … `PREFIX-5`.
    static func englishWeek(
        user: String = "mei", zone: String = "Asia/Taipei", prefix: String? = nil,
        settings: [String: Any] = [:]
    ) -> [String: Any] {
        let p = prefix ?? "\(user)-eng"
        var u: [String: Any] = [
            "id": user, "timeZone": zone,
            "tasks": (6...10).map { day -> [String: Any] in
                [
                    "id": "\(p)-\(day - 5)", "title": "English reading", "category": "English", "color": "green",
                    "start": String(format: "2025-01-%02dT10:00", day),
                    "end": String(format: "2025-01-%02dT11:00", day),
                ]
            },
        ]
        if !settings.isEmpty { u["settings"] = settings }
        return u
    }

    /// Every kind of data the format holds (docs/data-format.md §3.1's example, plus an all-day task and a
    /// second user), for round trips.
    static var rich: [String: Any] {
        document([
            [
                "id": "mei", "timeZone": "Asia/Taipei", "language": "zh-TW",
                "settings": [
                    "windows": [
                        "mon": ["09:00-12:00", "14:00-17:00"], "tue": ["09:00-17:00"], "sat": ["10:00-12:00"],
                    ],
                    "windowsEnabled": true, "sessionMinutes": 50, "sessionMinutesEnabled": true,
                    "tone": "沉著穩重的專家", "instruction": "每天安排兩小時英文", "autoUpdate": true,
                    "notificationsEnabled": true, "reminderMinutes": 15,
                ] as [String: Any],
                "tasks": [
                    [
                        "id": "eng-1", "title": "English reading", "note": "Unit 3", "category": "English",
                        "color": "green",
                        "start": "2025-01-06T10:00", "end": "2025-01-06T11:00", "allDay": false, "completed": false,
                        "subtasks": [
                            ["title": "vocabulary list", "done": true], ["title": "summary", "done": false],
                        ],
                        "repeat": ["every": "daily", "until": "2025-01-31"],
                        "occurrences": [
                            ["date": "2025-01-06", "state": "completed"],
                            [
                                "date": "2025-01-08", "state": "moved", "start": "2025-01-08T15:00",
                                "end": "2025-01-08T16:00",
                            ],
                            ["date": "2025-01-09", "state": "skipped"],
                        ],
                        "slides": [["from": "2025-01-10", "days": 1]],
                    ] as [String: Any],
                    [
                        "id": "essay", "title": "Essay draft", "category": "作業", "color": "0.7,0.16,0.13,0.4",
                        "start": "2025-01-09T15:00", "end": "2025-01-09T17:00",
                    ],
                    [
                        "id": "trip", "title": "Field trip", "category": "Geography", "color": "blue", "allDay": true,
                        "start": "2025-01-11", "end": "2025-01-12",
                    ],
                    [
                        "id": "quiz", "title": "Chemistry quiz", "category": "Chemistry", "color": "yellow",
                        "completed": true,
                        "start": "2025-01-03T14:00", "end": "2025-01-03T15:00",
                    ],
                ] as [[String: Any]],
                "focusSessions": [
                    ["category": "English", "start": "2025-01-06T10:00", "minutes": 55],
                    ["category": "Chemistry", "start": "2025-01-03T14:00", "minutes": 40],
                ],
            ] as [String: Any],
            [
                "id": "bob", "timeZone": "Europe/Berlin",
                "tasks": [
                    [
                        "id": "bob-math", "title": "Math", "category": "Math", "start": "2025-01-06T18:00",
                        "end": "2025-01-06T19:00",
                        "repeat": ["every": "weekly"],
                    ]
                ],
            ],
        ])
    }

    /// A night with every kind of edit for user `mei` (run Tuesday 1/7 03:00 Taipei): worked
    /// example 2's chain of one-off tasks (moves), a stale one-off task (delete), a daily series
    /// with a stale open occurrence (skip) and a missed evening (one slide), plus untouched rows:
    /// a completed task, a future task and a focus session.
    static var everyKindOfEdit: [String: Any] {
        var user = englishWeek(settings: ["notificationsEnabled": true, "reminderMinutes": 15])
        var tasks = user["tasks"] as! [[String: Any]]
        tasks += [
            [
                "id": "old-reading", "title": "Old reading", "category": "English", "start": "2024-12-28T14:00",
                "end": "2024-12-28T15:00",
            ],
            [
                "id": "vocab", "title": "Vocab", "category": "English", "start": "2024-12-27T20:00",
                "end": "2024-12-27T20:30",
                "repeat": ["every": "daily", "until": "2025-01-31"],
                "occurrences": [
                    "2024-12-27", "2024-12-28", "2024-12-29", "2024-12-31", "2025-01-01", "2025-01-02", "2025-01-03",
                    "2025-01-04", "2025-01-05",
                ].map { ["date": $0, "state": "completed"] },
            ] as [String: Any],
            [
                "id": "quiz", "title": "Chemistry quiz", "category": "Chemistry", "completed": true,
                "start": "2025-01-03T14:00", "end": "2025-01-03T15:00",
            ],
            [
                "id": "lab", "title": "Physics lab", "category": "Physics", "start": "2025-01-15T09:00",
                "end": "2025-01-15T12:00",
            ],
        ]
        user["tasks"] = tasks
        user["focusSessions"] = [["category": "Chemistry", "start": "2025-01-03T14:00", "minutes": 50]]
        return document([user, englishWeek(user: "bob", zone: "Asia/Tokyo")])
    }

    /// `count` users, each with worked example 2's week (a missed five-day chain on Tuesday
    /// 1/7 at 03:00 Taipei), spread over zones where that instant is past 03:00 local.
    static func manyUsers(_ count: Int) -> [String: Any] {
        let zones = ["Asia/Taipei", "Asia/Tokyo", "Australia/Sydney", "Pacific/Auckland"]
        return document(
            (0..<count).map { i in
                englishWeek(user: String(format: "u%04d", i), zone: zones[i % zones.count])
            })
    }
}
