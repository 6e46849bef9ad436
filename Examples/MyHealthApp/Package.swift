// swift-tools-version:6.1
// A developer's own app under PairSim: copy this folder next to your app, point the dependency
// at your PairSim checkout, and replace Sources/MyHealthApp with your platform-independent files.
import Foundation
import PackageDescription

// A path dependency is known by its folder's name: find PairSim's, wherever it was cloned.
let pairSimPath = "../.."
let pairSim = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(pairSimPath)
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "MyHealthApp",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: pairSimPath)],
    targets: [
        // Your app: it imports PairSimKit only, as it would import HealthKit.
        // PAIRSIM_IOS: code under `#if os(iOS) || PAIRSIM_IOS` compiles here too (docs/APPS.md).
        .target(name: "MyHealthApp", dependencies: [.product(name: "PairSimKit", package: pairSim)],
                swiftSettings: [.swiftLanguageMode(.v5), .define("PAIRSIM_IOS")]),
        // Your watch app, the same way: PAIRSIM_WATCHOS keeps `#if os(watchOS) || PAIRSIM_WATCHOS` code alive.
        .target(name: "MyWatchApp", dependencies: [.product(name: "PairSimKit", package: pairSim)],
                swiftSettings: [.swiftLanguageMode(.v5), .define("PAIRSIM_WATCHOS")]),
        // One executable with both apps (and PairSim's): both nodes and every `topology` subcommand,
        // e.g. `my-health simulate Scenarios/workout-to-phone.yaml`.
        .executableTarget(name: "my-health", dependencies: ["MyHealthApp", "MyWatchApp", .product(name: "PairSimNode", package: pairSim)]),
    ]
)
