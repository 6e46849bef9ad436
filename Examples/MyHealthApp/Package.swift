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
        // A phone-node that runs your app (and PairSim's), and its simulator: `my-phone-node simulate FILE`.
        .executableTarget(name: "my-phone-node", dependencies: ["MyHealthApp", .product(name: "PairSimNode", package: pairSim)]),
    ]
)
