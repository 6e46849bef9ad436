/// The app's process and scene state (R: L1).
public enum AppState: String, Hashable, Sendable, CaseIterable {
    /// No process: never launched, or terminated by the system. Background delivery may launch it.
    case notRunning
    /// On screen and active.
    case foreground
    /// On screen but not receiving events (e.g. Notification Center pulled down).
    case inactive
    /// Running off screen, within its background budget or a wake's budget.
    case background
    /// In memory but not executing; a wake resumes it.
    case suspended
    /// Swiped away by the user: no background delivery until the user launches it again.
    case forceQuit

    /// True when the app's code runs (observers fire only then, R: O3).
    public var isRunning: Bool { self == .foreground || self == .inactive || self == .background }
    /// True when the UI is on screen.
    public var isOnScreen: Bool { self == .foreground || self == .inactive }
}
