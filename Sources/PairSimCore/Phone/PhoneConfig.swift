/// Phone behaviour settings (grows with the phone's HealthKit, refresh and workout features).
public struct PhoneConfig: Hashable, Sendable {
    public init() {}
}
