import Planning
import Testing

@Suite("TaskColor")
struct TaskColorTests {
    @Test("colour names", arguments: TaskColor.allCases)
    func names(_ color: TaskColor) {
        #expect(TaskColor(importing: color.rawValue) == color)
        #expect(TaskColor(importing: color.rawValue.uppercased()) == color)
    }

    @Test(
        "the original app's RGBA strings map to the nearest colour",
        arguments: [
            ("0.7,0.16,0.13,0.4", TaskColor.red),
            ("0.70,0.16,0.13,1.0", .red),
            ("0.7, 0.16, 0.13, 0.4", .red),
            ("0.85,0.65,0.13,0.4", .yellow),
            ("0.9,0.7,0.2,0.4", .yellow),
            ("0.2,0.6,0.3,0.4", .green),
            ("0.25,0.55,0.3,0.4", .green),
            ("0.2,0.4,0.75,0.4", .blue),
            ("0.15,0.35,0.8,0.4", .blue),
        ])
    func rgbaStrings(_ text: String, _ color: TaskColor) {
        #expect(TaskColor(importing: text) == color)
    }

    @Test(
        "anything else is not a colour",
        arguments: [
            "", "purple", "0.7,0.16,0.13", "0.7,0.16,0.13,0.4,1", "0.7,0.16,0.13,x", "1.7,0.16,0.13,0.4",
            "-0.1,0.16,0.13,0.4",
            "0.7,,0.16,0.13,0.4", "0.7,0.16,0.13,0.4,", ",0.7,0.16,0.13,0.4", "nan,0.16,0.13,0.4", "#B32921",
        ])
    func garbage(_ text: String) {
        #expect(TaskColor(importing: text) == nil)
    }
}
