"""What a release costs and risks: information loss of a partition or a published table
(:mod:`.metrics`, :mod:`.evaluate`) and re-identification risk (:mod:`.risk`)."""
