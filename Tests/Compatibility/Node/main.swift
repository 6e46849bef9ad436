import CompatSwift5
import CompatSwift6
import PairSimNode

// `pairsim-compat` serves as a phone node (or plays a scenario: `pairsim-compat simulate FILE`)
// with the source-compatibility suite's apps (Tests/Compatibility).
PairSimNodeMain.main(apps: Swift5CompatApps.all + Swift6CompatApps.all)
