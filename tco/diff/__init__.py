"""``tco diff A B``: what changed between two scenarios or two results (``compare``), and how it is shown
(``render``: terminal tables, Markdown, JSON)."""
