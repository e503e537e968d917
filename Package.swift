// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way (see DESIGN.md and docs/architecture.md, whose graph a test checks
// against this file): replan → ReplanCLI → Nightly → {Assistant, Store, Exchange} → Planning;
// Assistant → HTTP → CCurl; Store → CSQLite.
// Nightly holds the use cases (run, preview, the model stage's wiring, import, undo/redo, manual
// edits, log/show, users, settings, export, feeds, outbox, prune); each returns a typed result.
// ReplanCLI parses, renders and maps errors to exit codes; it depends on Nightly and Planning
// only, so it cannot reach SQLite, HTTP or a file format past the use cases.
// Exchange holds formats at the edge of the domain (replan/1, iCalendar, the original app's
// Firestore export).
let package = Package(
    name: "replan",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "replan", targets: ["replan"])
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "Planning"),
        .target(name: "Exchange", dependencies: ["Planning"]),
        .target(name: "Store", dependencies: ["CSQLite", "Planning"]),
        .target(name: "HTTP", dependencies: ["CCurl"]),
        .target(name: "Assistant", dependencies: ["HTTP", "Planning"]),
        .target(name: "Nightly", dependencies: ["Assistant", "HTTP", "Store", "Exchange", "Planning"]),
        // The CLI reaches the database only through Nightly's use cases (no Store here).
        .target(name: "ReplanCLI", dependencies: ["Nightly", "Planning"]),
        .executableTarget(name: "replan", dependencies: ["ReplanCLI"]),
        // What the test targets share, tests only: literals and the plan builder, a temporary
        // database with a fixed clock, the process harness, the mock model server, fixtures.
        .target(name: "ReplanTestSupport", dependencies: ["Planning", "Store"], path: "Tests/ReplanTestSupport"),
        .testTarget(name: "PlanningTests", dependencies: ["Planning", "ReplanTestSupport"]),
        .testTarget(name: "ExchangeTests", dependencies: ["Exchange", "Planning", "ReplanTestSupport"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "Planning", "ReplanTestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "ReplanTestSupport"]),
        .testTarget(name: "AssistantTests", dependencies: ["Assistant", "HTTP", "Planning", "ReplanTestSupport"]),
        .testTarget(
            name: "NightlyTests",
            dependencies: ["Nightly", "Store", "Planning", "Assistant", "HTTP", "ReplanTestSupport"]),
        .testTarget(
            name: "ReplanCLITests", dependencies: ["ReplanCLI", "Nightly", "Store", "Planning", "ReplanTestSupport"]),
        // The model stage end to end: the built binary against the local mock model server.
        .testTarget(
            name: "ModelEndToEndTests",
            dependencies: ["ReplanCLI", "Nightly", "Assistant", "Store", "Planning", "ReplanTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
