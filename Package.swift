// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way (see docs/architecture.md, whose graph a test checks
// against this file): replan → ReplanCLI → Nightly → {Assistant, Store, Exchange} → Planning → JSON;
// Assistant → HTTP → CCurl; Store → CSQLite, CPostgres (the two engines behind one boundary). JSON is a leaf: one value type, its reader and writer,
// and the Codable bridge for model payloads.
// Nightly holds the use cases (run, preview, the model stage's wiring, import, undo/redo, manual
// edits, log/show, users, settings, export, feeds, outbox, prune); each returns a typed result.
// ReplanCLI parses, renders (text and JSON) and maps errors to exit codes; it depends on Nightly,
// Planning and JSON only, so it cannot reach SQLite, HTTP or a file format past the use cases.
// Exchange holds formats at the edge of the domain (replan/1, iCalendar, the original app's
// Firestore export); every format reads JSON with the JSON module's one parser.
let package = Package(
    name: "replan",
    platforms: [.macOS(.v15)], // Synchronization.Mutex (shared state) needs macOS 15; Linux is the target
    products: [
        .executable(name: "replan", targets: ["replan"])
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "JSON"),
        .target(name: "Planning", dependencies: ["JSON"]),
        .target(name: "Exchange", dependencies: ["JSON", "Planning"]),
        .target(name: "Store", dependencies: ["CPostgres", "CSQLite", "JSON", "Planning"]),
        .target(name: "HTTP", dependencies: ["CCurl"]),
        .target(name: "Assistant", dependencies: ["HTTP", "JSON", "Planning"]),
        .target(name: "Nightly", dependencies: ["Assistant", "Exchange", "HTTP", "JSON", "Store", "Planning"]),
        // The CLI reaches the database, the model and the formats only through Nightly's use cases.
        .target(name: "ReplanCLI", dependencies: ["Nightly", "JSON", "Planning"]),
        .executableTarget(name: "replan", dependencies: ["ReplanCLI"]),
        // What the test targets share, tests only: literals and the plan builder, a temporary
        // database with a fixed clock, the process harness, the mock model server, fixtures.
        .target(
            name: "ReplanTestSupport", dependencies: ["JSON", "Planning", "Store"], path: "Tests/ReplanTestSupport"),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "PlanningTests", dependencies: ["JSON", "Planning", "ReplanTestSupport"]),
        .testTarget(name: "ExchangeTests", dependencies: ["Exchange", "JSON", "Planning", "ReplanTestSupport"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "JSON", "Planning", "ReplanTestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "ReplanTestSupport"]),
        .testTarget(
            name: "AssistantTests", dependencies: ["Assistant", "HTTP", "JSON", "Planning", "ReplanTestSupport"]),
        .testTarget(
            name: "NightlyTests",
            dependencies: ["Nightly", "Store", "JSON", "Planning", "Assistant", "HTTP", "ReplanTestSupport"]),
        .testTarget(
            name: "ReplanCLITests",
            dependencies: ["ReplanCLI", "Nightly", "Store", "JSON", "Planning", "ReplanTestSupport"]),
        // The model stage end to end: the built binary against the local mock model server.
        .testTarget(
            name: "ModelEndToEndTests",
            dependencies: ["ReplanCLI", "Nightly", "Assistant", "JSON", "Store", "Planning", "ReplanTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
