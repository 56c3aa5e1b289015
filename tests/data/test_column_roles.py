"""The roles ``incrowd inspect`` proposes (issue 57, item 3): nothing is proposed for
publication as it is unless it is clearly a measure. Names, addresses, phones, e-mails, ids
and notes — by header, in the languages stewards write them — and text that is (nearly)
unique per record or long free text are identifiers; anything else unclassified is withheld."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from incrowd.data.column_names import name_words, propose_role
from incrowd.data.types import infer_column

N = 300
RNG = np.random.default_rng(7)
FIRST = ["Jan", "Anna", "Zoë", "José", "Françoise", "Piet", "Björn"]
LAST = ["de Vries", "Müller", "Dubois", "García", "Jansen"]


def role(values, name: str) -> tuple[str, str]:
    column = pd.Series(values)
    return propose_role(infer_column(column, name), len(column))


def few_names(n: int = N) -> list[str]:
    """Names that repeat (a few dozen distinct): not unique, so only the header tells."""
    return [f"{FIRST[i % 7]} {LAST[i % 5]}" for i in range(n)]


@pytest.mark.parametrize("header", [
    "patient_name", "Name", "naam", "naam_patient", "Voornaam", "achternaam", "nom", "Prénom",
    "nombre", "apellidos", "Vorname", "Nachname", "FamilienName", "lastName", "SURNAME",
])  # fmt: skip
def test_a_header_naming_a_person_is_an_identifier(header):
    got, why = role(few_names(), header)
    assert got == "identifier", (header, why)
    assert "name" in why


@pytest.mark.parametrize(("header", "what"), [
    ("address", "address"), ("Adresse", "address"), ("adres", "address"),
    ("Straße", "address"), ("dirección", "address"), ("home_street", "address"),
    ("phone", "phone"), ("Telefoon", "phone"), ("téléphone", "phone"), ("Telefonnummer", "phone"),
    ("mobile_nr", "phone"), ("email", "e-mail"), ("E-Mail", "e-mail"), ("courriel", "e-mail"),
    ("patient_id", "id"), ("ClaimNr", "id"), ("dossier_id", "id"), ("BSN", "id"),
    ("Kundennummer", "id"),
])  # fmt: skip
def test_a_header_naming_an_address_phone_email_or_id_is_an_identifier(header, what):
    values = [f"v{i % 10}" for i in range(N)]  # few distinct values: only the header tells
    got, why = role(values, header)
    assert got == "identifier", (header, why)
    assert what in why, why


@pytest.mark.parametrize("header", [
    "notes", "Notes", "comment", "remarks", "opmerking", "Opmerkingen", "Bemerkung",
    "remarque", "commentaire", "comentario", "observaciones", "free_text", "Notiz",
    "toelichting", "description",
])  # fmt: skip
def test_a_header_naming_notes_or_free_text_is_an_identifier(header):
    got, why = role(["ok", "call back", "ok", "", "see file"] * (N // 5), header)
    assert got == "identifier", (header, why)
    assert "free text" in why


def test_long_free_text_is_an_identifier_whatever_its_header():
    notes = [f"{FIRST[i % 7]} {LAST[i % 5]} phoned on day {i % 40}, asked for the form"
             for i in range(N)]  # fmt: skip
    got, why = role(notes, "info")
    assert got == "identifier" and "free text" in why, why


def test_text_nearly_unique_per_record_is_an_identifier():
    values = [f"K-{i:05d}" for i in range(N)]
    values[:10] = ["K-00000"] * 10  # nearly, not quite, unique
    got, why = role(values, "reference")
    assert got == "identifier", why


def test_a_measure_may_be_published_and_anything_unclassified_is_withheld():
    weights = RNG.normal(75, 12, N).round(1)
    assert role(weights, "weight_kg")[0] == "insensitive"
    assert role(RNG.integers(0, 30, N), "length_of_stay_days")[0] == "insensitive"
    # integer codes, a few labels, numbers with no name that says they are measures
    unclassified = [(RNG.integers(1, 8, N), "relat"), (RNG.choice(["a", "b"], N), "x"),
                    (RNG.normal(0, 1, N), "v17"),
                    (RNG.choice(["yes", "no"], N), "flag")]  # fmt: skip
    for values, header in unclassified:
        got, why = role(values, header)
        assert got == "withheld", (header, got, why)


def test_the_proposals_that_were_right_stay():
    assert role(["02142", "60615"] * (N // 2), "zip")[0] == "quasi-identifier"
    assert role(["F", "M"] * (N // 2), "geslacht")[0] == "quasi-identifier"
    assert role(RNG.integers(0, 99, N), "Alter")[0] == "quasi-identifier"
    assert role(["2024-01-02", "2024-03-04"] * (N // 2), "admitted")[0] == "quasi-identifier"
    assert role(["flu", "asthma"] * (N // 2), "diagnosis")[0] == "sensitive"
    assert role(RNG.integers(100, 9000, N), "amount")[0] == "sensitive"  # money
    # a place's name is a place, not a person's name
    assert role(["Lyon", "Gent", "Köln"] * (N // 3), "city_name")[0] == "quasi-identifier"


def test_words_of_a_name_with_accents_and_other_scripts():
    assert name_words("Prénom_Straße") == ["prenom", "strasse"]
    assert name_words("TéléphoneNr") == ["telephone", "nr"]
    assert name_words("PatientID_zipCode2") == ["patient", "id", "zip", "code", "2"]
