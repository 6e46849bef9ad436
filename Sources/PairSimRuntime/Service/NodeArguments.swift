#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import PairSimApps
import PairSimConfig
import PairSimCore
import PairSimKit

/// Command-line options shared by `watch-node` and `phone-node`.
public struct NodeArguments: ParsableArguments {
    @Option(name: [.short, .long], help: "Topology file: endpoints, data directory, seed, time scale, channels, policies.")
    public var topology: String = "Topologies/default.yaml"

    @Option(help: ArgumentHelp("Wall-clock Unix time in milliseconds that is emulated time zero. The launcher gives both nodes the same one so their clocks agree. Default: now.", valueName: "unix-ms"))
    public var epoch: Int64?

    @Option(help: ArgumentHelp("Emulated seconds per wall second (overrides the topology's timeScale), e.g. 60 makes a minute pass in a second.", valueName: "factor"))
    public var timeScale: Double?

    @Option(help: ArgumentHelp("Read emulated time from this stepped clock instead of the wall clock: `topology run --clock stepped` makes it and moves it from one deadline to the next (docs/SCENARIOS.md#stepped-time).", valueName: "file"))
    public var steppedClock: String?

    @Option(help: ArgumentHelp("Read the epoch (Unix milliseconds of emulated time zero, 8 bytes) from this file, which `topology run` makes and writes once both nodes are up and paired; emulated time stands at zero until then.", valueName: "file"))
    public var epochFile: String?

    @Flag(help: "Start from nothing: delete this node's saved state and event log in its data directory first.")
    public var fresh = false

    @Flag(help: "Do not read commands from stdin.")
    public var noStdin = false

    @Flag(help: "Do not print events on stdout (they still go to events.jsonl in the data directory).")
    public var quiet = false

    @Option(help: ArgumentHelp("Colour stdout: auto (when a terminal), always, never.", valueName: "when"))
    public var color: String = "auto"

    @Option(help: ArgumentHelp("the app under test, by name: phone-node's iPhone app (default: the topology's phone.app, else reference); watch-node's watch app (default: the topology's watch.app, else reference); `topology apps` lists them.", valueName: "name"))
    public var app: String?

    @Option(help: ArgumentHelp("Stop when this process is no longer the parent (set by the launcher so nodes never outlive it).", valueName: "pid"))
    public var parentPid: Int32?

    public init() {}

    public func validate() throws {
        if let timeScale, let problem = Topology.timeScaleProblem(timeScale) { throw ValidationError(problem) }
        if steppedClock != nil, epoch != nil || timeScale != nil {
            throw ValidationError("--stepped-clock takes time from the launcher's clock: it cannot go with --epoch or --time-scale")
        }
        if epochFile != nil, epoch != nil || steppedClock != nil {
            throw ValidationError("--epoch-file gives the epoch: it cannot go with --epoch or --stepped-clock")
        }
        guard ["auto", "always", "never"].contains(color) else {
            throw ValidationError("--color must be auto, always or never, got \"\(color)\"")
        }
    }

    /// Loads the topology and builds the node's options; the phone's app is looked up among the
    /// build's apps and `extraApps` (a developer's own node adds theirs).
    public func options(for node: NodeName, extraApps: [AppRegistration] = []) throws -> NodeOptions {
        let loaded: Topology
        do {
            loaded = try TopologyLoader.load(path: topology)
        } catch {
            throw ValidationError(error.description)
        }
        var topology = loaded
        if let timeScale { topology.timeScale = timeScale }
        let clock: EmulatedClock
        if let steppedClock {
            do { clock = EmulatedClock(stepped: try SharedClock(path: steppedClock)) } catch let error as RuntimeError {
                throw ValidationError(error.message)
            }
        } else if let epochFile {
            do { clock = EmulatedClock(epochFile: try SharedClock(path: epochFile), timeScale: topology.timeScale) } catch let error as RuntimeError {
                throw ValidationError(error.message)
            }
        } else {
            clock = EmulatedClock(epochUnixMilliseconds: self.epoch ?? Int64(EmulatedClock.wallMilliseconds()), timeScale: topology.timeScale)
        }
        let useColor = color == "always" || (color == "auto" && isatty(STDOUT_FILENO) != 0)
        var options = NodeOptions(node: node, topology: topology, clock: clock,
                                  readStdin: !noStdin, parentPID: parentPid, echo: !quiet, color: useColor)
        options.fresh = fresh
        if node == .phone {
            do {
                options.app = try AppCatalog.registration(named: app ?? topology.phone.app.name, topology: topology, extra: extraApps)
            } catch {
                throw ValidationError(error.message)
            }
        } else {
            do {
                if let app { topology.watch.app = app }
                options.app = try AppCatalog.watchApp(for: topology, extra: extraApps)
                options.topology = topology
            } catch {
                throw ValidationError(error.message)
            }
        }
        return options
    }
}
