"""One run from table to verified release: :func:`anonymize` (:mod:`.run`), its settings
declared once (:mod:`.settings`) and the TOML job file (:mod:`.job`)."""
