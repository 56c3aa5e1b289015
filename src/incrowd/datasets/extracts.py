"""A steward's own messy extract, written to a file: the table incrowd must read right with no
flag beyond ``--qi``, ``--sensitive`` and ``--k``.

:func:`write_claims_extract` writes a health-claims extract as an agency's database export
gives it: latin-1 text, day-first dates, zip codes with leading zeros, ICD-10 codes of 3 to 7
characters, an integer code, patient names, free-text notes naming people, an id per
record, missing values written several ways, and a sensitive diagnosis group with missing
cells. The seed varies everything a test must not be tuned to: the separator and number
style (``;`` with ``1.234,50``, or ``,`` with ``"1,234.50"``), the missing-value tokens,
the frequent sentinel of the number and date columns, the header spellings and the codes'
lengths.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..io.atomic import write_new
from ..io.missing import NA_TOKENS

__all__ = ["ClaimsExtract", "write_claims_extract"]

FIRST = ("Jan", "Anna", "Müller", "Françoise", "José", "Björn", "Zoë", "Piet", "Chloé", "Ana")
LAST = ("de Vries", "Schäfer", "Dubois", "García", "Jansen", "Øster", "Rossi", "Novák", "Kowal")
#: ICD-10 chapters' codes of 3 to 7 characters and the diagnosis group each belongs to.
ICD10 = {
    "C34": "neoplasms", "C34.9": "neoplasms", "C34.90": "neoplasms", "C50.911": "neoplasms",
    "J45": "respiratory", "J45.9": "respiratory", "J45.901": "respiratory", "J18.9": "respiratory",
    "E11": "endocrine", "E11.65": "endocrine", "E10.9": "endocrine",
    "I10": "circulatory", "I21.4": "circulatory", "I25.10": "circulatory",
    "S72.001A": "injury", "S52.5": "injury", "F32.9": "mental", "F41.1": "mental",
}  # fmt: skip
#: A frequent sentinel written in the number and date columns of one extract.
SENTINELS = ("unknown", "onbekend", "inconnu", "unbekannt")


@dataclass(frozen=True)
class ClaimsExtract:
    """What :func:`write_claims_extract` wrote: the file, its format, and its columns' roles
    as a steward would name them (``names``: every patient name and note, which must never
    be published)."""

    path: Path
    sep: str
    decimal: str
    missing_token: str
    sentinel: str
    qi: tuple[str, ...]
    sensitive: str
    identifiers: tuple[str, ...]
    names: tuple[str, ...]
    table: pd.DataFrame


def _names(rng: np.random.Generator, n: int) -> np.ndarray:
    first = rng.choice(FIRST, n)
    last = rng.choice(LAST, n)
    return np.array([f"{a} {b} {i}" for i, (a, b) in enumerate(zip(first, last, strict=True))])


def _amounts(rng: np.random.Generator, n: int, decimal: str) -> list[str]:
    cents = rng.integers(1_000, 25_000_000, n)
    thousands = "." if decimal == "," else ","
    out = []
    for c in cents:
        whole = f"{c // 100:,}".replace(",", thousands)
        out.append(f"{whole}{decimal}{c % 100:02d}")
    return out


def _with_missing(rng, cells, share: float, tokens: tuple[str, ...]) -> np.ndarray:
    """``cells`` with a ``share`` of them replaced by one of ``tokens`` each."""
    out = np.asarray(cells, dtype=object).copy()
    where = rng.random(len(out)) < share
    out[where] = rng.choice(tokens, int(where.sum()))
    return out


def write_claims_extract(
    path: str | Path, n: int = 20_000, *, seed: int = 0, sensitive_missing: float = 0.02
) -> ClaimsExtract:
    """Write a messy ``n``-record claims extract to ``path`` (latin-1; a new file: an
    existing one is never replaced) and say what it holds.

    Even seeds write ``;`` with ``1.234,50`` amounts, odd seeds ``,`` with ``"1,234.50"``;
    each seed picks its missing-value token (one of the tokens read as missing by
    default, :data:`incrowd.io.missing.NA_TOKENS`, beside empty
    cells), its sentinel (one of :data:`SENTINELS`) in the age and date columns, and its
    header spellings.
    """
    rng = np.random.default_rng(seed)
    sep, decimal = (";", ",") if seed % 2 == 0 else (",", ".")
    token = NA_TOKENS[seed % len(NA_TOKENS)]
    sentinel = SENTINELS[seed % len(SENTINELS)]
    name_col = ("patient_name", "Name", "naam_patient")[seed % 3]
    notes_col = ("notes", "Bemerkung", "opmerking")[seed % 3]
    id_col = ("claim_id", "ClaimNr", "dossier_id")[seed % 3]
    names = _names(rng, n)
    codes = rng.choice(list(ICD10), n)
    days = pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 730, n), unit="D")
    ages = rng.integers(0, 105, n).astype(str)
    zips = rng.choice([501, 2138, 2139, 2142, 7093, 10002, 10003, 60614, 94110, 99501], n)
    table = pd.DataFrame({
        id_col: [f"C{seed:02d}{i:07d}" for i in range(n)],
        name_col: names,
        "age": _with_missing(rng, ages, 0.04, ("", token, sentinel, sentinel)),
        "sex": _with_missing(rng, rng.choice(["F", "M"], n), 0.01, ("", token)),
        "zip": _with_missing(rng, [f"{z:05d}" for z in zips], 0.01, ("",)),
        "admission_date": _with_missing(rng, days.strftime("%d/%m/%Y"), 0.03, ("", sentinel)),
        "icd10": codes,
        "transport": _with_missing(rng, rng.integers(1, 10, n).astype(str), 0.02, ("", token)),
        "amount": _with_missing(rng, _amounts(rng, n, decimal), 0.01, ("", token)),
        notes_col: [f"{nm} called about the bill; spoke with {rng.choice(FIRST)}, "
                    f"will send \"form {i % 7}\"" for i, nm in enumerate(names)],
        "diag_group": _with_missing(rng, [ICD10[c] for c in codes], sensitive_missing, ("", token)),
    })  # fmt: skip
    text = table.to_csv(index=False, sep=sep, quoting=csv.QUOTE_MINIMAL)
    path = write_new(path, text.encode("latin-1"))  # a new file, whole or not at all
    return ClaimsExtract(
        path=path,
        sep=sep,
        decimal=decimal,
        missing_token=token,
        sentinel=sentinel,
        qi=("age", "sex", "zip", "admission_date", "icd10", "transport"),
        sensitive="diag_group",
        identifiers=(id_col, name_col, notes_col),
        names=tuple(names),
        table=table,
    )
