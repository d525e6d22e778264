"""What a message costs in money: the price table (``service/prices.toml``, or the operator's own file named by
``SLOWSPADES_PRICES_FILE``) and the price of one message by its channel and the recipient's country.

SMS are priced per segment (:func:`chat.gsm.segments`), outbound and inbound; a WhatsApp message pays Twilio's fee
(in or out) plus, outbound, Meta's fee of its kind: a free-form message inside the 24-hour window
(``whatsapp_service``) or a template of a category (``whatsapp_utility``, ``whatsapp_marketing``); an email one
price. The country is the phone number's (``phonenumbers``); a country the table does not list pays its
``[default]``. The table's header says where each figure comes from. Used by the daily spend cap
(:mod:`service.limits`), the spend metrics and ``bench/cost.py``. No I/O but reading the file once.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import phonenumbers

from chat.gsm import segments
from chat.render import whatsapp_parts

from .addresses import EMAIL, SMS, WHATSAPP, address_kind, phone_number

DEFAULT_FILE = Path(__file__).resolve().parent / "prices.toml"
FIELDS = ("sms_out", "sms_in", "whatsapp_service", "whatsapp_utility", "whatsapp_marketing")
#: Template categories a WhatsApp outbox entry may name (its ``template_category``; a template without: utility)
CATEGORIES = ("utility", "marketing")
#: Counters keep money in millionths of the table's currency (whole numbers: Redis INCRBY)
MICROS = 1_000_000


class PriceTableError(ValueError):
    """The price file is missing a figure or holds one that is not a number."""


@dataclass(frozen=True)
class Prices:
    """One price table: ``countries`` maps an ISO code (and ``"default"``) to its figures (:data:`FIELDS`)."""

    as_of: str
    currency: str
    countries: Mapping[str, Mapping[str, float]]
    whatsapp_fee: float
    email: float

    def of(self, country: str) -> Mapping[str, float]:
        """The figures of ``country`` (ISO code), else the default's."""
        return self.countries.get(country.upper(), self.countries["default"])

    def sms_out(self, country: str, segment_count: int = 1) -> float:
        return self.of(country)["sms_out"] * segment_count

    def sms_in(self, country: str, segment_count: int = 1) -> float:
        return self.of(country)["sms_in"] * segment_count

    def whatsapp_out(self, country: str, template: str = "") -> float:
        """An outbound WhatsApp message: free-form inside the window (``template`` empty), or a template of
        category ``template`` (``utility``, ``marketing``) outside it."""
        meta = self.of(country)[f"whatsapp_{template}" if template else "whatsapp_service"]
        return self.whatsapp_fee + meta

    def whatsapp_in(self, country: str) -> float:
        """An inbound WhatsApp message: Twilio's fee, whatever the country (Meta charges nothing for it)."""
        return self.whatsapp_fee

    def entry(self, entry: Mapping[str, Any]) -> float:
        """The price of an outbox entry (``channel``, ``to``, ``body``; a WhatsApp template's entry carries its
        ``content_sid``, :mod:`service.channels`, and is a utility template unless it names a ``template_category``)."""
        channel = entry.get("channel") or address_kind(str(entry.get("to", "")))
        if channel == EMAIL:
            return self.email
        country = country_of(str(entry.get("to", "")))
        if channel == WHATSAPP:
            parts = len(whatsapp_parts(str(entry.get("body", ""))))  # a text past Twilio's limit: several messages
            if not entry.get("content_sid"):
                return self.whatsapp_out(country) * parts
            category = str(entry.get("template_category") or "utility")
            return self.whatsapp_out(country, category if category in CATEGORIES else "utility")
        if channel == SMS:
            return self.sms_out(country, segments(str(entry.get("body", ""))))
        return 0.0


@lru_cache(maxsize=4096)
def country_of(address: str, default: str = "US") -> str:
    """The ISO country of a phone number or WhatsApp address (a number of no known region: its country code's
    main region, ``+1 555...`` is the US); ``default`` when it is no number at all. Cached: the same players are
    priced at every move."""
    try:
        parsed = phonenumbers.parse(phone_number(address), None)
    except phonenumbers.NumberParseException:
        return default
    return (phonenumbers.region_code_for_number(parsed)
            or phonenumbers.region_code_for_country_code(parsed.country_code or 0) or default)


def _number(table: Mapping[str, Any], key: str, where: str) -> float:
    value = table.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise PriceTableError(f"{where}.{key}: a price (a number, 0 or more) is needed, found {value!r}")
    return float(value)


def parse(data: Mapping[str, Any]) -> Prices:
    """A :class:`Prices` from a table's contents (as ``tomllib`` reads them); every country has every field (a
    country may leave some out: they are the default's)."""
    default = data.get("default") or {}
    countries: dict[str, dict[str, float]] = {"default": {k: _number(default, k, "default") for k in FIELDS}}
    for code, figures in (data.get("countries") or {}).items():
        merged = {**default, **figures}
        countries[code.upper()] = {k: _number(merged, k, f"countries.{code}") for k in FIELDS}
    return Prices(as_of=str(data.get("as_of", "")), currency=str(data.get("currency", "USD")), countries=countries,
                  whatsapp_fee=_number(data.get("whatsapp") or {}, "twilio_fee", "whatsapp"),
                  email=_number(data.get("email") or {}, "per_message", "email"))


@lru_cache(maxsize=8)
def load(path: str = "") -> Prices:
    """The table of ``path`` (the packaged ``service/prices.toml`` when empty), read once per process; a file that
    cannot be read, is not TOML or lacks a figure raises :class:`PriceTableError` naming it."""
    try:
        with open(path or DEFAULT_FILE, "rb") as f:
            return parse(tomllib.load(f))
    except (OSError, tomllib.TOMLDecodeError, PriceTableError) as exc:
        raise PriceTableError(f"the price table {path or DEFAULT_FILE} (SLOWSPADES_PRICES_FILE): {exc}") from exc


def prices(config: Mapping[str, Any]) -> Prices:
    """The service's table: ``PRICES_FILE`` of ``config``, else the packaged one."""
    return load(str(config.get("PRICES_FILE") or ""))


def to_micros(amount: float) -> int:
    """``amount`` in millionths (rounded), as the spend counters keep it."""
    return int(round(amount * MICROS))
