"""The stages' work at scale: ingest, extract, build and prune on files,
the fast engine's one pass (``stream``), and the dask engine (``dask``,
``partitions``, ``cluster``)."""
