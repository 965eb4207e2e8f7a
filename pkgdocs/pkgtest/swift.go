package pkgtest

// SwiftRetry is a small Swift package of our own, written as
// .build/checkouts/swift-retry: a retry library with policies, backoff,
// a circuit breaker and timeouts, documented as Swift packages are.
var SwiftRetry = map[string]string{
	"Package.swift": `// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "swift-retry",
    products: [.library(name: "Retry", targets: ["Retry"])],
    targets: [.target(name: "Retry")]
)
`,
	"LICENSE": "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n",
	"README.md": "# swift-retry\n\n[![CI](https://img.shields.io/badge/ci-passing-green.svg)](https://example.com/ci)\n\n" +
		"Retry async operations with policies, backoff and a circuit breaker.\n\n" +
		"## Installation\n\nAdd the package to your `Package.swift`:\n\n```swift\n.package(url: \"https://github.com/example/swift-retry.git\", from: \"1.2.0\")\n```\n\n" +
		"## Usage\n\n```swift\nimport Retry\n\nlet data = try await retry(policy: .default) {\n    try await fetch()\n}\n```\n\n" +
		"## Contributors\n\nThanks to everyone who sent a patch.\n",
	"Sources/Retry/Policy.swift": `import Foundation

/// How often and how patiently an operation is retried.
///
/// ` + "```swift" + `
/// let policy = RetryPolicy(maxAttempts: 5, backoff: .exponential(base: 0.2))
/// ` + "```" + `
public struct RetryPolicy: Sendable {
    /// The most attempts, the first included.
    public var maxAttempts: Int
    /// The wait between attempts.
    public var backoff: Backoff

    /// Three attempts, half a second apart.
    public static let ` + "`default`" + ` = RetryPolicy(maxAttempts: 3, backoff: .constant(0.5))

    /// Creates a policy.
    /// - Parameters:
    ///   - maxAttempts: The most attempts, the first included.
    ///   - backoff: The wait between attempts.
    public init(maxAttempts: Int, backoff: Backoff) {
        self.maxAttempts = maxAttempts
        self.backoff = backoff
    }
}

/// The wait before each new attempt.
public enum Backoff: Sendable {
    /// The same wait every time.
    case constant(TimeInterval)
    /// A wait that doubles (times multiplier) after each failure, capped at maxDelay.
    case exponential(base: TimeInterval, multiplier: Double = 2, maxDelay: TimeInterval = 30)

    /// The wait before attempt number attempt (1-based), with random jitter of up to a tenth added.
    public func delay(forAttempt attempt: Int) -> TimeInterval {
        switch self {
        case .constant(let d):
            return d
        case .exponential(let base, let multiplier, let maxDelay):
            return min(base * pow(multiplier, Double(attempt - 1)), maxDelay)
        }
    }
}

/// Decides which errors are worth another attempt.
public protocol RetryPredicate: Sendable {
    /// Returns true when the operation should be tried again after error.
    func shouldRetry(_ error: Error) -> Bool
}

extension RetryPolicy {
    /// Returns a copy that retries only errors the predicate accepts; others are thrown at once.
    public func retrying(on predicate: some RetryPredicate) -> FilteredPolicy {
        FilteredPolicy(policy: self, predicate: predicate)
    }
}

/// A policy that retries only some errors.
public struct FilteredPolicy: Sendable {
    public let policy: RetryPolicy
    public let predicate: any RetryPredicate
}
`,
	"Sources/Retry/Retry.swift": `import Foundation

/// Runs operation until it succeeds or the policy gives up, waiting as the policy's backoff says between attempts.
///
/// - Parameters:
///   - policy: How often and how patiently to retry.
///   - operation: The async work to run.
/// - Returns: The first successful result.
/// - Throws: ` + "`RetryError`" + ` with every attempt's error when all attempts failed.
public func retry<T>(policy: RetryPolicy = .default, operation: @Sendable () async throws -> T) async throws -> T {
    var errors: [Error] = []
    for attempt in 1...policy.maxAttempts {
        do { return try await operation() } catch { errors.append(error) }
        try await Task.sleep(nanoseconds: UInt64(policy.backoff.delay(forAttempt: attempt) * 1e9))
    }
    throw RetryError(attempts: errors.count, errors: errors)
}

/// Thrown when every attempt failed.
public struct RetryError: Error {
    /// How many attempts were made.
    public let attempts: Int
    /// The error of each attempt, first to last.
    public let errors: [Error]
}

/// Runs operation, cancelling it and throwing ` + "`TimeoutError`" + ` when it takes longer than seconds.
public func withTimeout<T: Sendable>(_ seconds: TimeInterval, operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await operation()
}

/// Thrown by withTimeout when the deadline passed.
public struct TimeoutError: Error {}
`,
	"Sources/Retry/CircuitBreaker.swift": `import Foundation

/// Stops calling a failing service for a while: after failureThreshold
/// consecutive failures the breaker opens and calls fail fast with
/// ` + "`CircuitOpenError`" + ` until resetTimeout has passed; then one trial call
/// is let through (half-open) and its outcome closes or reopens it.
public final class CircuitBreaker: @unchecked Sendable {
    /// The breaker's state.
    public enum State: Sendable {
        case closed, open, halfOpen
    }

    /// The current state.
    public private(set) var state: State = .closed

    /// Creates a breaker.
    public init(failureThreshold: Int = 5, resetTimeout: TimeInterval = 60) {}

    /// Runs operation through the breaker; fails fast while it is open.
    public func run<T>(_ operation: () async throws -> T) async throws -> T {
        try await operation()
    }

    /// Closes the breaker and forgets the failures counted.
    public func reset() {}
}

/// Thrown by a breaker that is open.
public struct CircuitOpenError: Error {}
`,
}
