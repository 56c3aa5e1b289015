"""The privacy models (:mod:`.models`: k-anonymity's l-diversity and t-closeness
definitions) and the independent verifier (:mod:`.verify`), which reads only the published
table and shares no code with the algorithms."""

from __future__ import annotations

from .models import Diversity
from .verify import VerificationReport, check_k_anonymity, verify

__all__ = ["Diversity", "VerificationReport", "check_k_anonymity", "verify"]
