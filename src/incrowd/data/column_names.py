"""What a column's name suggests: a code, a measured quantity, a person's name, address,
phone, e-mail or id, notes, a demographic or place, health or money; and the role and
hierarchy ``incrowd inspect`` proposes.

A name's *words* are its parts split at non-letters, letter/digit and camelCase boundaries,
lowercased, with accents dropped (``PatientID``: patient, id; ``zip_code``: zip, code;
``icd10``: icd, 10; ``Prénom``: prenom; ``Straße``: strasse). A word matches a listed word
when it equals it or it plus ``s``; a listed word of 4 letters or more also matches a word
it starts or ends (``zipcode``, ``postalcode``, ``lastname``, ``achternaam``,
``telefonnummer``). The lists hold English words and the German, French, Dutch and Spanish
ones stewards write.

The proposals are a starting point the user edits (:func:`propose_role`,
:func:`propose_hierarchy`); they never decide anything by themselves, and never publish a
column as it is unless it is clearly a measure (safe by default).
:func:`identifying` says why a column would identify people if published as it is (the
warning ``anonymize`` and the report give for a published column).
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from ..errors import option

if TYPE_CHECKING:
    from .types import Inference

__all__ = ["CODE_WORDS", "MEASURE_WORDS", "NOTE_WORDS", "QUANTITY_WORDS", "has_word",
           "identifying", "name_words", "propose_hierarchy", "propose_role"]  # fmt: skip

#: Words of a name that make fixed-width digit strings a code.
CODE_WORDS = ("zip", "postcode", "postal", "plz", "postleitzahl", "cp", "fips", "nuts", "icd",
              "code", "id")  # fmt: skip
#: Words of a name that make a number a measure, which a proposal may publish as it is.
MEASURE_WORDS = ("count", "size", "weight", "height", "length", "duration", "score", "total",
                 "qty", "quantity", "percent", "pct", "bmi", "days", "hours", "minutes",
                 "anzahl", "aantal", "cantidad", "gewicht", "poids", "peso", "lengte", "taille",
                 "grosse", "dauer", "duur", "duree", "duracion", "dagen", "jours", "dias",
                 "stunden", "heures", "horas")  # fmt: skip
#: Words of a name that suggest money (sensitive, and a quantity).
MONEY_WORDS = ("amount", "income", "salary", "wage", "price", "cost", "charge", "fee", "paid",
               "payment", "debt", "betrag", "bedrag", "montant", "importe", "kosten", "prijs",
               "preis", "prix", "precio", "gehalt", "salaire", "salario", "inkomen",
               "einkommen", "revenu", "ingreso")  # fmt: skip
#: Words of a name that make few distinct integers a measured quantity, not codes.
QUANTITY_WORDS = ("age", "year", "num", "number", "leeftijd", "alter", "edad", *MEASURE_WORDS,
                  *MONEY_WORDS)  # fmt: skip
#: Words of a name that say a column holds notes or free text (which may name people).
NOTE_WORDS = ("note", "nota", "notiz", "notitie", "comment", "comentario", "kommentar",
              "remark", "remarque", "opmerking", "bemerkung", "anmerkung", "toelichting",
              "observation", "observacion", "memo", "text", "description", "descripcion",
              "beschreibung", "omschrijving", "narrative", "hinweis")  # fmt: skip
#: What a person's identifying column is, and the words of a name that say so.
PERSONAL_WORDS = (
    ("an e-mail address", ("email", "mail", "courriel", "correo")),
    ("a phone number", ("phone", "tel", "telefon", "telefoon", "telefono", "mobile", "mobiel",
                        "handy", "gsm", "fax")),
    ("an address", ("address", "addr", "adres", "street", "strasse", "straat", "rue", "calle",
                    "direccion", "domicilio", "anschrift")),
    ("a person's name", ("name", "naam", "nom", "nombre", "prenom", "apellido")),
    ("an id", ("id", "ident", "nr", "nummer", "uuid", "guid", "ssn", "bsn", "nir", "dni", "mrn",
               "passport", "passeport", "pasaporte", "paspoort", "reisepass", "iban",
               "account", "konto", "rekening")),
)  # fmt: skip
#: Words of a name that suggest a demographic or a place: quasi-identifiers.
QI_WORDS = ("age", "sex", "gender", "zip", "postcode", "postal", "plz", "postleitzahl", "cp",
            "fips", "nuts", "birth", "dob", "born", "race", "ethnic", "ethnicity", "marital",
            "national", "citizenship", "country", "state", "county", "city", "region",
            "district", "municipality", "town", "lat", "lon", "latitude", "longitude", "geo",
            "education", "occupation", "job", "religion", "language", "leeftijd", "alter",
            "edad", "geslacht", "geschlecht", "sexe", "sexo", "geboren", "geboorte", "geburt",
            "naissance", "nacimiento", "woonplaats", "plaats", "wohnort", "ville", "ciudad",
            "stadt", "gemeente", "gemeinde", "commune", "municipio", "province", "provincie",
            "provincia", "land", "pays", "pais", "nacionalidad", "beroep", "beruf",
            "profession", "profesion", "ocupacion", "opleiding", "bildung", "educacion",
            "religie", "taal", "sprache", "langue", "idioma")  # fmt: skip
#: Words of a name that suggest health or money: sensitive values.
SENSITIVE_WORDS = ("diag", "disease", "illness", "condition", "treatment", "medication",
                   "drug", "icd", "krankheit", "ziekte", "maladie", "enfermedad", "behandlung",
                   "behandeling", "traitement", "tratamiento", "medikament", "medicatie",
                   "medicament", *MONEY_WORDS)  # fmt: skip

_FEW = 20  # incrowd.data.types.MAX_CODED_CATEGORIES (types imports this module)
#: A text column with at least this share of distinct values among its present cells is
#: (nearly) unique per record: each value singles out its record.
NEARLY_UNIQUE = 0.9
#: Text of at least this many words a value on average, with many distinct values (more than
#: 20, and a tenth of the records), is free text.
FREE_TEXT_WORDS = 4
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_FOLD = str.maketrans({"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe",
                       "Œ": "OE", "ł": "l", "Ł": "L", "đ": "d", "ı": "i"})  # fmt: skip


def name_words(name: str) -> list[str]:
    """The words of a column name, lowercased, accents dropped.

    >>> name_words("PatientID_zipCode2"), name_words("Prénom_Straße")
    (['patient', 'id', 'zip', 'code', '2'], ['prenom', 'strasse'])
    """
    text = unicodedata.normalize("NFKD", str(name).translate(_FOLD))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return [w.lower() for w in _WORD.findall(text)]


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


def identifying(inference: Inference, n_rows: int, *, named: bool = True) -> str | None:
    """Why the column would identify people if published as it is, or None; the first
    reason that applies:

    1. a text column whose name reads as notes or free text (:data:`NOTE_WORDS`, in English,
       German, French, Dutch, Spanish: notes, opmerking, Bemerkung, remarque, comentario);
    2. long free text: at least :data:`FREE_TEXT_WORDS` words a value on average, with more
       than 20 distinct values, a tenth of the records or more;
    3. a name that reads as a person's name, address, phone, e-mail or id
       (:data:`PERSONAL_WORDS`: naam, nom, nombre, Vorname, adresse, telefoon, ClaimNr, …),
       unless it also names a demographic, place, health or money (``city_name``,
       ``drug_name``) and the values repeat;
    4. (``named``: True) text (nearly) unique per record: distinct values at least
       :data:`NEARLY_UNIQUE` of more than 20 present cells.

    Dates are never identifying here (they are quasi-identifiers).
    """
    name, kind = inference.name, inference.type.kind
    present = n_rows - inference.n_missing
    text = kind in ("code", "category")
    distinct = inference.n_distinct
    unique = text and present > _FEW and distinct >= NEARLY_UNIQUE * present
    if text and has_word(name, NOTE_WORDS):
        return "its header reads as notes or free text, which may name people"
    words = inference.words
    if text and words >= FREE_TEXT_WORDS and distinct > _FEW and distinct >= 0.1 * present:
        return f"free text ({words:.0f} words a value on average), which may name people"
    if kind != "date":
        for what, listed in PERSONAL_WORDS:
            if has_word(name, listed) and (
                unique or not has_word(name, QI_WORDS + SENSITIVE_WORDS)
            ):
                return f"its header reads as {what}"
    if unique and named:
        return "a different text in (nearly) every record: it singles out each one"
    return None


def propose_role(inference: Inference, n_rows: int) -> tuple[str, str]:
    """``(role, reason)``: the role ``incrowd inspect`` proposes for a column, first rule
    that applies:

    1. ``identifier``: notes, free text, or a name that reads as a person's name, address,
       phone, e-mail or id (:func:`identifying`'s rules 1-3);
    2. ``quasi-identifier``: a date, or a word of the name suggests a demographic or a place
       (:data:`QI_WORDS`: age, sex, zip, birth, country, city, education, …);
    3. ``identifier``: text (nearly) unique per record (:func:`identifying`'s rule 4);
    4. ``sensitive``: a word of the name suggests health or money
       (:data:`SENSITIVE_WORDS`: diagnosis, icd, salary, income, amount, …);
    5. ``insensitive``: a number whose name says it is a measure (:data:`MEASURE_WORDS`:
       weight, days, score, …), published as it is;
    6. ``withheld`` otherwise: not published until the steward lists it.

    >>> from incrowd.data.types import infer_column
    >>> import pandas as pd
    >>> propose_role(infer_column(pd.Series(["02142", "60615"]), "zip"), 2)[0]
    'quasi-identifier'
    >>> propose_role(infer_column(pd.Series(["Jan de Vries", "Anna Dubois"]), "naam"), 2)
    ('identifier', "its header reads as a person's name")
    """
    name, kind = inference.name, inference.type.kind
    why = identifying(inference, n_rows, named=False)
    if why is not None:
        return "identifier", why
    if kind == "date":
        return "quasi-identifier", "a date: dates of events and births link records"
    if has_word(name, QI_WORDS):
        return "quasi-identifier", "the name suggests a demographic or a place"
    why = identifying(inference, n_rows)
    if why is not None:
        return "identifier", why
    if has_word(name, SENSITIVE_WORDS):
        return "sensitive", "the name suggests health or money"
    if kind == "number" and has_word(name, MEASURE_WORDS):
        return "insensitive", "a measure by its name: published as it is"
    return "withheld", (f"nothing says what it is: not published until you list it "
                        f"({option('insensitive', [name])} publishes it as it is)")  # fmt: skip


def propose_hierarchy(inference: Inference) -> str | None:
    """The hierarchy ``incrowd inspect`` proposes: ``prefix`` (mask digits from the right)
    for a code, ``dates`` (month, quarter, year) for a date, None for numbers (generalized
    as ranges) and categories (suppressed whole, or a hierarchy the user writes)."""
    return {"code": "prefix", "date": "dates"}.get(inference.type.kind)
