"""Twilio's REST API answered at the SDK's HTTP boundary, with its Content API: ``POST /v1/Content`` makes a content
resource (``HX...``), and a message sent with its ``ContentSid`` is checked as Twilio checks it (every variable given,
WhatsApp's limits in a session message: at most 3 quick-reply buttons, a list of 1 to 10 items, the lengths) and
refused with 21656 otherwise. :meth:`FakeTwilioContent.shown` is what the WhatsApp user sees of a message."""

from __future__ import annotations

import json
import re
from typing import Any

from twilio.http.response import Response

from .test_delivery import SID, FakeTwilioHttp

CONTENT_URL = "https://content.twilio.com/v1/Content"
VAR = re.compile(r"\{\{(\w+)\}\}")
#: WhatsApp's limits as Twilio's Content API pages give them (a session message, not approved)
LIMITS = {"body": 1024, "title": 20, "button": 20, "item": 24, "description": 72, "id": 200}


def _fill(value: Any, variables: dict[str, str], missing: list[str]) -> Any:
    """``value`` (a content type's data) with its ``{{n}}`` replaced; the names without a value go to ``missing``."""
    if isinstance(value, str):
        def one(m: re.Match[str]) -> str:
            if m.group(1) not in variables:
                missing.append(m.group(1))
            return variables.get(m.group(1), "")
        return VAR.sub(one, value)
    if isinstance(value, list):
        return [_fill(v, variables, missing) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, variables, missing) for k, v in value.items() if v is not None}
    return value


class FakeTwilioContent(FakeTwilioHttp):
    """:class:`FakeTwilioHttp` with the Content API: ``contents`` (sid -> the create request) and each refusal."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        super().__init__(statuses)
        self.contents: dict[str, dict[str, Any]] = {}
        self.refused: list[str] = []

    def request(self, method, uri, params=None, data=None, headers=None, auth=None, timeout=None,
                allow_redirects=False):  # type: ignore[no-untyped-def]
        if uri == CONTENT_URL and method == "POST":
            with self.lock:
                status = self.statuses.pop(0) if self.statuses else 201
            if status >= 400:
                return Response(status, json.dumps({"code": 20001 if status == 400 else 20500, "message": "nope",
                                                    "status": status}))
            return self._create(dict(data or {}), auth)
        content = self.contents.get(str((data or {}).get("ContentSid") or ""))
        if content is not None:
            why = self._check(content, json.loads((data or {}).get("ContentVariables") or "{}"))
            if why:
                with self.lock:
                    self.requests.append({"method": method, "uri": uri, "data": dict(data or {}), "auth": auth})
                    self.refused.append(why)
                return Response(400, json.dumps({"code": 21656, "message": why, "status": 400}))
        return super().request(method, uri, params, data, headers, auth, timeout, allow_redirects)

    def _create(self, data: dict[str, Any], auth: Any) -> Response:
        types = {k: v for k, v in (data.get("types") or {}).items() if v is not None}
        quick, listed = types.get("twilio/quick-reply"), types.get("twilio/list-picker")
        if not types or (quick and not 1 <= len(quick.get("actions") or []) <= 10) \
                or (listed and not 1 <= len(listed.get("items") or []) <= 10):
            return Response(400, json.dumps({"code": 20001, "message": "invalid types", "status": 400}))
        with self.lock:
            sid = f"HX{len(self.contents) + 1:032x}"
            self.contents[sid] = {**data, "types": types}
            self.requests.append({"method": "POST", "uri": CONTENT_URL, "data": data, "auth": auth})
        return Response(201, json.dumps({"sid": sid, "account_sid": SID, "friendly_name": data.get("friendly_name"),
                                         "language": data.get("language"), "variables": data.get("variables"),
                                         "types": types, "url": f"{CONTENT_URL}/{sid}", "links": {}}))

    def _check(self, content: dict[str, Any], variables: dict[str, str]) -> str:
        """Why Twilio would refuse this message of ``content`` (empty: it would not)."""
        missing: list[str] = []
        kind, data = next((k, v) for k, v in content["types"].items() if k != "twilio/text")
        shown = _fill(data, variables, missing)
        if missing:
            return f"variables not given: {missing}"
        texts: list[tuple[str, str]] = [("body", shown["body"])]
        if kind == "twilio/quick-reply":
            if len(shown["actions"]) > 3:
                return "more than 3 quick replies in a session message"
            texts += [(f, a[f]) for a in shown["actions"] for f in ("title", "id")]
        else:
            texts += [("button", shown["button"])] + [(f, i[f]) for i in shown["items"]
                                                      for f in ("item", "id", "description")]
        for field, value in texts:
            if not value.strip() or len(value) > LIMITS[field]:
                return f"{field} empty or past {LIMITS[field]} characters: {value!r}"
        return ""

    def shown(self, request: dict[str, Any]) -> dict[str, Any]:
        """What a message sent with a content of ours shows: ``kind``, ``body`` and ``buttons`` (title, id)."""
        content = self.contents[request["data"]["ContentSid"]]
        kind, data = next((k, v) for k, v in content["types"].items() if k != "twilio/text")
        shown = _fill(data, json.loads(request["data"]["ContentVariables"]), [])
        pairs = [(a["title"], a["id"]) for a in shown.get("actions", [])] or \
                [(i["item"], i["id"]) for i in shown.get("items", [])]
        return {"kind": kind, "body": shown["body"], "buttons": pairs, "button": shown.get("button")}
