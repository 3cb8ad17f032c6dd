"""Practising the book: the opponent's replies drawn as the selected games
played them (``replies``), what a player's move is worth there
(``feedback``), the cards of the positions to play on a spaced-repetition
schedule kept in SQLite (``schedule``), and Anki decks of a subtree
(``anki``).

A continuation is a dict as ``book.explore.lookup`` (and the explorer's
index at a selection) gives it: ``move``/``board``/``normal``, ``count``,
``games``, ``black_wins``, ``white_wins``, ``share`` and, where the tree was
mined with kinds, ``kind``.  Moves so far are the tree's normal form (the
corner upper left, its first player Black).  Knows positions' figures and
one SQLite file it is given; nothing of how the figures were counted."""
