"""Everything incrowd reads from or writes to a file: tables (:mod:`.tables`, with the
checks of delimited text in :mod:`.csv_text` and a file's text encoding in
:mod:`.text_encoding`), the atomic commit protocol through which every file is written
(:mod:`.atomic`, staging in :mod:`.staging`), its one overwrite policy (:mod:`.targets`),
the release file format (:mod:`.release_format`, with :mod:`.formulas`) and ARX hierarchy
files (:mod:`.hierarchy_csv`).

Submodules are imported where used; this package imports nothing itself, so that reading a
table does not load the release writer.
"""
