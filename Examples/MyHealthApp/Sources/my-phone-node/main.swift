import MyHealthApp
import PairSimNode

// `my-phone-node --topology FILE …` runs a phone node with MyHealthApp (and PairSim's own apps);
// `my-phone-node simulate FILE …` plays a scenario in the simulator with it.
PairSimNodeMain.main(apps: [MyHealthApp.registration])
