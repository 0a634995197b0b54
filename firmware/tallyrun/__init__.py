# The board runtime: the protocol loop, the journal, the configuration.
