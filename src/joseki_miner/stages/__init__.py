"""Each stage's work on files (ingest, extract, build, prune, emit, the
report), called with a run's ``Context`` (``runs.context``) by whichever
runner runs it; ``params`` says the method's rules for a config, ``orders``
counts merged move orders' games."""
