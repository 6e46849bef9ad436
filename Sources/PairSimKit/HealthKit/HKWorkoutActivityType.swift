import Foundation

/// `HKWorkoutActivityType`, every case with Apple's numbers (HKWorkout.h, iOS 18). PairSim's watch
/// names its activities `running`, `walking`, `cycling`, `swimming`, `rowing`, `hiit`, `strength`,
/// `yoga`: those are `.running` … `.highIntensityIntervalTraining`, `.traditionalStrengthTraining`,
/// `.yoga`; a workout an app saves with another activity keeps that activity's name.
public enum HKWorkoutActivityType: UInt, Hashable, Sendable, CaseIterable {
    case americanFootball = 1
    case archery = 2
    case australianFootball = 3
    case badminton = 4
    case baseball = 5
    case basketball = 6
    case bowling = 7
    case boxing = 8
    case climbing = 9
    case cricket = 10
    case crossTraining = 11
    case curling = 12
    case cycling = 13
    case dance = 14
    case danceInspiredTraining = 15
    case elliptical = 16
    case equestrianSports = 17
    case fencing = 18
    case fishing = 19
    case functionalStrengthTraining = 20
    case golf = 21
    case gymnastics = 22
    case handball = 23
    case hiking = 24
    case hockey = 25
    case hunting = 26
    case lacrosse = 27
    case martialArts = 28
    case mindAndBody = 29
    case mixedMetabolicCardioTraining = 30
    case paddleSports = 31
    case play = 32
    case preparationAndRecovery = 33
    case racquetball = 34
    case rowing = 35
    case rugby = 36
    case running = 37
    case sailing = 38
    case skatingSports = 39
    case snowSports = 40
    case soccer = 41
    case softball = 42
    case squash = 43
    case stairClimbing = 44
    case surfingSports = 45
    case swimming = 46
    case tableTennis = 47
    case tennis = 48
    case trackAndField = 49
    case traditionalStrengthTraining = 50
    case volleyball = 51
    case walking = 52
    case waterFitness = 53
    case waterPolo = 54
    case waterSports = 55
    case wrestling = 56
    case yoga = 57
    case barre = 58
    case coreTraining = 59
    case crossCountrySkiing = 60
    case downhillSkiing = 61
    case flexibility = 62
    case highIntensityIntervalTraining = 63
    case jumpRope = 64
    case kickboxing = 65
    case pilates = 66
    case snowboarding = 67
    case stairs = 68
    case stepTraining = 69
    case wheelchairWalkPace = 70
    case wheelchairRunPace = 71
    case taiChi = 72
    case mixedCardio = 73
    case handCycling = 74
    case discSports = 75
    case fitnessGaming = 76
    case cardioDance = 77
    case socialDance = 78
    case pickleball = 79
    case cooldown = 80
    case swimBikeRun = 82
    case transition = 83
    case underwaterDiving = 84
    case other = 3000
}

extension HKWorkoutActivityType {
    /// The activity's name in PairSim's logs and commands.
    var coreName: String {
        switch self {
        case .highIntensityIntervalTraining: "hiit"
        case .traditionalStrengthTraining: "strength"
        default: String(describing: self)
        }
    }

    /// The activity PairSim's name stands for (`.other` for a name HealthKit does not have).
    init(coreName: String) {
        self = Self.byCoreName[coreName] ?? .other
    }

    /// Every activity by its case name, and PairSim's `hiit` and `strength`, made once: describing
    /// each case until one matched took ~2.5 % of CPU in a debug swarm (every workout an app reads
    /// is named this way).
    private static let byCoreName = Dictionary(uniqueKeysWithValues: allCases.map { (String(describing: $0), $0) })
        .merging(["hiit": .highIntensityIntervalTraining, "strength": .traditionalStrengthTraining]) { $1 }
}
