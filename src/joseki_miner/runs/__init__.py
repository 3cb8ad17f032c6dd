"""What keeps runs trusted: the catalog of stage files, cache keys,
manifests and atomic commits, the folders' lock, stops, input digests,
config, remote inputs and outputs, the checks before a run."""
