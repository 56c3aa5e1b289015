"""What a column's name suggests: a code, a measured quantity, an identifier, a demographic
or place, health or money; and the role and hierarchy ``incrowd inspect`` proposes.

A name's *words* are its parts split at non-letters, letter/digit and camelCase boundaries,
lowercased (``PatientID``: patient, id; ``zip_code``: zip, code; ``icd10``: icd, 10). A word
matches a listed word when it equals it or it plus ``s``; a listed word of 4 letters or more
also matches a word it starts or ends (``zipcode``, ``postalcode``, ``lastname``).

The proposals are a starting point the user edits (:func:`propose_role`,
:func:`propose_hierarchy`); they never decide anything by themselves.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .types import Inference

__all__ = ["CODE_WORDS", "QUANTITY_WORDS", "has_word", "name_words", "propose_hierarchy",
           "propose_role"]  # fmt: skip

#: Words of a name that make fixed-width digit strings a code.
CODE_WORDS = ("zip", "postcode", "postal", "plz", "cp", "fips", "nuts", "icd", "code", "id")
#: Words of a name that make few distinct integers a measured quantity, not codes.
QUANTITY_WORDS = ("age", "year", "count", "num", "number", "size", "amount", "income",
                  "salary", "wage", "price", "cost", "charge", "fee", "weight", "height",
                  "length", "duration", "score", "total", "qty", "quantity", "percent", "pct",
                  "bmi", "days", "hours", "minutes")  # fmt: skip
#: Words of a name that suggest a direct identifier (when the values are unique per row).
IDENTIFIER_WORDS = ("id", "name", "email", "mail", "phone", "tel", "mobile", "ssn",
                    "passport", "mrn", "account", "iban", "uuid")  # fmt: skip
#: Words of a name that suggest a demographic or a place: quasi-identifiers.
QI_WORDS = ("age", "sex", "gender", "zip", "postcode", "postal", "plz", "cp", "fips", "nuts",
            "birth", "dob", "born", "race", "ethnic", "ethnicity", "marital", "nationality",
            "citizenship", "country", "state", "county", "city", "region", "district",
            "municipality", "town", "address", "lat", "lon", "latitude", "longitude", "geo",
            "education", "occupation", "job", "religion", "language")  # fmt: skip
#: Words of a name that suggest health or money: sensitive values.
SENSITIVE_WORDS = ("diag", "disease", "illness", "condition", "treatment", "medication",
                   "drug", "icd", "salary", "income", "wage", "charge", "debt")  # fmt: skip

_FEW = 20  # incrowd.data.types.MAX_CODED_CATEGORIES (types imports this module)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def name_words(name: str) -> list[str]:
    """The words of a column name, lowercased.

    >>> name_words("PatientID_zipCode2")
    ['patient', 'id', 'zip', 'code', '2']
    """
    return [w.lower() for w in _WORD.findall(str(name))]


def has_word(name: str, words: tuple[str, ...]) -> bool:
    """Whether a word of ``name`` matches one of ``words`` (the module's rule).

    >>> has_word("ZIPCODE", CODE_WORDS), has_word("width", CODE_WORDS)
    (True, False)
    """
    for word in name_words(name):
        for listed in words:
            if word in (listed, listed + "s") or (
                len(listed) >= 4 and (word.startswith(listed) or word.endswith(listed))
            ):
                return True
    return False


def propose_role(inference: Inference, n_rows: int) -> tuple[str, str]:
    """``(role, reason)``: the role ``incrowd inspect`` proposes for a column, first rule
    that applies:

    1. ``identifier``: every present value differs (at least 2) and a word of the name
       suggests an identifier (:data:`IDENTIFIER_WORDS`: id, name, email, phone, …);
    2. ``quasi-identifier``: a date, or a word of the name suggests a demographic or a place
       (:data:`QI_WORDS`: age, sex, zip, birth, country, city, education, …);
    3. ``identifier``: a code or category whose present values all differ (more than
       :data:`~incrowd.data.types.MAX_CODED_CATEGORIES`: in a small table that says little);
    4. ``sensitive``: a word of the name suggests health or money
       (:data:`SENSITIVE_WORDS`: diagnosis, icd, salary, income, charge, …);
    5. ``insensitive`` otherwise.

    >>> from incrowd.data.types import infer_column
    >>> import pandas as pd
    >>> propose_role(infer_column(pd.Series(["02142", "60615"]), "zip"), 2)[0]
    'quasi-identifier'
    """
    name, kind = inference.name, inference.type.kind
    present = n_rows - inference.n_missing
    unique = present >= 2 and inference.n_distinct == present
    if unique and has_word(name, IDENTIFIER_WORDS):
        return "identifier", "a different value in every row, and the name suggests an id"
    if kind == "date":
        return "quasi-identifier", "a date: dates of events and births link records"
    if has_word(name, QI_WORDS):
        return "quasi-identifier", "the name suggests a demographic or a place"
    if unique and kind in ("code", "category") and present > _FEW:
        return "identifier", "a different text in every row: it singles out each record"
    if has_word(name, SENSITIVE_WORDS):
        return "sensitive", "the name suggests health or money"
    return "insensitive", "nothing suggests it identifies anyone: check before publishing"


def propose_hierarchy(inference: Inference) -> str | None:
    """The hierarchy ``incrowd inspect`` proposes: ``prefix`` (mask digits from the right)
    for a code, ``dates`` (month, quarter, year) for a date, None for numbers (generalized
    as ranges) and categories (suppressed whole, or a hierarchy the user writes)."""
    return {"code": "prefix", "date": "dates"}.get(inference.type.kind)
