"""Issue 22 case 1: what a player typed never becomes markup. Every HTML template (emails, the game page,
the rules page) rendered with hostile names shows them escaped; and ``NAME`` takes only what a name needs."""

from __future__ import annotations

from typing import Any

import jinja2
import pytest
from markupsafe import escape

from chat.commands import rules_page_context
from chat.history import game_entry, render_history
from chat.names import check_name
from chat.page import email_link, page_context, plan_board, render_busy, render_expired, render_page
from chat.render import TEMPLATES_DIR, environment, render
from chat.simulate import play_game, random_chooser
from service.conversation_port import render_message, resend
from spades.events import redact
from spades.game import fold, view
from tests.chat.test_chat_conversation import META, _waiting_contexts, bot_chooser
from tests.chat.test_chat_golden_lifecycle import CONTEXTS
from tests.lifecycle.helpers import lifecycle_command, local, start_game

TEMPLATES = TEMPLATES_DIR
HOSTILE = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "{{7*7}}", "<!-- x")
ANA, BO = "+12025550101", "+12025550102"
USER_TYPED = ("opp", "chosen", "text", "me")  # the context values a player (or an address) supplies


def _hostile(ctx: Any, name: str) -> Any:
    if isinstance(ctx, dict):
        return {k: name if k in USER_TYPED and isinstance(v, str) and v else _hostile(v, name) for k, v in ctx.items()}
    if isinstance(ctx, list):
        return [_hostile(v, name) for v in ctx]
    return ctx


def _all_html(name: str) -> tuple[list[str], set[str]]:
    """Every HTML the service renders, with ``name`` for every name, and the templates that rendered it."""
    loaded: set[str] = set()
    get_source = jinja2.FileSystemLoader.get_source

    def spy(self, environment, template):  # type: ignore[no-untyped-def]
        loaded.add(template)
        return get_source(self, environment, template)

    environment.cache_clear()
    out: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jinja2.FileSystemLoader, "get_source", spy)
        for tname, ctx in META.items():
            out.append(render_message(tname, "en", "email", **_hostile(ctx, name)).html or "")
        for tname, ctxs in CONTEXTS.items():
            for ctx in ctxs:
                out.append(render(tname, "en", "email", family="lifecycle", **_hostile(ctx, name)).html or "")
        for tname, ctxs in _waiting_contexts("en").items():
            for ctx in ctxs:
                ctx = {k: v for k, v in ctx.items() if k != "channel"}
                out.append(render(tname, "en", "email", **dict(ctx, opp=name)).html or "")
        t = play_game(11, names=(name, name), channel="email", chooser=bot_chooser(11))  # to its end
        out += [m.rendered.html or "" for m in t.messages]
        errors = play_game(12, names=(name, name), channel="email", chooser=random_chooser, max_hands=1, error_rate=0.2)
        out += [m.rendered.html or "" for m in errors.messages]
        game = fold(t.events)
        out.append(resend(view(game, 0), "en", "email", name).html or "")
        seen = [redact(e, 1) for e in t.events]
        over = dict(page_context(view(game, 1), seen, name, name), history_url="/g/x/games", again_flash="invited",
                    again={"url": "/g/x/again", "rematch": True, "level": None, "harder": None})
        out.append(render_page("en", over))  # the finished game: its past hands, its buttons, the link to the games
        games = [dict(game_entry(seen, 1), opp=name, level=None, day="Dec 4, 2026", url="/g/x", current=True)]
        out.append(render_history("en", {"me": name, "games": games, "records": [{"opp": name, "me": 3, "them": 2}],
                                         "back_url": "/g/x"}))
        mid = fold(t.events[:len(t.events) // 2])  # a game in play: the page's plan board, its talk, the record
        ctx = page_context(view(mid, 1), [redact(e, 1) for e in t.events[:len(t.events) // 2]], name, name)
        ctx.update(board=plan_board(view(mid, 1), None, "en"), plan_url="/g/x/plan", csrf="1.x", say_url="/g/x/say",
                   talk=[{"mine": False, "text": name}, {"mine": True, "text": f"nice play {name}"}],
                   h2h={"me": 3, "them": 2})
        out.append(render_page("en", ctx))
        out.append(email_link("en", f"https://x.example/g/{name}", "text", out[0])[1])
        out.append(render_expired("en"))  # writes nothing of anyone's
        out += [render_busy("en", moved) for moved in (False, True)]  # nor does the page while Redis is down
        invite = environment("en").get_template("web/invite_link.html.j2")  # an invitation link's page: who
        for state in ("ask", "bad", "sent", "refused", "busy", "gone"):  # invites, and what the friend typed
            out.append(invite.render(lang="en", state=state, name=name, typed=name, to=name, target=500, bags=True,
                                     floor=-200, alternating=True, tg_url=f"https://t.me/bot?start={name}"))
        page = environment("en").get_template("web/rules.html.j2")
        out.append(page.render(lang="en", target=500, languages=[("en", name)], **rules_page_context("en")))
    environment.cache_clear()
    return out, loaded


def test_every_html_template_is_autoescaped() -> None:
    env = environment("en")
    htmls = sorted(str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("*.html.j2"))
    assert htmls and all(env.autoescape(name) is True for name in htmls)  # type: ignore[operator]
    assert not any(env.autoescape(str(p.relative_to(TEMPLATES))) for p in TEMPLATES.rglob("*.txt.j2"))  # type: ignore[operator]
    assert env.autoescape("page.html") and env.autoescape("unknown")  # type: ignore[operator]
    assert str(env.from_string("{{ x }}").render(x="<b>")) == "&lt;b&gt;"


@pytest.mark.parametrize("name", HOSTILE)
def test_every_html_template_shows_a_hostile_name_only_escaped(name: str) -> None:
    htmls, loaded = _all_html(name)
    every = {str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("*.html.j2")}
    assert every <= loaded, f"not rendered here: {sorted(every - loaded)}"
    markup = name.replace("{{7*7}}", "")  # braces are not markup: they must only stay as typed
    for html in htmls:
        if markup:
            assert markup not in html, html
    joined = "\n".join(htmls)
    assert str(escape(name)) in joined  # the name is there, escaped
    if name == "{{7*7}}":
        assert "{{7*7}}" in joined and ">49<" not in joined


@pytest.mark.parametrize("text", ["<plaintext>", "<b>Ev1l</b>", "<!--", "<style>", "<a href=//x>", "Ana;", "Ana&Bo",
                                  "Ana/Bo", "Ana_", "(Ana)", "Ana!", 'Ana"', "Ana=1", "Ana*", "{{7*7}}",
                                  "B0t", "Bot", "BOT", "B O T", "b.o.t", "The Bot", "Bot 2", "Robot", "Bot-2",
                                  "..0002", "+1 555", "0002", "Ana 1234", "Computer"])
def test_names_that_are_markup_or_read_as_the_computer_or_a_number_are_refused(text: str) -> None:
    assert check_name(text) is None, text


@pytest.mark.parametrize("text, name", [("Ana", "Ana"), ("Jean-Luc", "Jean-Luc"), ("O'Neil", "O'Neil"),
                                        ("Dr. Who", "Dr. Who"), ("Ana 2", "Ana 2"), ("Νίκος", "NIKOΣ"),
                                        ("Søren", "Søren"), ("Botan", "Botan"), ("Abbott", "Abbott")])
def test_names_a_person_uses_are_taken(text: str, name: str) -> None:
    assert check_name(text) == name


def test_a_refused_name_is_told_what_a_name_may_hold(svc) -> None:  # type: ignore[no-untyped-def]
    lifecycle_command(svc, ANA, "HELP")  # not a new number any more (a new one is welcomed first)
    for text in ("NAME <b>Ev1l</b>", "NAME B0t", "NAME ..0002"):
        lifecycle_command(svc, ANA, text)
        said = local(svc, ANA)[-1]["body"]
        assert "letters or digits" in said and "Bot" in said and "<b>" not in said, said
    assert "name" not in svc.players.get(ANA)


def test_a_name_that_reads_as_the_opponent_s_is_refused(svc) -> None:  # type: ignore[no-untyped-def]
    lifecycle_command(svc, ANA, "NAME Ana")
    start_game(svc, ANA, BO)
    assert lifecycle_command(svc, BO, "NAME AnA.").outcome == "name_taken"
    assert "is taken" in local(svc, BO)[-1]["body"]
    assert lifecycle_command(svc, BO, "NAME 4na").outcome == "name_taken"  # a look-alike digit
    assert lifecycle_command(svc, BO, "NAME Ana2").outcome == "name_set"  # what the refusal suggests
