"""Everything incrowd reads from or writes to a file: tables (:mod:`.tables`), the atomic
commit protocol and its one overwrite policy (:mod:`.atomic`), and the release file format
(:mod:`.release_format`).

Submodules are imported where used; this package imports nothing itself, so that reading a
table does not load the release writer.
"""
