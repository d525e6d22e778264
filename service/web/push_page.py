"""What a seat's game page needs to offer "Notify me here" (:mod:`.push_box`; the part of the page:
``templates/web/_push.html.j2``), apart from the routes so the page (:mod:`.game`) can name them."""

from __future__ import annotations

from flask import current_app, url_for

from .. import webpush


def page_context(token: str) -> dict[str, str]:
    """What the page's "Notify me here" part (``templates/web/_push.html.j2``) needs: nothing while push is off."""
    key = webpush.public_key(current_app.config)
    if not key:
        return {"push_key": ""}
    return {"push_key": key, "push_url": url_for("push_box.subscribe", token=token),
            "manifest_url": url_for("push_box.manifest", token=token), "sw_url": url_for("push_box.service_worker"),
            "push_script_url": url_for("push_box.script")}
