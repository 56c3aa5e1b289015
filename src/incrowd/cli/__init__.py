"""The ``incrowd`` command line (:mod:`.app`)."""
