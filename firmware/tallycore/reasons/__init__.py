# The words of the reasons a score is given (tallycore.why): one module per
# rules module, named after it, each with REASONS = ((code, clause, words),
# ...), the clause and words as bytes, each row keyed by the rules module's
# reason code it carries, so a row added anywhere renumbers no other reason
# (tallycore.why.reason finds a code's row). Imported only when a
# reason is composed (tallycore.why), so the words take no heap while a game
# is scored.
