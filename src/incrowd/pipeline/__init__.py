"""One run from table to verified release: :func:`anonymize` (:mod:`.run`), its settings
declared once (:mod:`.settings`) and the TOML job file (:mod:`.job`)."""

#: The stages :func:`~.run.anonymize_with` names at most (a polish and a merge only where
#: they run); here, not in :mod:`.run`, so that the app's server counts them without
#: importing the engine.
PIPELINE_STAGES = 7
