"""One run from table to verified release: :func:`anonymize` (:mod:`.run`) and the TOML job
file (:mod:`.job`)."""
