import PairSimRuntime

await PhoneNodeCommand.start()
