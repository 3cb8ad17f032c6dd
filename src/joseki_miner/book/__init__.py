"""What a player reads: the book of the pruned tree (``words``), board
diagrams, the SGF and DOT files, the HTML report and its plots, lookups of
a sequence, and ``quality``'s yardstick of named shapes."""
