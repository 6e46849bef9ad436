import PairSimRuntime

WatchNodeCommand.start()
