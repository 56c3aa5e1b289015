"""What several algorithm families use; private to :mod:`incrowd.algorithms`.

- :mod:`.improve`: moves of single records between crowds that lower the generalization
  cost and keep every crowd ≥ k (forest, local recoding, the release polish);
- :mod:`.crowd_split`: a crowd of ≥ 2k records split into parts of ≥ k, none
  raising the largest radius (gather, cellular);
- :mod:`.generalized`: the cost and parameters of the methods that publish
  generalized crowds (forest, factors, local recoding).
"""
