// swift-tools-version:6.1
import Foundation
import PackageDescription

// CI's debug build (scripts/test.sh with CI=true sets PAIRSIM_OPTIMIZE_CORE=1) optimizes
// PairSimCore, where the tests and the swarm spend most of their time. Measured here in CI's
// build, one after the other: compiling the module takes 103 s of CPU instead of 24 s, and saves
// 76 s in the tests (86 s against 162 s) and 67 s in the swarm phase (55 s against 121 s).
// Only then: unsafe flags would keep a package that depends on a tagged version of PairSim from
// building, and a debugger wants it unoptimized.
// Tried and not taken (2 cores, CI's flags, stop 46): `-Osize`, and `-O` with LLVM's optimizations
// off (`-Xfrontend -disable-llvm-optzns`), each compiled the module alone in 9-17 % less CPU than
// `-O`; but whole cold builds with `-Osize` showed no gain outside the noise (354 and 406 s of CPU
// against 358 and 373 s for `-O`, alternating). SwiftPM's `--disable-index-store` cannot be used:
// the test build's discovery step on Linux reads the index store and fails without it.
let coreSettings: [SwiftSetting] = ProcessInfo.processInfo.environment["PAIRSIM_OPTIMIZE_CORE"] == "1" ? [.unsafeFlags(["-O"])] : []

let package = Package(
    name: "PairSim",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "watch-node", targets: ["watch-node"]),
        .executable(name: "phone-node", targets: ["phone-node"]),
        .executable(name: "topology", targets: ["topology"]),
        // The app API: what an app under test imports (docs/APPS.md).
        .library(name: "PairSimKit", targets: ["PairSimKit"]),
        // Runs a phone node or a simulation with your own app (Examples/MyHealthApp).
        .library(name: "PairSimNode", targets: ["PairSimNode"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // libzmq from Debian's libzmq3-dev; no pkgConfig (avoids a harmless krb5 warning).
        .systemLibrary(name: "CZeroMQ", path: "Sources/CZeroMQ"),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        .target(
            name: "PairSimCore",
            // Only the collections used (Heap here, Deque in the simulator): the umbrella
            // `Collections` product compiles every module of swift-collections.
            dependencies: ["CUUIDSet", .product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: coreSettings
        ),
        // Keeps a node running when the app under test traps (measured first: see app_guard.c).
        .target(name: "CUUIDSet"),
        // SQLite's C API from Debian's libsqlite3-dev, for the node database (Storage/SQLite.swift says why not GRDB).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        // The simulator's faulty disk under the real storage (R: K8): a shim over SQLite's default VFS.
        .target(name: "CFaultyDisk", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "CAppGuard"),
        // Answers the C clocks with the app's emulated time while app code runs (app_clock.h).
        .target(name: "CAppClock"),
        .target(name: "PairSimKit", dependencies: ["PairSimCore", "CAppGuard", "CAppClock"]),
        // The seeds' app, on PairSimKit only; Swift 5 mode, as most app code is written.
        .target(name: "ReferenceApp", dependencies: ["PairSimKit"], swiftSettings: [.swiftLanguageMode(.v5)]),
        // The seeds' watch app, on PairSimKit only (R: A10).
        .target(name: "ReferenceWatchApp", dependencies: ["PairSimKit"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "DeltaSyncApp", dependencies: ["PairSimKit"], path: "Examples/DeltaSync",
                swiftSettings: [.swiftLanguageMode(.v5)]),
        // A watchOS workout app (HKWorkoutSession + HKLiveWorkoutBuilder + WCSession), as Apple's samples write one.
        .target(name: "WorkoutWatchApp", dependencies: ["PairSimKit"], path: "Examples/WorkoutWatch",
                swiftSettings: [.swiftLanguageMode(.v5)]),
        // An iPhone app kept fresh by BackgroundTasks, as Apple's sample writes one (R: F2).
        .target(name: "BackgroundRefreshApp", dependencies: ["PairSimKit"], path: "Examples/BackgroundRefresh",
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "PairSimApps", dependencies: ["PairSimCore", "PairSimKit", "ReferenceApp", "ReferenceWatchApp", "DeltaSyncApp", "WorkoutWatchApp", "BackgroundRefreshApp"]),
        .target(
            name: "PairSimConfig",
            dependencies: ["PairSimCore", "PairSimApps", .product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "PairSimRuntime",
            dependencies: [
                "PairSimCore", "PairSimConfig", "PairSimScenario", "PairSimKit", "PairSimApps", "PairSimHealthExport", "ZeroMQ", "CFaultyDisk", "CSQLite",
                // Only its signal handling: its ServiceLifecycle module would bring swift-async-algorithms
                // into the build (NodeRunner.run says what that cost).
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Apple Health exports: a checking XML scanner of our own (measured against libxml2 in its
        // header) and, for the zip, libarchive (Debian's libarchive-dev).
        .target(name: "CExportScan"),
        .systemLibrary(name: "CArchive", path: "Sources/CArchive"),
        // Apple Health exports: the synthetic export generator and the reader behind import-health
        // (docs/HEALTH-EXPORT.md).
        .target(name: "PairSimHealthExport", dependencies: ["PairSimCore", "CExportScan", "CArchive"]),
        // Judging a scenario run, whichever driver played it: expectations, outcomes, reports,
        // charts, JUnit and traces. The real-process runtime and the simulator both use it.
        .target(name: "PairSimScenario", dependencies: ["PairSimCore", "PairSimConfig", "PairSimKit"]),
        .target(
            name: "PairSimulation",
            dependencies: ["PairSimCore", "PairSimConfig", "PairSimKit", "PairSimScenario", "PairSimHealthExport", "PairSimRuntime",
                           .product(name: "DequeModule", package: "swift-collections")]
        ),
        // The commands that need both drivers (`simulate`, `swarm`) and a developer's node `main`.
        .target(
            name: "PairSimNode",
            dependencies: [
                "PairSimRuntime", "PairSimulation", "PairSimScenario", "PairSimCore", "PairSimConfig", "PairSimKit", "PairSimApps",
                "PairSimHealthExport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "watch-node",
            dependencies: ["PairSimRuntime", "PairSimKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "phone-node",
            dependencies: ["PairSimRuntime", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "topology",
            dependencies: [
                "PairSimNode", "PairSimRuntime", "PairSimKit", "PairSimulation", "PairSimScenario", "PairSimApps", "PairSimHealthExport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks (scripts/bench.sh): a C reference loop and the bench driver.
        .target(name: "CBenchKernels", dependencies: ["CZeroMQ"]),
        .executableTarget(
            name: "pairsim-bench",
            dependencies: [
                "PairSimNode", "PairSimRuntime", "PairSimulation", "PairSimScenario", "PairSimKit", "PairSimApps", "PairSimHealthExport", "ZeroMQ", "CBenchKernels",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `expect` and `expectEqual` for the tests: the macro `#expect` was over a third of their build (Tests/Support/Expect.swift).
        .target(name: "TestSupport", path: "Tests/Support"),
        .testTarget(name: "ZeroMQTests", dependencies: ["TestSupport", "ZeroMQ"]),
        .testTarget(name: "PairSimCoreTests", dependencies: ["TestSupport", "PairSimCore"]),
        // PAIRSIM_IOS: the recipe docs/APPS.md gives for `#if os(iOS)` code, tested as written (R: A15).
        .testTarget(name: "PairSimKitTests", dependencies: ["TestSupport", "PairSimCore", "PairSimKit", "ReferenceWatchApp"],
                    swiftSettings: [.swiftLanguageMode(.v5), .define("PAIRSIM_IOS")]),
        .testTarget(name: "ReferenceAppTests", dependencies: ["TestSupport", "PairSimCore", "PairSimKit", "ReferenceApp", "PairSimApps"]),
        .testTarget(name: "PairSimConfigTests", dependencies: ["TestSupport", "PairSimConfig"]),
        .testTarget(name: "PairSimRuntimeTests", dependencies: ["TestSupport", "PairSimRuntime", "PairSimCore", "PairSimKit", "PairSimApps", "ZeroMQ"]),
        .testTarget(name: "PairSimulationTests", dependencies: ["TestSupport", "PairSimulation", "PairSimScenario", "PairSimConfig", "PairSimApps", "PairSimKit", "PairSimHealthExport", "WorkoutWatchApp"]),
        .testTarget(name: "PairSimHealthExportTests", dependencies: ["TestSupport", "PairSimHealthExport", "CExportScan"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "PairSimRuntime", "PairSimulation", "PairSimScenario", "PairSimHealthExport", "ZeroMQ"]),
        // The source-compatibility suite (R: A13): files written as Apple's documentation writes
        // them, only the import changed, in both language modes; `pairsim-compat` plays them
        // (Tests/Compatibility/Scenarios, checked by EndToEndTests).
        .target(name: "CompatSwift5", dependencies: ["PairSimKit"], path: "Tests/Compatibility/Swift5",
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "CompatSwift6", dependencies: ["PairSimKit"], path: "Tests/Compatibility/Swift6"),
        // The field-bug gallery (docs/FIELD-BUGS.md): public bugs, each a buggy and a fixed app on
        // PairSimKit with a scenario; `field-bugs` plays them (scripts/field-bugs.sh checks them all).
        .target(name: "FieldBugs", dependencies: ["PairSimKit"], path: "Examples/FieldBugs/Sources",
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "field-bugs", dependencies: ["FieldBugs", "PairSimNode"], path: "Examples/FieldBugs/Node"),
        .executableTarget(name: "pairsim-compat", dependencies: ["CompatSwift5", "CompatSwift6", "WorkoutWatchApp", "PairSimNode"],
                          path: "Tests/Compatibility/Node"),
    ],
    swiftLanguageModes: [.v6]
)
