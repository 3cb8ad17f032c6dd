"""The compiled engine and its tables: numba kernels for phase 1, the
compiled trie, duplicate fingerprints, the SGF scanner, Arrow and Parquet
columns built from buffers, memory-mapped tables."""
