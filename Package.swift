// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way (see DESIGN.md):
// replan → ReplanCLI → Nightly → {Assistant, Store, Exchange} → Planning → JSON; Assistant → HTTP → CCurl;
// Store → CSQLite. JSON is a leaf: one value type, its reader and writer, and the Codable bridge for model payloads.
// Exchange holds formats at the edge of the domain (replan/1, iCalendar, the original app's
// Firestore export); it reads JSON with the JSON module's reader, so every format shares one parser and one error shape.
let package = Package(
    name: "replan",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "replan", targets: ["replan"])
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "JSON"),
        .target(name: "Planning", dependencies: ["JSON"]),
        .target(name: "Exchange", dependencies: ["JSON", "Planning"]),
        .target(name: "Store", dependencies: ["CSQLite", "JSON", "Planning"]),
        .target(name: "HTTP", dependencies: ["CCurl"]),
        .target(name: "Assistant", dependencies: ["HTTP", "JSON", "Planning"]),
        .target(name: "Nightly", dependencies: ["Assistant", "HTTP", "JSON", "Store", "Planning"]),
        .target(
            name: "ReplanCLI", dependencies: ["Nightly", "Store", "Exchange", "JSON", "Planning", "Assistant", "HTTP"]),
        .executableTarget(name: "replan", dependencies: ["ReplanCLI"]),
        // What the test targets share (generators of students, fixtures); tests only.
        .target(name: "ReplanTestSupport", dependencies: ["Planning"], path: "Tests/ReplanTestSupport"),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "PlanningTests", dependencies: ["JSON", "Planning", "ReplanTestSupport"]),
        .testTarget(name: "ExchangeTests", dependencies: ["Exchange", "JSON", "Planning"], exclude: ["Fixtures"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "JSON", "Planning", "ReplanTestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP"]),
        .testTarget(name: "AssistantTests", dependencies: ["Assistant", "HTTP", "JSON", "Planning"]),
        .testTarget(
            name: "NightlyTests",
            dependencies: ["Nightly", "Store", "JSON", "Planning", "Assistant", "HTTP", "ReplanTestSupport"]),
        .testTarget(name: "ReplanCLITests", dependencies: ["ReplanCLI", "Nightly", "Store", "Planning"]),
        // The model stage end to end: the built binary against the local mock model server.
        .testTarget(
            name: "ModelEndToEndTests",
            dependencies: ["ReplanCLI", "Nightly", "Assistant", "JSON", "Store", "Planning"]),
    ],
    swiftLanguageModes: [.v6]
)
