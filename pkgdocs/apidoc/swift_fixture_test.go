package apidoc

// swiftFixture is a small Swift package written by the test: Swift has no
// client here to fetch one with, and a fixture exercises what real
// packages do (attributes, generics, where clauses, extensions, string
// interpolation holding braces, nested comments, #if).
var swiftFixture = map[string]string{
	"Package.swift": `// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Greeter",
    products: [.library(name: "Greeter", targets: ["Greeter"])],
    targets: [.target(name: "Greeter")]
)
`,
	"README.md": "# Greeter\n\n[![CI](https://img.shields.io/badge/ci-passing-green.svg)](https://example.com/ci)\n\nGreeter makes greetings for people and teams.\n\n## Usage\n\n```swift\nlet g = Greeter(name: \"Ada\")\nprint(g.greet())\n```\n\n## License\n\nMIT, see LICENSE.\n",
	"Sources/Greeter/Greeter.swift": `import Foundation

/* A file comment /* that nests */ and says public func hidden() */

/// A value that makes greetings.
///
/// ` + "```swift" + `
/// let g = Greeter(name: "Ada")
/// print(g.greet()) // Hello, Ada!
/// ` + "```" + `
public struct Greeter: Sendable {
    /// The name greeted.
    public let name: String
    private var cache: [String: String] = [:]
    let internalOnly = "not \(1 + 2) {public} api"

    /// Creates a greeter for a name.
    /// - Parameter name: Who to greet.
    public init(name: String) {
        self.name = name
    }

    /// Returns the greeting, with punctuation.
    @discardableResult
    public func greet(punctuation: Character = "!") -> String {
        let s = "Hello, \(name)\(String(punctuation))"
        return s
    }

    /** Greets everyone in a collection. */
    public static func greetAll<C: Collection>(
        _ names: C,
        separator: String = ", "
    ) -> String where C.Element == String {
        names.map { "Hello, \($0)" }.joined(separator: separator)
    }

    func notPublic() {}
}

/// Things that can be greeted.
public protocol Greetable {
    /// The display name.
    var displayName: String { get }
    /// Called after a greeting.
    func didGreet(with greeting: String) async throws
}

/// The tone of a greeting.
public enum Tone: String, CaseIterable {
    /// Polite.
    case formal
    case casual, cheerful
}

#if os(Linux)
/// Linux only helper.
public func platformName() -> String { "Linux" }
#endif

public extension Greeter {
    /// Greets with a tone.
    func greet(tone: Tone) -> String {
        switch tone { case .formal: return "Good day, \(name)." default: return greet() }
    }
}

/// A greeter subclassable outside the module.
open class BaseGreeter {
    /// Overridable greeting.
    open func greeting(for name: String) -> String { "Hi \(name)" }
    public init() {}
    /// Equality by identity.
    public static func == (lhs: BaseGreeter, rhs: BaseGreeter) -> Bool { lhs === rhs }
}

/// A raw string's braces do not count.
public let pattern = #"\{"[a-z]+"\}"#
`,
	"Tests/GreeterTests/GreeterTests.swift": "import XCTest\n\npublic final class GreeterTests: XCTestCase { public func testGreet() {} }\n",
}
