import Foundation
import Testing

/// docs/architecture.md draws the module graph; Package.swift declares it; the sources import
/// it. The three must agree, or the document lies to the next person who adds a module.
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Target name → its declared dependencies, for the product's targets (not tests).
    static func declaredGraph() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(
            pattern:
                #"\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"(\w+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?([^)]*)"#
        )
        var graph: [String: Set<String>] = [:]
        let ns = manifest as NSString
        for m in pattern.matches(in: manifest, range: NSRange(location: 0, length: ns.length)) {
            let name = ns.substring(with: m.range(at: 1))
            let rest = m.range(at: 3).location == NSNotFound ? "" : ns.substring(with: m.range(at: 3))
            if rest.contains("path: \"Tests") { continue } // test support: used by test targets only
            let list = m.range(at: 2).location == NSNotFound ? "" : ns.substring(with: m.range(at: 2))
            let deps = list.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }
            graph[name] = Set(deps.filter { !$0.isEmpty })
        }
        return graph
    }

    /// The graph block of docs/architecture.md: lines `A → B, C` or `A → (nothing)`.
    static func documentedGraph() throws -> [String: Set<String>] {
        let doc = try String(
            contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        guard let begin = doc.range(of: "<!-- graph:begin -->"), let end = doc.range(of: "<!-- graph:end -->")
        else { return [:] }
        var graph: [String: Set<String>] = [:]
        for line in doc[begin.upperBound..<end.lowerBound].split(separator: "\n") where line.contains("→") {
            let sides = line.components(separatedBy: "→")
            let name = sides[0].trimmingCharacters(in: .whitespaces)
            let deps = sides[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            graph[name] = Set(deps.filter { !$0.isEmpty && $0 != "(nothing)" })
        }
        return graph
    }

    @Test func theDocumentedModuleGraphIsPackageSwifts() throws {
        let declared = try Self.declaredGraph()
        let documented = try Self.documentedGraph()
        #expect(declared.count >= 9, "Package.swift read: \(declared)")
        // System-library targets have no dependencies and are drawn as leaves of their users.
        let modules = declared.filter { !["CSQLite", "CCurl", "CPostgres"].contains($0.key) }
        #expect(Set(documented.keys) == Set(modules.keys), "modules in docs/architecture.md vs Package.swift")
        for (name, deps) in modules {
            #expect(documented[name] == deps, "\(name): documented \(documented[name] ?? []) vs declared \(deps)")
        }
    }

    @Test func everyModuleImportsOnlyWhatItDeclares() throws {
        let declared = try Self.declaredGraph()
        let fm = FileManager.default
        for (module, deps) in declared where !["CSQLite", "CCurl", "CPostgres"].contains(module) {
            let dir = Self.root.appendingPathComponent("Sources/\(module)")
            let files = (try? fm.subpathsOfDirectory(atPath: dir.path))?.filter { $0.hasSuffix(".swift") } ?? []
            #expect(!files.isEmpty, "Sources/\(module) has sources")
            for file in files {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
                    guard words[..<i].allSatisfy({ $0.hasPrefix("@") || ["package", "internal"].contains($0) })
                    else { continue }
                    let imported = String(words[i + 1])
                    if declared[imported] != nil {
                        #expect(deps.contains(imported), "Sources/\(module)/\(file) imports \(imported), not declared")
                    }
                }
            }
        }
    }
}
