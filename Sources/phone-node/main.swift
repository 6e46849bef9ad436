import PairSimRuntime

PhoneNodeCommand.start()
