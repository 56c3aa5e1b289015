"""The neighbour index over distinct rows: exact k-nearest neighbours and radius queries
under the space's norm (:mod:`.index`, over its strategies :mod:`.kdtree`, :mod:`.scan` and
:mod:`.split`), and a live tree whose points can be removed (:mod:`.live_tree`)."""
