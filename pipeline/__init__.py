"""The staged jobs of joseki-miner: ingest -> extract -> build -> prune ->
emit.  Each stage reads the previous stage's files (named in ``catalog``),
calls the package and writes its own; ``run`` skips a stage whose inputs and
parameters have not changed since it last ran."""
