"""The RULES reply links /rules/<lang>: a rules page per language, rendered from templates/web/rules.html.j2 with the
catalogues (issue 14 case 10), readable on a phone, with the worked examples of RULES.md sections 3, 4, 5, 7, 8."""

from __future__ import annotations

import html

import pytest

from chat.languages import LANGUAGES

HEADINGS = {  # RULES.md section 3 ("The draw (there is no deal)") in each language
    "en": "The draw (there is no deal)", "fr": "Le tirage (il n'y a pas de donne)", "nb": "Trekkingen (ingen giv)",
    "id": "Menarik kartu (tanpa pembagian)", "el": "Το τράβηγμα (δεν μοιράζει κανείς)",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_rules_page_per_language(client, lang) -> None:  # type: ignore[no-untyped-def]
    resp = client.get(f"/rules/{lang}")
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    page = resp.get_data(as_text=True)
    assert f'<html lang="{lang}">' in page and 'name="viewport"' in page  # readable on a phone
    assert HEADINGS[lang] in page.replace("&#39;", "'")
    for example in ("Megan", "Karen", "Bonnie", "AC KC KD", "500"):  # RULES.md 5, 7, 8 examples; 4 the DN swap
        assert example in page
    assert "<script" not in page
    for other in LANGUAGES:  # links to the other languages
        assert f'href="./{other}"' in page or other == lang


def test_rules_links_in_any_case_and_unknown_languages(client) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/rules/EL").status_code == 200  # the Greek SMS once upper-cased its link
    assert client.get("/RULES/EL").status_code == 200
    assert client.get("/rules/xx").status_code == 404
    resp = client.get("/rules", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/rules/fr")


#: each language's bag example (RULES.md section 8: 3 + 3 + 5 = 11) and the hand's line as a message shows it
CORRECTED = {"en": ("3, 3 and then 5 bags: 11 bags", "you 8/7 +71 (1 bag)"),
             "fr": ("3, 3 puis 5 sacs : 11 sacs", "toi 8/7 +71 (1 sac)"),
             "nb": ("3, 3 og så 5 overstikk: 11 overstikk", "du 8/7 +71 (1 overstikk)"),
             "id": ("3, 3, lalu 5 kelebihan: 11 kelebihan", "kamu 8/7 +71 (1 kelebihan)"),
             "el": ("3, 3 και μετά 5 επιπλέον μπάζες: 11", "εσύ 8/7 +71 (1 επιπλέον)")}


@pytest.mark.parametrize("lang", sorted(CORRECTED))
def test_the_rules_page_has_the_corrected_bag_example_and_the_score_as_messages_write_it(client, lang) -> None:  # type: ignore[no-untyped-def]
    page = html.unescape(client.get(f"/rules/{lang}").get_data(as_text=True))
    bags, line = CORRECTED[lang]
    assert bags in page and line in page  # issue 45 case 7: "3, 3 and then 4 bags: 11 bags"; "bid 7, took 8: +71"
    assert "3, 3 and then 4" not in page and "took 8" not in page


def test_the_front_door_and_the_icon(client) -> None:  # type: ignore[no-untyped-def]
    """``/`` was Flask's bare "Not Found" and ``/favicon.ico`` a 404 on every page (issue 45 case 10)."""
    resp = client.get("/", headers={"Accept-Language": "nb-NO,nb;q=0.9"}, follow_redirects=True)
    assert resp.status_code == 200 and resp.request.path == "/rules/nb" and "<h1" in resp.get_data(as_text=True)
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/x-icon" and icon.data[:4] == b"\x00\x00\x01\x00"
