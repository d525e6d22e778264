"""The RULES reply links to /rules: that page must exist and show the rules the engine plays (RULES.md)."""

from __future__ import annotations


def test_rules_page_shows_the_rules_the_reply_links_to(client) -> None:  # type: ignore[no-untyped-def]
    resp = client.get("/rules")
    assert resp.status_code == 200
    assert resp.mimetype == "text/html"
    page = resp.get_data(as_text=True)
    # what a player looking for the rules needs: the draw, double nil, bags, the target, the decisions
    for words in ("The draw (there is no deal)", "Double nil", "Sandbagging", "500", "D9"):
        assert words in page
    assert "<script" not in page
