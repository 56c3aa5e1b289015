"""The neighbour index over distinct rows: exact k-nearest neighbours and radius queries
under the space's norm (:mod:`.index`), and a live tree whose points can be removed
(:mod:`.live_tree`)."""
