# The words of the reasons a score is given (tallycore.why): one module per
# rules module, named after it, each with REASONS = ((clause, words), ...)
# as bytes, indexed by the rules module's reason codes. Imported only when a
# reason is composed (tallycore.why), so the words take no heap while a game
# is scored.
