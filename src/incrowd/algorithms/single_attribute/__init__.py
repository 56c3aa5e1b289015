"""Generalizing one attribute, the largest crowd as small as possible (min-max bin
covering).

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009.

- :mod:`.bincover`: labels into sets of ≥ k records (Sec. 4): largest crowd ≤ 5/2·OPT
  (Thm 9), 3·OPT (Fold), (1 + ε)(OPT + k) (PTAS, Thm 10), or OPT (exact);
- :mod:`.kd_rectangles`: points into axis-aligned boxes (Sec. 3, Thm 4): largest box
  ≤ (2d + 1)·OPT;
- :mod:`.planar_regions`: places into connected regions of a planar graph (Sec. 2,
  Thm 3): largest region ≤ (d + 1)·OPT for a spanning tree of degree d.
"""
