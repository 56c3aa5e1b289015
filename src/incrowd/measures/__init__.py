"""What a release costs and risks: information loss of a partition or a published table
(:mod:`.loss`: NCP, SSE, discernibility) and re-identification risk (:mod:`.risk`)."""
