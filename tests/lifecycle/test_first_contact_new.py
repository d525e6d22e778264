"""NEW with a bad argument from a new number (issue 23 case 8).

Before: ``NEW 12`` and ``NEW +1555`` from a new number got the generic welcome; from a known number
``12 is not a phone number or email address. NEW needs who you play: ...`` (163 characters, 2 segments). After: the
specific help, from a new number too, in one segment in every language.
"""

from __future__ import annotations

import pytest

from chat.gsm import segments
from tests.chat.goldens import check_golden

from .helpers import lifecycle_command, local

# valid numbers (+1 555: the tests' fiction range): a stranger is texted only at a valid one (issue 44)
NUMBERS = {"en": "+15551230301", "fr": "+33612345671", "nb": "+4791230301", "id": "+628123030101", "el": "+306912300301"}


@pytest.mark.parametrize("lang", sorted(NUMBERS))
def test_new_with_a_bad_argument_gets_the_specific_help_in_one_segment(svc, lang) -> None:  # type: ignore[no-untyped-def]
    who = NUMBERS[lang]
    word = {"en": "NEW", "fr": "NOUVELLE", "nb": "NY", "id": "BARU", "el": "NEO"}[lang]
    answers = []
    for text in (f"{word} 12", f"{word} +1555"):  # the first from a new number, the second from a known one
        lifecycle_command(svc, who, text)
        reply = local(svc, who)[-1]
        answers.append(reply["body"])
        assert reply["kind"] != "welcome", reply["body"]
        assert text.split()[1] in reply["body"] and "ana@example.com" in reply["body"], reply["body"]
        assert segments(reply["body"]) == 1, (len(reply["body"]), reply["body"])
    check_golden(lang, "issue23/new_bad_argument", "\n".join(answers) + "\n")
