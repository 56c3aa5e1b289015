"""One run from table to verified release: :func:`anonymize` (:mod:`.run`), its settings
declared once (:mod:`.settings`) and the TOML job file (:mod:`.job`)."""

#: The stages :func:`~.run.anonymize_with` names at most (a polish and a merge only where
#: they run); here, not in :mod:`.run`, so that the app's server counts them without
#: importing the engine.
PIPELINE_STAGES = 7


def stages_done(begun: int, counted: tuple[int, int] | None = None) -> float:
    """How many stages of a run are done, for a progress bar: those before the current one
    (the ``begun``-th), and of it the share its method counted (``(done, total)``), never
    less than 0 nor past the stage.

    >>> stages_done(3), stages_done(3, (50, 100)), stages_done(3, (120, 100))
    (2, 2.5, 3.0)
    """
    done = max(begun - 1, 0)
    if counted is not None and counted[1] > 0:
        done += min(max(counted[0] / counted[1], 0.0), 1.0)
    return done
