import CompatSwift5
import CompatSwift6
import PairSimKit
import PairSimNode
import WorkoutWatchApp

// `pairsim-compat` is both nodes and every `topology` subcommand (`pairsim-compat simulate FILE`)
// with the source-compatibility suite's apps (Tests/Compatibility), and a deliberately broken
// watch app for the end-to-end tests: workout-watch calling finishWorkout() before endCollection.
let brokenWorkoutWatch = AppRegistration(name: "workout-watch-broken", summary: "workout-watch with the bug of finishing before endCollection",
                                         actions: WorkoutWatchApp.actions, makeWatchApp: { WorkoutWatchApp(endsCollectionFirst: false) })
PairSimNodeMain.main(apps: Swift5CompatApps.all + Swift6CompatApps.all + [brokenWorkoutWatch])
