"""Steps after a method's partition and before publishing: repairs that make a partition meet a
privacy model beyond k-anonymity (:mod:`.diversity_repair`)."""

from .diversity_repair import enforce

__all__ = ["enforce"]
