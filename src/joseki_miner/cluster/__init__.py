"""The dask engine: the runner that runs the stages on a dask cluster
(``runner``), the partitions of the inputs its workers mine and join into
the stage files (``partitions``), and the cluster it runs on (``client``)."""
