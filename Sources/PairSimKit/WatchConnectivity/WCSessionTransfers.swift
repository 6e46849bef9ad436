import Foundation
internal import PairSimCore

/// An outstanding `transferUserInfo`.
public final class WCSessionUserInfoTransfer: @unchecked Sendable {
    // @unchecked: used on the driver's thread only.
    let id: Int
    public let userInfo: [String: Any]
    public internal(set) var isTransferring = true
    /// Sent by `transferCurrentComplicationUserInfo` within the day's budget.
    public internal(set) var isCurrentComplicationInfo = false
    init(id: Int, userInfo: [String: Any]) {
        self.id = id
        self.userInfo = userInfo
    }
    /// Cancels the transfer if it is still waiting in the queue: the delegate then hears
    /// `didFinish` with `transferCancelled`; one already on its way finishes as usual.
    public func cancel() {
        guard isTransferring else { return }
        AppRuntime.require("WCSessionUserInfoTransfer.cancel").send(.wcCancelTransfer(id: id))
    }
}

/// A file that arrived: PairSim moves its name, size and metadata, not its bytes.
/// Differs: a struct, where Apple's is a class.
public struct WCSessionFile: @unchecked Sendable {
    // @unchecked: `metadata` holds property-list values, used on the driver's thread only.
    public let fileURL: URL
    /// PairSim's own: the file's size in bytes (its bytes do not travel).
    public let size: Int
    public let metadata: [String: Any]?
}

/// An outstanding `transferFile`.
public final class WCSessionFileTransfer: @unchecked Sendable {
    // @unchecked: used on the driver's thread only.
    let id: Int
    public let file: WCSessionFile
    public internal(set) var isTransferring = true
    /// The transfer's progress in bytes: none while queued or on its way, all of them once the
    /// watch has the file (PairSim moves a file in one piece: `fileRate`, docs/TOPOLOGY.md).
    public let progress: Progress
    init(id: Int, file: WCSessionFile) {
        self.id = id
        self.file = file
        progress = Progress(totalUnitCount: Int64(file.size))
    }
    /// As `WCSessionUserInfoTransfer.cancel()`.
    public func cancel() {
        guard isTransferring else { return }
        AppRuntime.require("WCSessionFileTransfer.cancel").send(.wcCancelTransfer(id: id))
    }
}
