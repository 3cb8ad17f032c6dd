"""The runners of one process: a stage as one call (``sequential``), and
the fast engine's one pass of ingest, extract and build (``stream``)."""
