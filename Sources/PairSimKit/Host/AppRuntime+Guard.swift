import CAppGuard

extension AppRuntime {
    /// Runs the app's code for the call `deliver` hands it (`handling`), or else drains the app's
    /// executor; a trap in it returns the signal instead of ending the process (see CAppGuard).
    /// The C callbacks capture nothing and find this runtime through their context: escaping
    /// closures with a box to carry them took three allocations a delivery, 11,760 of a simulated
    /// week's ~198,000 (a malloc uprobe over `pairsim-bench simulate`).
    func guarded(handling: Bool) -> Int32 {
        let context = Unmanaged.passUnretained(self).toOpaque()
        return withExtendedLifetime(self) {
            handling ? pairsim_run_guarded({ AppRuntime.from($0).handleDelivering() }, context)
                     : pairsim_run_guarded({ AppRuntime.from($0).executor.drain() }, context)
        }
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> AppRuntime {
        Unmanaged<AppRuntime>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Takes the call `deliver` set out (a delivery the app's code makes within it sets its own).
    private func handleDelivering() {
        guard let call = delivering else { return }
        delivering = nil
        handle(call)
    }
}
