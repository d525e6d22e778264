"""GSM-7 alphabet, segment counting and transliteration."""

import pytest

from chat.gsm import BASIC, EXTENSION, greek_caps, is_gsm7, segments, septets, to_gsm7


def test_alphabet_sizes():
    assert len(BASIC) == 127 and len(set(BASIC)) == 127
    assert len(EXTENSION) == 10


@pytest.mark.parametrize("text,expected", [
    ("", 0), ("a", 1), ("a" * 160, 1), ("a" * 161, 2), ("a" * 306, 2), ("a" * 307, 3),
    ("€" * 80, 1), ("€" * 81, 2), ("a" * 152 + "€", 1), ("a" * 159 + "€", 2),
    ("♠", 1), ("♠" * 70, 1), ("♠" * 71, 2), ("♠" * 134, 2), ("♠" * 135, 3), ("😀" * 35, 1), ("😀" * 36, 2),
])
def test_segments(text, expected):
    assert segments(text) == expected


def test_escape_pair_not_split():
    # 152 septets then an extension char (2 septets) -> the pair moves to segment 2
    text = "a" * 152 + "[" + "a" * 152
    assert septets(text) == 306
    assert segments(text) == 3


@pytest.mark.parametrize("src,dst", [
    ("être", "etre"), ("ça", "ca"), ("Noël", "Noel"), ("«oui»", '"oui"'), ("l’as", "l'as"),
    ("Q♥", "QH"), ("🎉", "?"), ("Ζωή", "ZΩH"), ("Øyvind Ærlig Åse", "Øyvind Ærlig Åse"), ("你", "?"),
])
def test_to_gsm7(src, dst):
    assert to_gsm7(src) == dst
    assert is_gsm7(to_gsm7(src))


def test_greek_caps():
    assert greek_caps("Η Άννα έπαιξε QH. Παίξε: 4H") == "H ANNA EΠAIΞE QH. ΠAIΞE: 4H"
    assert is_gsm7(greek_caps("Γειά σου κόσμε, ώρα για ΣΠΑΘΙΑ"))
