"""``joseki explore``: a local web server over a mined run, and its page.

``index`` holds a run's stored trie, its sequences in trie order and its
games' table in memory (read once, at start) and answers a position with
filters chosen at the click; ``app`` is the HTTP face over it (Starlette);
``static/`` the page (plain HTML, CSS and JavaScript, no build step).  The
numbers come from the book's query functions' rules: the index is tested
equal to ``book.explore.lookup`` and to a run mined with the same filters.
"""
