import Foundation

// HealthKit's type identifiers as Apple's iOS 18 SDK spells them (HKTypeIdentifiers.h, HKClinicalType.h),
// with each quantity type's aggregation style and the unit its header comment gives.

extension HKQuantityTypeIdentifier {
    public static let appleSleepingWristTemperature = Self("HKQuantityTypeIdentifierAppleSleepingWristTemperature")
    public static let bodyFatPercentage = Self("HKQuantityTypeIdentifierBodyFatPercentage")
    public static let bodyMass = Self("HKQuantityTypeIdentifierBodyMass")
    public static let bodyMassIndex = Self("HKQuantityTypeIdentifierBodyMassIndex")
    public static let electrodermalActivity = Self("HKQuantityTypeIdentifierElectrodermalActivity")
    public static let height = Self("HKQuantityTypeIdentifierHeight")
    public static let leanBodyMass = Self("HKQuantityTypeIdentifierLeanBodyMass")
    public static let waistCircumference = Self("HKQuantityTypeIdentifierWaistCircumference")
    public static let activeEnergyBurned = Self("HKQuantityTypeIdentifierActiveEnergyBurned")
    public static let appleExerciseTime = Self("HKQuantityTypeIdentifierAppleExerciseTime")
    public static let appleMoveTime = Self("HKQuantityTypeIdentifierAppleMoveTime")
    public static let appleStandTime = Self("HKQuantityTypeIdentifierAppleStandTime")
    public static let basalEnergyBurned = Self("HKQuantityTypeIdentifierBasalEnergyBurned")
    public static let crossCountrySkiingSpeed = Self("HKQuantityTypeIdentifierCrossCountrySkiingSpeed")
    public static let cyclingCadence = Self("HKQuantityTypeIdentifierCyclingCadence")
    public static let cyclingFunctionalThresholdPower = Self("HKQuantityTypeIdentifierCyclingFunctionalThresholdPower")
    public static let cyclingPower = Self("HKQuantityTypeIdentifierCyclingPower")
    public static let cyclingSpeed = Self("HKQuantityTypeIdentifierCyclingSpeed")
    public static let distanceCrossCountrySkiing = Self("HKQuantityTypeIdentifierDistanceCrossCountrySkiing")
    public static let distanceCycling = Self("HKQuantityTypeIdentifierDistanceCycling")
    public static let distanceDownhillSnowSports = Self("HKQuantityTypeIdentifierDistanceDownhillSnowSports")
    public static let distancePaddleSports = Self("HKQuantityTypeIdentifierDistancePaddleSports")
    public static let distanceRowing = Self("HKQuantityTypeIdentifierDistanceRowing")
    public static let distanceSkatingSports = Self("HKQuantityTypeIdentifierDistanceSkatingSports")
    public static let distanceSwimming = Self("HKQuantityTypeIdentifierDistanceSwimming")
    public static let distanceWalkingRunning = Self("HKQuantityTypeIdentifierDistanceWalkingRunning")
    public static let distanceWheelchair = Self("HKQuantityTypeIdentifierDistanceWheelchair")
    public static let estimatedWorkoutEffortScore = Self("HKQuantityTypeIdentifierEstimatedWorkoutEffortScore")
    public static let flightsClimbed = Self("HKQuantityTypeIdentifierFlightsClimbed")
    public static let nikeFuel = Self("HKQuantityTypeIdentifierNikeFuel")
    public static let paddleSportsSpeed = Self("HKQuantityTypeIdentifierPaddleSportsSpeed")
    public static let physicalEffort = Self("HKQuantityTypeIdentifierPhysicalEffort")
    public static let pushCount = Self("HKQuantityTypeIdentifierPushCount")
    public static let rowingSpeed = Self("HKQuantityTypeIdentifierRowingSpeed")
    public static let runningPower = Self("HKQuantityTypeIdentifierRunningPower")
    public static let runningSpeed = Self("HKQuantityTypeIdentifierRunningSpeed")
    public static let stepCount = Self("HKQuantityTypeIdentifierStepCount")
    public static let swimmingStrokeCount = Self("HKQuantityTypeIdentifierSwimmingStrokeCount")
    public static let underwaterDepth = Self("HKQuantityTypeIdentifierUnderwaterDepth")
    public static let workoutEffortScore = Self("HKQuantityTypeIdentifierWorkoutEffortScore")
    public static let environmentalAudioExposure = Self("HKQuantityTypeIdentifierEnvironmentalAudioExposure")
    public static let environmentalSoundReduction = Self("HKQuantityTypeIdentifierEnvironmentalSoundReduction")
    public static let headphoneAudioExposure = Self("HKQuantityTypeIdentifierHeadphoneAudioExposure")
    public static let atrialFibrillationBurden = Self("HKQuantityTypeIdentifierAtrialFibrillationBurden")
    public static let heartRate = Self("HKQuantityTypeIdentifierHeartRate")
    public static let heartRateRecoveryOneMinute = Self("HKQuantityTypeIdentifierHeartRateRecoveryOneMinute")
    public static let heartRateVariabilitySDNN = Self("HKQuantityTypeIdentifierHeartRateVariabilitySDNN")
    public static let peripheralPerfusionIndex = Self("HKQuantityTypeIdentifierPeripheralPerfusionIndex")
    public static let restingHeartRate = Self("HKQuantityTypeIdentifierRestingHeartRate")
    public static let vo2Max = Self("HKQuantityTypeIdentifierVO2Max")
    public static let walkingHeartRateAverage = Self("HKQuantityTypeIdentifierWalkingHeartRateAverage")
    public static let appleWalkingSteadiness = Self("HKQuantityTypeIdentifierAppleWalkingSteadiness")
    public static let runningGroundContactTime = Self("HKQuantityTypeIdentifierRunningGroundContactTime")
    public static let runningStrideLength = Self("HKQuantityTypeIdentifierRunningStrideLength")
    public static let runningVerticalOscillation = Self("HKQuantityTypeIdentifierRunningVerticalOscillation")
    public static let sixMinuteWalkTestDistance = Self("HKQuantityTypeIdentifierSixMinuteWalkTestDistance")
    public static let stairAscentSpeed = Self("HKQuantityTypeIdentifierStairAscentSpeed")
    public static let stairDescentSpeed = Self("HKQuantityTypeIdentifierStairDescentSpeed")
    public static let walkingAsymmetryPercentage = Self("HKQuantityTypeIdentifierWalkingAsymmetryPercentage")
    public static let walkingDoubleSupportPercentage = Self("HKQuantityTypeIdentifierWalkingDoubleSupportPercentage")
    public static let walkingSpeed = Self("HKQuantityTypeIdentifierWalkingSpeed")
    public static let walkingStepLength = Self("HKQuantityTypeIdentifierWalkingStepLength")
    public static let dietaryBiotin = Self("HKQuantityTypeIdentifierDietaryBiotin")
    public static let dietaryCaffeine = Self("HKQuantityTypeIdentifierDietaryCaffeine")
    public static let dietaryCalcium = Self("HKQuantityTypeIdentifierDietaryCalcium")
    public static let dietaryCarbohydrates = Self("HKQuantityTypeIdentifierDietaryCarbohydrates")
    public static let dietaryChloride = Self("HKQuantityTypeIdentifierDietaryChloride")
    public static let dietaryCholesterol = Self("HKQuantityTypeIdentifierDietaryCholesterol")
    public static let dietaryChromium = Self("HKQuantityTypeIdentifierDietaryChromium")
    public static let dietaryCopper = Self("HKQuantityTypeIdentifierDietaryCopper")
    public static let dietaryEnergyConsumed = Self("HKQuantityTypeIdentifierDietaryEnergyConsumed")
    public static let dietaryFatMonounsaturated = Self("HKQuantityTypeIdentifierDietaryFatMonounsaturated")
    public static let dietaryFatPolyunsaturated = Self("HKQuantityTypeIdentifierDietaryFatPolyunsaturated")
    public static let dietaryFatSaturated = Self("HKQuantityTypeIdentifierDietaryFatSaturated")
    public static let dietaryFatTotal = Self("HKQuantityTypeIdentifierDietaryFatTotal")
    public static let dietaryFiber = Self("HKQuantityTypeIdentifierDietaryFiber")
    public static let dietaryFolate = Self("HKQuantityTypeIdentifierDietaryFolate")
    public static let dietaryIodine = Self("HKQuantityTypeIdentifierDietaryIodine")
    public static let dietaryIron = Self("HKQuantityTypeIdentifierDietaryIron")
    public static let dietaryMagnesium = Self("HKQuantityTypeIdentifierDietaryMagnesium")
    public static let dietaryManganese = Self("HKQuantityTypeIdentifierDietaryManganese")
    public static let dietaryMolybdenum = Self("HKQuantityTypeIdentifierDietaryMolybdenum")
    public static let dietaryNiacin = Self("HKQuantityTypeIdentifierDietaryNiacin")
    public static let dietaryPantothenicAcid = Self("HKQuantityTypeIdentifierDietaryPantothenicAcid")
    public static let dietaryPhosphorus = Self("HKQuantityTypeIdentifierDietaryPhosphorus")
    public static let dietaryPotassium = Self("HKQuantityTypeIdentifierDietaryPotassium")
    public static let dietaryProtein = Self("HKQuantityTypeIdentifierDietaryProtein")
    public static let dietaryRiboflavin = Self("HKQuantityTypeIdentifierDietaryRiboflavin")
    public static let dietarySelenium = Self("HKQuantityTypeIdentifierDietarySelenium")
    public static let dietarySodium = Self("HKQuantityTypeIdentifierDietarySodium")
    public static let dietarySugar = Self("HKQuantityTypeIdentifierDietarySugar")
    public static let dietaryThiamin = Self("HKQuantityTypeIdentifierDietaryThiamin")
    public static let dietaryVitaminA = Self("HKQuantityTypeIdentifierDietaryVitaminA")
    public static let dietaryVitaminB12 = Self("HKQuantityTypeIdentifierDietaryVitaminB12")
    public static let dietaryVitaminB6 = Self("HKQuantityTypeIdentifierDietaryVitaminB6")
    public static let dietaryVitaminC = Self("HKQuantityTypeIdentifierDietaryVitaminC")
    public static let dietaryVitaminD = Self("HKQuantityTypeIdentifierDietaryVitaminD")
    public static let dietaryVitaminE = Self("HKQuantityTypeIdentifierDietaryVitaminE")
    public static let dietaryVitaminK = Self("HKQuantityTypeIdentifierDietaryVitaminK")
    public static let dietaryWater = Self("HKQuantityTypeIdentifierDietaryWater")
    public static let dietaryZinc = Self("HKQuantityTypeIdentifierDietaryZinc")
    public static let bloodAlcoholContent = Self("HKQuantityTypeIdentifierBloodAlcoholContent")
    public static let bloodPressureDiastolic = Self("HKQuantityTypeIdentifierBloodPressureDiastolic")
    public static let bloodPressureSystolic = Self("HKQuantityTypeIdentifierBloodPressureSystolic")
    public static let insulinDelivery = Self("HKQuantityTypeIdentifierInsulinDelivery")
    public static let numberOfAlcoholicBeverages = Self("HKQuantityTypeIdentifierNumberOfAlcoholicBeverages")
    public static let numberOfTimesFallen = Self("HKQuantityTypeIdentifierNumberOfTimesFallen")
    public static let timeInDaylight = Self("HKQuantityTypeIdentifierTimeInDaylight")
    public static let uvExposure = Self("HKQuantityTypeIdentifierUVExposure")
    public static let waterTemperature = Self("HKQuantityTypeIdentifierWaterTemperature")
    public static let basalBodyTemperature = Self("HKQuantityTypeIdentifierBasalBodyTemperature")
    public static let appleSleepingBreathingDisturbances = Self("HKQuantityTypeIdentifierAppleSleepingBreathingDisturbances")
    public static let forcedExpiratoryVolume1 = Self("HKQuantityTypeIdentifierForcedExpiratoryVolume1")
    public static let forcedVitalCapacity = Self("HKQuantityTypeIdentifierForcedVitalCapacity")
    public static let inhalerUsage = Self("HKQuantityTypeIdentifierInhalerUsage")
    public static let oxygenSaturation = Self("HKQuantityTypeIdentifierOxygenSaturation")
    public static let peakExpiratoryFlowRate = Self("HKQuantityTypeIdentifierPeakExpiratoryFlowRate")
    public static let respiratoryRate = Self("HKQuantityTypeIdentifierRespiratoryRate")
    public static let bloodGlucose = Self("HKQuantityTypeIdentifierBloodGlucose")
    public static let bodyTemperature = Self("HKQuantityTypeIdentifierBodyTemperature")

    /// Aggregation style and the unit HealthKit's header documents, by raw value.
    static let traits: [String: (style: HKQuantityAggregationStyle, unit: String)] = [
        "HKQuantityTypeIdentifierAppleSleepingWristTemperature": (.discreteArithmetic, "degC"),
        "HKQuantityTypeIdentifierBodyFatPercentage": (.discreteArithmetic, "%"),
        "HKQuantityTypeIdentifierBodyMass": (.discreteArithmetic, "kg"),
        "HKQuantityTypeIdentifierBodyMassIndex": (.discreteArithmetic, "count"),
        "HKQuantityTypeIdentifierElectrodermalActivity": (.discreteArithmetic, "S"),
        "HKQuantityTypeIdentifierHeight": (.discreteArithmetic, "m"),
        "HKQuantityTypeIdentifierLeanBodyMass": (.discreteArithmetic, "kg"),
        "HKQuantityTypeIdentifierWaistCircumference": (.discreteArithmetic, "m"),
        "HKQuantityTypeIdentifierActiveEnergyBurned": (.cumulative, "kcal"),
        "HKQuantityTypeIdentifierAppleExerciseTime": (.cumulative, "min"),
        "HKQuantityTypeIdentifierAppleMoveTime": (.cumulative, "min"),
        "HKQuantityTypeIdentifierAppleStandTime": (.cumulative, "min"),
        "HKQuantityTypeIdentifierBasalEnergyBurned": (.cumulative, "kcal"),
        "HKQuantityTypeIdentifierCrossCountrySkiingSpeed": (.discreteArithmetic, "m/s"),
        "HKQuantityTypeIdentifierCyclingCadence": (.discreteArithmetic, "count/min"),
        "HKQuantityTypeIdentifierCyclingFunctionalThresholdPower": (.discreteArithmetic, "W"),
        "HKQuantityTypeIdentifierCyclingPower": (.discreteArithmetic, "W"),
        "HKQuantityTypeIdentifierCyclingSpeed": (.discreteArithmetic, "m/s"),
        "HKQuantityTypeIdentifierDistanceCrossCountrySkiing": (.cumulative, "m"),
        "HKQuantityTypeIdentifierDistanceCycling": (.cumulative, "m"),
        "HKQuantityTypeIdentifierDistanceDownhillSnowSports": (.cumulative, "m"),
        "HKQuantityTypeIdentifierDistancePaddleSports": (.cumulative, "m"),
        "HKQuantityTypeIdentifierDistanceRowing": (.cumulative, "m"),
        "HKQuantityTypeIdentifierDistanceSkatingSports": (.cumulative, "m"),
        "HKQuantityTypeIdentifierDistanceSwimming": (.cumulative, "m"),
        "HKQuantityTypeIdentifierDistanceWalkingRunning": (.cumulative, "m"),
        "HKQuantityTypeIdentifierDistanceWheelchair": (.cumulative, "m"),
        "HKQuantityTypeIdentifierEstimatedWorkoutEffortScore": (.discreteArithmetic, "appleEffortScore"),
        "HKQuantityTypeIdentifierFlightsClimbed": (.cumulative, "count"),
        "HKQuantityTypeIdentifierNikeFuel": (.cumulative, "count"),
        "HKQuantityTypeIdentifierPaddleSportsSpeed": (.discreteArithmetic, "m/s"),
        "HKQuantityTypeIdentifierPhysicalEffort": (.discreteArithmetic, "kcal/(kg*hr)"),
        "HKQuantityTypeIdentifierPushCount": (.cumulative, "count"),
        "HKQuantityTypeIdentifierRowingSpeed": (.discreteArithmetic, "m/s"),
        "HKQuantityTypeIdentifierRunningPower": (.discreteArithmetic, "W"),
        "HKQuantityTypeIdentifierRunningSpeed": (.discreteArithmetic, "m/s"),
        "HKQuantityTypeIdentifierStepCount": (.cumulative, "count"),
        "HKQuantityTypeIdentifierSwimmingStrokeCount": (.cumulative, "count"),
        "HKQuantityTypeIdentifierUnderwaterDepth": (.discreteArithmetic, "m"),
        "HKQuantityTypeIdentifierWorkoutEffortScore": (.discreteArithmetic, "appleEffortScore"),
        "HKQuantityTypeIdentifierEnvironmentalAudioExposure": (.discreteEquivalentContinuousLevel, "dBASPL"),
        "HKQuantityTypeIdentifierEnvironmentalSoundReduction": (.discreteEquivalentContinuousLevel, "dBASPL"),
        "HKQuantityTypeIdentifierHeadphoneAudioExposure": (.discreteEquivalentContinuousLevel, "dBASPL"),
        "HKQuantityTypeIdentifierAtrialFibrillationBurden": (.discreteTemporallyWeighted, "%"),
        "HKQuantityTypeIdentifierHeartRate": (.discreteTemporallyWeighted, "count/s"),
        "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute": (.discreteArithmetic, "count/min"),
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": (.discreteArithmetic, "ms"),
        "HKQuantityTypeIdentifierPeripheralPerfusionIndex": (.discreteArithmetic, "%"),
        "HKQuantityTypeIdentifierRestingHeartRate": (.discreteArithmetic, "count/min"),
        "HKQuantityTypeIdentifierVO2Max": (.discreteArithmetic, "ml/(kg*min)"),
        "HKQuantityTypeIdentifierWalkingHeartRateAverage": (.discreteArithmetic, "count/min"),
        "HKQuantityTypeIdentifierAppleWalkingSteadiness": (.discreteArithmetic, "%"),
        "HKQuantityTypeIdentifierRunningGroundContactTime": (.discreteArithmetic, "ms"),
        "HKQuantityTypeIdentifierRunningStrideLength": (.discreteArithmetic, "m"),
        "HKQuantityTypeIdentifierRunningVerticalOscillation": (.discreteArithmetic, "cm"),
        "HKQuantityTypeIdentifierSixMinuteWalkTestDistance": (.discreteArithmetic, "m"),
        "HKQuantityTypeIdentifierStairAscentSpeed": (.discreteArithmetic, "m/s"),
        "HKQuantityTypeIdentifierStairDescentSpeed": (.discreteArithmetic, "m/s"),
        "HKQuantityTypeIdentifierWalkingAsymmetryPercentage": (.discreteArithmetic, "%"),
        "HKQuantityTypeIdentifierWalkingDoubleSupportPercentage": (.discreteArithmetic, "%"),
        "HKQuantityTypeIdentifierWalkingSpeed": (.discreteArithmetic, "m/s"),
        "HKQuantityTypeIdentifierWalkingStepLength": (.discreteArithmetic, "m"),
        "HKQuantityTypeIdentifierDietaryBiotin": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryCaffeine": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryCalcium": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryCarbohydrates": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryChloride": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryCholesterol": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryChromium": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryCopper": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryEnergyConsumed": (.cumulative, "kcal"),
        "HKQuantityTypeIdentifierDietaryFatMonounsaturated": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryFatPolyunsaturated": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryFatSaturated": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryFatTotal": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryFiber": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryFolate": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryIodine": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryIron": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryMagnesium": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryManganese": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryMolybdenum": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryNiacin": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryPantothenicAcid": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryPhosphorus": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryPotassium": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryProtein": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryRiboflavin": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietarySelenium": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietarySodium": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietarySugar": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryThiamin": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryVitaminA": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryVitaminB12": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryVitaminB6": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryVitaminC": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryVitaminD": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryVitaminE": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryVitaminK": (.cumulative, "g"),
        "HKQuantityTypeIdentifierDietaryWater": (.cumulative, "mL"),
        "HKQuantityTypeIdentifierDietaryZinc": (.cumulative, "g"),
        "HKQuantityTypeIdentifierBloodAlcoholContent": (.discreteArithmetic, "%"),
        "HKQuantityTypeIdentifierBloodPressureDiastolic": (.discreteArithmetic, "mmHg"),
        "HKQuantityTypeIdentifierBloodPressureSystolic": (.discreteArithmetic, "mmHg"),
        "HKQuantityTypeIdentifierInsulinDelivery": (.cumulative, "IU"),
        "HKQuantityTypeIdentifierNumberOfAlcoholicBeverages": (.cumulative, "count"),
        "HKQuantityTypeIdentifierNumberOfTimesFallen": (.cumulative, "count"),
        "HKQuantityTypeIdentifierTimeInDaylight": (.cumulative, "min"),
        "HKQuantityTypeIdentifierUVExposure": (.discreteArithmetic, "count"),
        "HKQuantityTypeIdentifierWaterTemperature": (.discreteArithmetic, "degC"),
        "HKQuantityTypeIdentifierBasalBodyTemperature": (.discreteArithmetic, "degC"),
        "HKQuantityTypeIdentifierAppleSleepingBreathingDisturbances": (.discreteArithmetic, "count"),
        "HKQuantityTypeIdentifierForcedExpiratoryVolume1": (.discreteArithmetic, "L"),
        "HKQuantityTypeIdentifierForcedVitalCapacity": (.discreteArithmetic, "L"),
        "HKQuantityTypeIdentifierInhalerUsage": (.cumulative, "count"),
        "HKQuantityTypeIdentifierOxygenSaturation": (.discreteArithmetic, "%"),
        "HKQuantityTypeIdentifierPeakExpiratoryFlowRate": (.discreteArithmetic, "L/min"),
        "HKQuantityTypeIdentifierRespiratoryRate": (.discreteArithmetic, "count/s"),
        "HKQuantityTypeIdentifierBloodGlucose": (.discreteArithmetic, "mg/dL"),
        "HKQuantityTypeIdentifierBodyTemperature": (.discreteArithmetic, "degC"),
    ]
}

extension HKCategoryTypeIdentifier {
    public static let appleStandHour = Self("HKCategoryTypeIdentifierAppleStandHour")
    public static let environmentalAudioExposureEvent = Self("HKCategoryTypeIdentifierAudioExposureEvent")
    public static let headphoneAudioExposureEvent = Self("HKCategoryTypeIdentifierHeadphoneAudioExposureEvent")
    public static let highHeartRateEvent = Self("HKCategoryTypeIdentifierHighHeartRateEvent")
    public static let irregularHeartRhythmEvent = Self("HKCategoryTypeIdentifierIrregularHeartRhythmEvent")
    public static let lowCardioFitnessEvent = Self("HKCategoryTypeIdentifierLowCardioFitnessEvent")
    public static let lowHeartRateEvent = Self("HKCategoryTypeIdentifierLowHeartRateEvent")
    public static let mindfulSession = Self("HKCategoryTypeIdentifierMindfulSession")
    public static let appleWalkingSteadinessEvent = Self("HKCategoryTypeIdentifierAppleWalkingSteadinessEvent")
    public static let handwashingEvent = Self("HKCategoryTypeIdentifierHandwashingEvent")
    public static let toothbrushingEvent = Self("HKCategoryTypeIdentifierToothbrushingEvent")
    public static let bleedingAfterPregnancy = Self("HKCategoryTypeIdentifierBleedingAfterPregnancy")
    public static let bleedingDuringPregnancy = Self("HKCategoryTypeIdentifierBleedingDuringPregnancy")
    public static let cervicalMucusQuality = Self("HKCategoryTypeIdentifierCervicalMucusQuality")
    public static let contraceptive = Self("HKCategoryTypeIdentifierContraceptive")
    public static let infrequentMenstrualCycles = Self("HKCategoryTypeIdentifierInfrequentMenstrualCycles")
    public static let intermenstrualBleeding = Self("HKCategoryTypeIdentifierIntermenstrualBleeding")
    public static let irregularMenstrualCycles = Self("HKCategoryTypeIdentifierIrregularMenstrualCycles")
    public static let lactation = Self("HKCategoryTypeIdentifierLactation")
    public static let menstrualFlow = Self("HKCategoryTypeIdentifierMenstrualFlow")
    public static let ovulationTestResult = Self("HKCategoryTypeIdentifierOvulationTestResult")
    public static let persistentIntermenstrualBleeding = Self("HKCategoryTypeIdentifierPersistentIntermenstrualBleeding")
    public static let pregnancy = Self("HKCategoryTypeIdentifierPregnancy")
    public static let pregnancyTestResult = Self("HKCategoryTypeIdentifierPregnancyTestResult")
    public static let progesteroneTestResult = Self("HKCategoryTypeIdentifierProgesteroneTestResult")
    public static let prolongedMenstrualPeriods = Self("HKCategoryTypeIdentifierProlongedMenstrualPeriods")
    public static let sexualActivity = Self("HKCategoryTypeIdentifierSexualActivity")
    public static let sleepApneaEvent = Self("HKCategoryTypeIdentifierSleepApneaEvent")
    public static let sleepAnalysis = Self("HKCategoryTypeIdentifierSleepAnalysis")
    public static let abdominalCramps = Self("HKCategoryTypeIdentifierAbdominalCramps")
    public static let acne = Self("HKCategoryTypeIdentifierAcne")
    public static let appetiteChanges = Self("HKCategoryTypeIdentifierAppetiteChanges")
    public static let bladderIncontinence = Self("HKCategoryTypeIdentifierBladderIncontinence")
    public static let bloating = Self("HKCategoryTypeIdentifierBloating")
    public static let breastPain = Self("HKCategoryTypeIdentifierBreastPain")
    public static let chestTightnessOrPain = Self("HKCategoryTypeIdentifierChestTightnessOrPain")
    public static let chills = Self("HKCategoryTypeIdentifierChills")
    public static let constipation = Self("HKCategoryTypeIdentifierConstipation")
    public static let coughing = Self("HKCategoryTypeIdentifierCoughing")
    public static let diarrhea = Self("HKCategoryTypeIdentifierDiarrhea")
    public static let dizziness = Self("HKCategoryTypeIdentifierDizziness")
    public static let drySkin = Self("HKCategoryTypeIdentifierDrySkin")
    public static let fainting = Self("HKCategoryTypeIdentifierFainting")
    public static let fatigue = Self("HKCategoryTypeIdentifierFatigue")
    public static let fever = Self("HKCategoryTypeIdentifierFever")
    public static let generalizedBodyAche = Self("HKCategoryTypeIdentifierGeneralizedBodyAche")
    public static let hairLoss = Self("HKCategoryTypeIdentifierHairLoss")
    public static let headache = Self("HKCategoryTypeIdentifierHeadache")
    public static let heartburn = Self("HKCategoryTypeIdentifierHeartburn")
    public static let hotFlashes = Self("HKCategoryTypeIdentifierHotFlashes")
    public static let lossOfSmell = Self("HKCategoryTypeIdentifierLossOfSmell")
    public static let lossOfTaste = Self("HKCategoryTypeIdentifierLossOfTaste")
    public static let lowerBackPain = Self("HKCategoryTypeIdentifierLowerBackPain")
    public static let memoryLapse = Self("HKCategoryTypeIdentifierMemoryLapse")
    public static let moodChanges = Self("HKCategoryTypeIdentifierMoodChanges")
    public static let nausea = Self("HKCategoryTypeIdentifierNausea")
    public static let nightSweats = Self("HKCategoryTypeIdentifierNightSweats")
    public static let pelvicPain = Self("HKCategoryTypeIdentifierPelvicPain")
    public static let rapidPoundingOrFlutteringHeartbeat = Self("HKCategoryTypeIdentifierRapidPoundingOrFlutteringHeartbeat")
    public static let runnyNose = Self("HKCategoryTypeIdentifierRunnyNose")
    public static let shortnessOfBreath = Self("HKCategoryTypeIdentifierShortnessOfBreath")
    public static let sinusCongestion = Self("HKCategoryTypeIdentifierSinusCongestion")
    public static let skippedHeartbeat = Self("HKCategoryTypeIdentifierSkippedHeartbeat")
    public static let sleepChanges = Self("HKCategoryTypeIdentifierSleepChanges")
    public static let soreThroat = Self("HKCategoryTypeIdentifierSoreThroat")
    public static let vaginalDryness = Self("HKCategoryTypeIdentifierVaginalDryness")
    public static let vomiting = Self("HKCategoryTypeIdentifierVomiting")
    public static let wheezing = Self("HKCategoryTypeIdentifierWheezing")
    public static let audioExposureEvent = Self("HKCategoryTypeIdentifierAudioExposureEvent")
}

extension HKCharacteristicTypeIdentifier {
    public static let activityMoveMode = Self("HKCharacteristicTypeIdentifierActivityMoveMode")
    public static let biologicalSex = Self("HKCharacteristicTypeIdentifierBiologicalSex")
    public static let bloodType = Self("HKCharacteristicTypeIdentifierBloodType")
    public static let dateOfBirth = Self("HKCharacteristicTypeIdentifierDateOfBirth")
    public static let fitzpatrickSkinType = Self("HKCharacteristicTypeIdentifierFitzpatrickSkinType")
    public static let wheelchairUse = Self("HKCharacteristicTypeIdentifierWheelchairUse")
}

extension HKCorrelationTypeIdentifier {
    public static let bloodPressure = Self("HKCorrelationTypeIdentifierBloodPressure")
    public static let food = Self("HKCorrelationTypeIdentifierFood")
}

extension HKClinicalTypeIdentifier {
    public static let allergyRecord = Self("HKClinicalTypeIdentifierAllergyRecord")
    public static let clinicalNoteRecord = Self("HKClinicalTypeIdentifierClinicalNoteRecord")
    public static let conditionRecord = Self("HKClinicalTypeIdentifierConditionRecord")
    public static let immunizationRecord = Self("HKClinicalTypeIdentifierImmunizationRecord")
    public static let labResultRecord = Self("HKClinicalTypeIdentifierLabResultRecord")
    public static let medicationRecord = Self("HKClinicalTypeIdentifierMedicationRecord")
    public static let procedureRecord = Self("HKClinicalTypeIdentifierProcedureRecord")
    public static let vitalSignRecord = Self("HKClinicalTypeIdentifierVitalSignRecord")
    public static let coverageRecord = Self("HKClinicalTypeIdentifierCoverageRecord")
}

extension HKDocumentTypeIdentifier {
    public static let CDA = Self("HKDocumentTypeIdentifierCDA")
}

public let HKWorkoutTypeIdentifier = "HKWorkoutTypeIdentifier"
public let HKWorkoutRouteTypeIdentifier = "HKWorkoutRouteTypeIdentifier"
public let HKDataTypeIdentifierHeartbeatSeries = "HKDataTypeIdentifierHeartbeatSeries"
public let HKVisionPrescriptionTypeIdentifier = "HKVisionPrescriptionTypeIdentifier"
public let HKDataTypeIdentifierStateOfMind = "HKDataTypeStateOfMind"
