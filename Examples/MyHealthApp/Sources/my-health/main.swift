import MyHealthApp
import MyWatchApp
import PairSimNode

// One executable for both halves: `my-health simulate|run|swarm|… FILE` plays a scenario with them
// (every `topology` subcommand is here), and the nodes it starts are this same binary
// (`my-health watch-node …`, `my-health phone-node …`).
PairSimNodeMain.main(apps: [MyHealthApp.registration, MyWatchApp.registration])
