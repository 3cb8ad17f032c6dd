"""The method of the thesis: points and boards, game records, phase 1's
sequences (4.2, 5.1, 5.2), influence (8), the counted trie (4.1), the
threshold and pruning of phase 2 (6.1, 9), the kinds of its nodes.  This is
the reference engine: the compiled one (``fast``) gives its bytes."""
