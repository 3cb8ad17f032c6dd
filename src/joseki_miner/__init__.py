"""Mine joseki from Go game records (M. Helvensteijn, "Applying data mining to
the study of joseki", 2007).

Conventions used everywhere inside the package (converted only at the edges,
in the readers and writers):

* A point is an int ``row * 19 + col``: rows and columns count from 0 at the
  top-left corner, as in SGF (SGF ``"dc"`` is column d=3, row c=2, point 41).
* ``PASS`` (-1) is a pass in a game record; ``TENUKI`` (361) is the trie key of
  "the other side played elsewhere" inside a corner sequence.
* Colours are the board values of the thesis (section 8): ``BLACK = -1``,
  ``WHITE = +1``, ``EMPTY = 0``.  Swapping colours is negation.
* Directions are ``UP, RIGHT, DOWN, LEFT`` (0..3) in board space.

The subpackages, each layer importing only those below it (pyproject.toml's
import-linter contracts; docs/architecture.md):

* ``runners``: the runners of one process (a stage as one call; the fast
  engine's one pass of ingest, extract and build); ``cluster``: the dask
  engine (its runner, the partitions its workers mine, the cluster);
* ``stages``: each stage's work on files, given a run's context;
* ``book``: what a player reads (words, diagrams, SGF and DOT, the report,
  lookups);
* ``readers``: the input edge (SGF, kifu, Ishi, archives, the demo);
* ``fast``: the compiled engine and its tables;
* ``method``: the thesis, the reference engine; ``runs``: what keeps runs
  trusted (manifests and commits, the lock, stops, input digests, config).

The method's modules never print, exit or open a file they were not given;
the runners and the CLI choose the files.
"""

__version__ = "0.1.0"
