import PairSimNode

// `topology`: its subcommands live in PairSimNode, so a developer's own executable offers them too.
TopologyCommand.main()
