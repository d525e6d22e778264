"""From what a player texted to an :class:`Intent`: an engine command waiting for its seat, or a meta command.

:func:`parse` is pure and knows nothing of the game: ``QH`` is a ``play``
intent whether or not the player holds the queen of hearts, and ``4`` is a
``bid`` in every phase; the engine decides legality, and
:meth:`Intent.command` adapts the few replies whose meaning depends on the
phase (a single card during the exchange, ``0`` or ``NONE`` meaning swap
nothing).

Tolerant of case, accents, extra spaces and punctuation, ``10`` or ``T``, suit
symbols (``♥Q``, ``Q♥️``), Greek look-alike capitals, and the words of the
player's language besides English. An optional ``#N`` prefix names one of the
player's games. The carrier keywords (STOP, UNSUBSCRIBE, END, QUIT, STOPALL,
REVOKE, OPTOUT, CANCEL; START; HELP) mean only what carriers make them mean,
whatever follows them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Optional

from spades.cards import RANK_NAMES, Card, Suit, parse_card
from spades.commands import Bid, Command, DeclareDoubleNil, DeclineDoubleNil, Discard, Exchange, Forfeit, Keep, Play
from spades.errors import CardSyntaxError
from spades.events import DEFAULT_FLOOR, HouseRules
from spades.plans import HIGH, LOW, WIN, Follow, Plan

from .languages import LANGUAGES, SUIT_INITIALS, normalize_language, supported
from .names import check_name
from .normalize import normalize

MAX_LENGTH = 1600  # ten segments; anything longer is not a reply to a prompt

#: Intent kinds that become an engine command (see :meth:`Intent.command`).
ENGINE_KINDS = frozenset({"double_nil", "draw", "keep", "discard", "exchange", "bid", "play", "resign"})
#: Intent kinds the service handles itself.
META_KINDS = frozenset({
    "stop", "start", "help", "hand", "score", "rules", "lang", "new", "yes", "no", "games",
    "remind", "pause", "tz", "auto", "autoplay", "dn_setting", "claim", "rematch", "name", "web",
    "link", "unlink", "via", "plan", "say", "mute", "unmute", "last", "stats",
})
#: Twilio's / carriers' reserved opt-out words.
OPT_OUT_WORDS = ("STOP", "UNSUBSCRIBE", "END", "QUIT", "STOPALL", "REVOKE", "OPTOUT", "CANCEL")
OPT_IN_WORDS = ("START", "UNSTOP")
HELP_WORDS = ("HELP", "INFO")


@dataclass(frozen=True, slots=True)
class Intent:
    """What a player's message asks for.

    ``kind`` is one of :data:`ENGINE_KINDS`, :data:`META_KINDS` or ``"unknown"``.
    Arguments, depending on the kind:

    * ``play``: ``card``; ``exchange``: ``cards`` (0 to any number; the engine checks 0-3);
      ``bid``: ``number`` (0 is nil; out-of-range numbers are left to the engine);
    * ``lang``: ``arg`` = a supported language code; ``rematch``: ``arg`` = ``"easier"`` or ``"harder"``
      (the computer one level down or up) or None; ``new``: ``arg`` = ``"BOT"`` (``"BOT EASY"``,
      ``"BOT NORMAL"``, ``"BOT HARD"``: the computer's level), an
      E.164-ish phone number (``+33612345678``) or an email address, and ``rules``;
      ``remind`` / ``auto`` / ``autoplay`` / ``dn_setting``: ``flag`` (True = on; ``dn_setting`` on =
      "ask me DN or DRAW at each hand", off = "always DRAW"); ``pause``: ``number`` (days, 0 to end a pause: ``PAUSE 0``, ``RESUME``;
      None if not given); ``tz``: ``arg`` = the zone name as typed; ``name``: ``arg`` = the
      name the player chose (checked by :func:`chat.names.check_name`: GSM-7, 1 to 12 characters,
      not a phone number or an address); ``link``: ``arg`` = an address to link to the player's (E.164-ish
      number, ``whatsapp:+<number>`` or an email address), or the six-digit code sent back from it; ``unlink``:
      ``arg`` = the address to unlink, or None (the one the message came from); ``via``: ``arg`` = ``sms``,
      ``email``, ``whatsapp`` or one address;
    * ``stop`` / ``start`` / ``help``: ``carrier`` is True for the carrier-reserved words
      (Twilio acts on those itself), False for a local word (``ARRET``, ``STOPP``...)
      the service must honour on its own;
    * ``unknown``: ``reason`` is ``empty``, ``too_long``, ``bad_card`` (``arg`` = the token),
      ``bad_lang`` (``arg`` = what was typed), ``missing_arg`` (``arg`` = the command word),
      ``bad_address`` (``NEW`` with something that is neither a number nor an address; ``arg`` =
      it), ``bad_link`` (the same after ``LINK`` / ``UNLINK``), ``bad_name`` (``arg`` = the name refused), ``greeting`` (``HI``, ``BONJOUR``...: say
      what this is), ``bad_number`` or ``not_understood``.
    * ``say``: ``arg`` = the line for the opponent, as typed (its whitespace one space; not trimmed to a length:
      :mod:`service.lifecycle.talk` does, saying so); ``mute`` / ``unmute``: no argument (the talk off or on).
    * ``stats``: the player's record (games, wins, bids and nils made), no argument.
    * ``last``: the trick played before (or the decided tricks that ended a hand), no argument.
    * ``web``: the link of the player's private page of the game (issue 14), no argument.
    * ``plan`` (answers given ahead, RULES D12): ``plan`` = the entries given (a :class:`spades.plans.Plan` of hand
      0: the service puts it in the hand in play), ``flag`` False for ``PLAN OFF`` (clear it), neither for ``PLAN``
      (show it). ``IF H 4H S AS D LOW C WIN`` (the follows for the next trick), ``ALWAYS D LOW`` (for every trick of
      the hand), ``LEAD AS KS`` (the next leads, in order), ``BID 0-3 5 4+ 3`` (a bid by the opponent's; a plain
      ``BID 4`` is a ``bid``, which the service keeps as a plan when the player's turn to bid has not come),
      ``DN HIGH`` (double nil, throwing the three highest cards in the exchange: ``double_nil`` with ``plan``).
      Unknown with the reason ``bad_plan`` (``arg``: the word at fault).

    ``game`` is the ``#N`` prefix (None when absent); ``text`` the message as received.
    """

    kind: str
    game: Optional[int] = None
    card: Optional[Card] = None
    cards: tuple[Card, ...] = ()
    number: Optional[int] = None
    flag: Optional[bool] = None
    arg: Optional[str] = None
    rules: Optional[HouseRules] = None
    reason: Optional[str] = None
    carrier: bool = False
    plan: Optional[Plan] = None
    text: str = field(default="", compare=False)

    @property
    def is_engine(self) -> bool:
        return self.kind in ENGINE_KINDS

    @property
    def is_unknown(self) -> bool:
        return self.kind == "unknown"

    def command(self, seat: int, phase: str | None = None) -> Command | None:
        """The engine command this intent is for the player at ``seat`` (None for meta and unknown intents).

        ``phase`` (the game's phase) resolves the replies whose meaning depends on it:
        during the exchange a lone card or a bare ``0`` is an exchange.
        """
        k = self.kind
        if k == "keep":
            return Keep(seat)
        if k == "discard":
            return Discard(seat)
        if k == "double_nil":
            return DeclareDoubleNil(seat)
        if k == "draw":
            return DeclineDoubleNil(seat)
        if k == "resign":
            return Forfeit(seat, "resigned")
        if k == "exchange":
            return Exchange(seat, tuple(self.cards))
        if k == "play":
            assert self.card is not None
            if phase == "exchange":
                return Exchange(seat, (self.card,))
            return Play(seat, self.card)
        if k == "bid":
            assert self.number is not None
            if phase == "exchange" and self.number == 0:
                return Exchange(seat, ())
            return Bid(seat, self.number)
        return None


# -- vocabulary -----------------------------------------------------------------------------------------
# kind -> words or phrases, in natural spelling (normalised below). English words are accepted in every
# language; a language's own words only in that language (so French MAIN "hand" and Indonesian MAIN "play"
# never meet).
_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "plan": ("PLAN", "MY PLAN"),
        "if": ("IF", "IF THEY LEAD"),
        "always": ("ALWAYS",),
        "lead": ("LEAD", "LEADS"),
        "low": ("LOW", "LOWEST"),
        "win": ("WIN", "WINNING"),
        "high": ("HIGH", "HIGHEST"),
        "keep": ("K", "KEEP", "KEEP IT"),
        "discard": ("D", "DISCARD", "DISC", "TOSS", "DISCARD IT", "TOSS IT", "D IT"),
        "double_nil": ("DN", "DOUBLE NIL", "DOUBLENIL", "BLIND NIL", "BLINDNIL", "DBL NIL"),
        "draw": ("DRAW", "NO DN", "DR"),
        "exchange": ("SWAP", "EXCHANGE", "THROW"),
        "none": ("NONE", "NOTHING", "NO CARDS"),
        "bid": ("BID", "I BID", "I LL BID", "I WILL BID", "MY BID", "MY BID IS", "BID IS"),
        "nil": ("NIL",),
        "play": ("PLAY",),
        "hand": ("HAND", "CARDS", "STATUS"),
        "score": ("SCORE", "SCORES"),
        "rules": ("RULES",),
        "web": ("WEB", "PAGE", "SHEET"),  # (LINK alone too: :func:`_link_intent`)
        "link": ("LINK",),
        "unlink": ("UNLINK",),
        "via": ("VIA",),
        "resign": ("RESIGN", "FORFEIT", "GIVE UP", "CONCEDE"),
        "lang": ("LANG", "LANGUAGE"),
        "new": ("NEW", "INVITE", "CHALLENGE"),
        "yes": ("YES", "Y", "YEP", "YEAH", "OK", "OKAY", "SURE"),
        "no": ("NO", "N", "NOPE"),
        "games": ("GAMES", "LIST"),
        "remind": ("REMIND", "REMINDER", "REMINDERS"),
        "pause": ("PAUSE",),
        "tz": ("TZ", "TIMEZONE", "TIME ZONE"),
        "auto": ("AUTO",),
        "autoplay": ("AUTOPLAY", "AUTO PLAY"),
        "claim": ("CLAIM",),
        "rematch": ("REMATCH",),
        "name": ("NAME", "MY NAME"),
        "say": ("SAY", "CHAT", "TELL", "TELL THEM"),
        "mute": ("MUTE", "MUTE CHAT"),
        "unmute": ("UNMUTE", "UNMUTE CHAT"),
        "last": ("LAST", "LAST TRICK", "PREVIOUS"),
        "stats": ("STATS", "STATISTICS", "MY STATS", "RECORD"),
        "resume": ("RESUME", "UNPAUSE"),
        "vacation": ("VACATION", "VACATIONS", "HOLIDAY", "HOLIDAYS"),  # no such command: PAUSE is (a reply says)
        "greeting": ("HI", "HELLO", "HEY", "HIYA", "YO", "GOOD MORNING", "GOOD EVENING"),
        "on": ("ON",),
        "off": ("OFF",),
        "bot": ("BOT", "ROBOT", "COMPUTER"),
        "stop": (),
    },
    "fr": {
        "plan": ("PLAN", "MON PLAN"),
        "if": ("SI",),
        "always": ("TOUJOURS",),
        "lead": ("ENTAME", "ENTAMER", "J ENTAME"),
        "low": ("BAS", "PETITE"),
        "win": ("GAGNE", "GAGNANTE"),
        "high": ("HAUT", "FORTE"),
        "keep": ("GARDE", "GARDER", "JE GARDE", "GARDE LA", "GARDE-LA"),
        "discard": ("JETTE", "JETER", "DEFAUSSE", "DEFAUSSER", "JE JETTE", "JETTE LA", "JETTE-LA"),
        "double_nil": ("DOUBLE NUL", "NUL AVEUGLE", "DOUBLE ZERO"),
        "draw": ("TIRE", "TIRER", "PIOCHE", "PIOCHER", "JE TIRE"),
        "exchange": ("ECHANGE", "ECHANGER"),
        "none": ("AUCUNE", "AUCUN", "RIEN"),
        "bid": ("ANNONCE", "ENCHERE", "MISE", "PARI", "J ANNONCE", "JANNONCE", "JE MISE"),
        "nil": ("NUL", "ZERO"),
        "play": ("JOUE", "JOUER", "JE JOUE"),
        "help": ("AIDE",),
        "hand": ("MAIN", "JEU", "CARTES"),
        "score": ("POINTS", "MARQUE"),
        "rules": ("REGLES", "REGLE"),
        "web": ("PAGE", "LIEN"),  # (PAGE first: the word HELP shows; LIEN <address> is LINK's, see :func:`_parse`)
        "link": ("LIER",),
        "resign": ("ABANDON", "ABANDONNER", "J ABANDONNE", "JABANDONNE"),
        "lang": ("LANGUE",),
        "new": ("NOUVELLE", "NOUVEAU", "DEFI", "INVITER"),
        "yes": ("OUI", "O", "D ACCORD", "DACCORD"),
        "no": ("NON",),
        "games": ("PARTIES",),
        "remind": ("RAPPEL", "RAPPELS"),
        "tz": ("FUSEAU",),
        "autoplay": ("JEU AUTOMATIQUE", "JEU AUTO"),
        "claim": ("RECLAMER", "RECLAME"),
        "rematch": ("REVANCHE",),
        "name": ("NOM", "PSEUDO"),
        "say": ("DIS", "DIRE", "DIS LUI"),
        "mute": ("SILENCE",),
        "unmute": ("PAROLE",),
        "last": ("DERNIER", "DERNIER PLI"),
        "stats": ("STATISTIQUES", "BILAN"),
        "resume": ("REPRENDRE", "REPRISE"),
        "vacation": ("VACANCES", "CONGE", "CONGES"),
        "greeting": ("BONJOUR", "SALUT", "COUCOU", "BONSOIR"),
        "on": ("OUI", "ACTIF", "MARCHE"),
        "off": ("NON", "INACTIF", "ARRET"),
        "stop": ("ARRET", "ARRETER", "DESINSCRIRE"),
    },
    "nb": {
        "plan": ("PLAN", "PLANEN"),
        "if": ("HVIS",),
        "always": ("ALLTID",),
        "lead": ("SPILL UT", "UTSPILL"),
        "low": ("LAV", "LAVEST"),
        "win": ("VINN", "VINNER"),
        "high": ("HØY", "HØYEST"),
        "keep": ("BEHOLD", "BEHOLDE", "BEHOLD DEN"),
        "discard": ("KAST", "KASTE", "KAST DEN"),
        "double_nil": ("DOBBEL NULL", "DOBBELNULL", "BLIND NULL", "DOBBEL NIL"),
        "draw": ("TREKK", "TREKKE"),
        "exchange": ("BYTT", "BYTTE"),
        "none": ("INGEN", "INGENTING"),
        "bid": ("MELD", "BY", "BUD", "JEG MELDER", "MELDER", "JEG BYR"),
        "nil": ("NULL",),
        "play": ("SPILL",),
        "help": ("HJELP",),
        "hand": ("HÅND", "KORT"),
        "score": ("POENG", "STILLING"),
        "rules": ("REGLER",),
        "web": ("SIDE", "LENKE"),
        "link": ("KOBLE",),
        "resign": ("GI OPP", "GIOPP", "OPPGI"),
        "lang": ("SPRÅK",),
        "new": ("NY", "NYTT", "UTFORDRE"),
        "yes": ("JA",),
        "no": ("NEI",),
        "games": ("PARTIER", "SPILLENE"),
        "remind": ("MINN", "PÅMINNELSE", "PÅMINNELSER"),
        "tz": ("TIDSSONE",),
        "autoplay": ("AUTOSPILL",),
        "claim": ("KREV",),
        "rematch": ("OMKAMP", "REVANSJ"),
        "name": ("NAVN",),
        "say": ("SI", "SI TIL"),
        "mute": ("STILLE",),
        "unmute": ("SNAKK",),
        "last": ("SISTE", "SISTE STIKK"),
        "stats": ("STATISTIKK",),
        "resume": ("FORTSETT",),
        "vacation": ("FERIE",),
        "greeting": ("HEI", "HALLO", "HEISANN", "GOD DAG"),
        "on": ("PÅ", "JA"),
        "off": ("AV", "NEI"),
        "stop": ("STOPP", "AVSLUTT"),
    },
    "id": {
        "plan": ("RENCANA",),
        "if": ("JIKA", "KALAU"),
        "always": ("SELALU",),
        "lead": ("BUKA", "BUKA DENGAN"),
        "low": ("RENDAH", "TERENDAH"),
        "win": ("MENANG",),
        "high": ("TINGGI", "TERTINGGI"),
        "keep": ("SIMPAN", "AMBIL"),
        "discard": ("BUANG", "BUANG SAJA"),
        "double_nil": ("NIL GANDA", "DOBEL NIL", "NIL BUTA"),
        "draw": ("TARIK", "LIHAT"),
        "exchange": ("TUKAR",),
        "none": ("TIDAK ADA", "KOSONG"),
        "bid": ("TAWAR", "TAWARAN", "SAYA TAWAR", "AKU TAWAR"),
        "nil": ("NOL",),
        "play": ("MAIN", "MAINKAN"),
        "help": ("BANTUAN", "TOLONG"),
        "hand": ("KARTU", "TANGAN"),
        "score": ("SKOR", "NILAI"),
        "rules": ("ATURAN",),
        "web": ("HALAMAN", "TAUTAN"),
        "link": ("TAUTKAN",),
        "pause": ("JEDA",),
        "resign": ("MENYERAH", "NYERAH"),
        "lang": ("BAHASA",),
        "new": ("BARU", "TANTANG"),
        "yes": ("YA", "IYA"),
        "no": ("TIDAK", "TDK", "GAK", "NGGAK", "ENGGAK"),
        "games": ("PERMAINAN",),
        "remind": ("INGATKAN", "PENGINGAT"),
        "tz": ("ZONA",),
        "auto": ("OTOMATIS",),
        "autoplay": ("MAIN OTOMATIS",),
        "claim": ("KLAIM",),
        "rematch": ("TANDING ULANG", "MAIN LAGI"),
        "name": ("NAMA",),
        "say": ("BILANG", "KATAKAN"),
        "mute": ("BISU",),
        "unmute": ("SUARA",),
        "last": ("TERAKHIR", "TRIK TERAKHIR"),
        "stats": ("STATISTIK",),
        "resume": ("LANJUT", "LANJUTKAN"),
        "vacation": ("LIBUR", "CUTI"),
        "greeting": ("HALO", "HAI", "SELAMAT PAGI", "SELAMAT SIANG", "SELAMAT MALAM"),
        "on": ("NYALA", "HIDUP", "AKTIF", "YA"),
        "off": ("MATI", "NONAKTIF", "TIDAK"),
        "stop": ("BERHENTI",),
    },
    "el": {
        "plan": ("ΣΧΕΔΙΟ", "SXEDIO"),
        "if": ("ΑΝ",),
        "always": ("ΠΑΝΤΑ", "PANTA"),
        "lead": ("ΑΝΟΙΓΩ", "ΑΝΟΙΓΜΑ", "ANOIGO"),
        "low": ("ΧΑΜΗΛΟ", "ΧΑΜΗΛΑ"),
        "win": ("ΚΕΡΔΙΖΩ", "ΚΕΡΔΙΣΕ"),
        "high": ("ΨΗΛΟ", "ΨΗΛΑ"),
        "keep": ("ΚΡΑΤΑ", "ΚΡΑΤΩ", "ΚΡΑΤΑΩ", "KRATO", "KRATAO", "KRATA"),
        "discard": ("ΠΕΤΑ", "ΠΕΤΑΩ", "ΠΕΤΑΞΕ", "PETAO", "PETA", "ΠΕΤΑ ΤΟ", "ΠΕΤΑΞΕ ΤΟ"),
        "double_nil": ("ΔΙΠΛΟ ΜΗΔΕΝ", "ΔΙΠΛΟ NIL", "ΤΥΦΛΟ ΜΗΔΕΝ", "DIPLO MIDEN"),
        "draw": ("ΤΡΑΒΑ", "ΤΡΑΒΑΩ", "ΤΡΑΒΗΞΕ", "TRAVAO", "TRAVA"),
        "exchange": ("ΑΛΛΑΓΗ", "ΑΛΛΑΖΩ", "ΑΛΛΑΞΕ", "ALLAGI", "ΑΝΤΑΛΛΑΓΗ"),
        "none": ("ΚΑΜΙΑ", "ΤΙΠΟΤΑ", "KAMIA", "TIPOTA"),
        "bid": ("ΔΗΛΩΝΩ", "ΔΗΛΩΣΗ", "DILONO"),
        "nil": ("ΜΗΔΕΝ", "MIDEN"),
        "play": ("ΠΑΙΖΩ", "ΠΑΙΞΕ", "PAIZO"),
        "help": ("ΒΟΗΘΕΙΑ", "VOITHEIA", "VOITHIA"),
        "hand": ("ΧΕΡΙ", "ΦΥΛΛΑ", "XERI", "FYLLA"),
        "score": ("ΣΚΟΡ", "ΠΟΝΤΟΙ"),
        "rules": ("ΚΑΝΟΝΕΣ", "KANONES"),
        "web": ("ΣΕΛΙΔΑ", "SELIDA"),
        "link": ("ΣΥΝΔΕΣΗ", "ΣΥΝΔΕΣΕ", "SYNDESI"),
        "pause": ("ΠΑΥΣΗ", "PAFSI"),
        "resign": ("ΠΑΡΑΙΤΗΣΗ", "ΠΑΡΑΙΤΟΥΜΑΙ", "PARAITISI"),
        "lang": ("ΓΛΩΣΣΑ", "GLOSSA"),
        "new": ("ΝΕΟ", "ΝΕΑ", "NEO"),
        "yes": ("ΝΑΙ", "NAI"),
        "no": ("ΟΧΙ", "OXI", "OCHI"),
        "games": ("ΠΑΙΧΝΙΔΙΑ", "ΠΑΡΤΙΔΕΣ"),
        "remind": ("ΥΠΕΝΘΥΜΙΣΗ",),
        "tz": ("ΖΩΝΗ",),
        "auto": ("ΑΥΤΟΜΑΤΟ",),
        "autoplay": ("ΑΥΤΟΜΑΤΟ ΠΑΙΞΙΜΟ",),
        "claim": ("ΔΙΕΚΔΙΚΩ",),
        "rematch": ("ΡΕΒΑΝΣ", "REVANS"),
        "name": ("ΟΝΟΜΑ", "ONOMA"),
        "say": ("ΠΕΣ", "ΠΕΣ ΤΟΥ"),
        "mute": ("ΣΙΩΠΗ",),
        "unmute": ("ΦΩΝΗ",),
        "last": ("ΤΕΛΕΥΤΑΙΑ", "ΤΕΛΕΥΤΑΙΟ"),
        "stats": ("ΣΤΑΤΙΣΤΙΚΑ",),
        "resume": ("ΣΥΝΕΧΕΙΑ",),
        "vacation": ("ΔΙΑΚΟΠΕΣ", "DIAKOPES"),
        "greeting": ("ΓΕΙΑ", "ΓΕΙΑ ΣΟΥ", "ΓΕΙΑ ΣΑΣ", "ΚΑΛΗΜΕΡΑ", "ΚΑΛΗΣΠΕΡΑ", "GEIA", "YASOU", "GIA SOU"),
        "on": ("ΝΑΙ", "ΑΝΟΙΧΤΟ", "ΕΝΕΡΓΟ", "NAI"),
        "off": ("ΟΧΙ", "ΚΛΕΙΣΤΟ", "ΑΝΕΝΕΡΓΟ", "OXI"),
        "stop": ("ΣΤΟΠ",),
    },
}

# rank and suit words for "queen of hearts", "dame de coeur", "ess spar"...
_RANK_WORDS = {
    "ACE": 14, "KING": 13, "QUEEN": 12, "JACK": 11, "TEN": 10,
    "AS": 14, "ROI": 13, "DAME": 12, "VALET": 11, "DIX": 10,
    "ESS": 14, "KONGE": 13, "KNEKT": 11, "TI": 10,
    "RAJA": 13, "RATU": 12, "PANGERAN": 11, "SEPULUH": 10,
    "ΑΣΣΟΣ": 14, "ΑΣΟΣ": 14, "ΡΗΓΑΣ": 13, "ΝΤΑΜΑ": 12, "ΒΑΛΕΣ": 11, "ΦΑΝΤΗΣ": 11,
}
_SUIT_WORDS = {
    "SPADES": "S", "SPADE": "S", "HEARTS": "H", "HEART": "H", "DIAMONDS": "D", "DIAMOND": "D",
    "CLUBS": "C", "CLUB": "C",
    "PIQUE": "S", "PIQUES": "S", "COEUR": "H", "COEURS": "H", "CŒUR": "H", "CARREAU": "D", "CARREAUX": "D",
    "TREFLE": "C", "TREFLES": "C",
    "SPAR": "S", "HJERTER": "H", "RUTER": "D", "KLØVER": "C",
    "SEKOP": "S", "HATI": "H", "WAJIK": "D", "KERITING": "C",
    "ΜΠΑΣΤΟΥΝΙ": "S", "ΜΠΑΣΤΟΥΝΙΑ": "S", "ΚΟΥΠΑ": "H", "ΚΟΥΠΕΣ": "H", "ΚΑΡΟ": "D", "ΣΠΑΘΙ": "C", "ΣΠΑΘΙΑ": "C",
}
_OF_WORDS = frozenset({"OF", "DE", "DU", "I", "AV", "ΣΤΟ"})
#: A rank written as on the card, before OF and a suit word ("5 of hearts", "Q of clubs").
_RANK_CODES = {**{str(n): n for n in range(2, 11)}, "T": 10, "J": 11, "Q": 12, "K": 13, "A": 14}
#: Numbers as words (a bid: "bid four", "quatre plis"): English in every language, each language its own too.
_NUMBER_WORDS: dict[str, tuple[str, ...]] = {  # 0 to 13, in order
    "en": ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "ELEVEN", "TWELVE",
           "THIRTEEN"),
    "fr": ("ZERO", "UN", "DEUX", "TROIS", "QUATRE", "CINQ", "SIX", "SEPT", "HUIT", "NEUF", "DIX", "ONZE", "DOUZE",
           "TREIZE"),
    "nb": ("NULL", "EN", "TO", "TRE", "FIRE", "FEM", "SEKS", "SJU", "ÅTTE", "NI", "TI", "ELLEVE", "TOLV", "TRETTEN"),
    "id": ("NOL", "SATU", "DUA", "TIGA", "EMPAT", "LIMA", "ENAM", "TUJUH", "DELAPAN", "SEMBILAN", "SEPULUH",
           "SEBELAS", "DUA BELAS", "TIGA BELAS"),
    "el": ("ΜΗΔΕΝ", "ΕΝΑ", "ΔΥΟ", "ΤΡΙΑ", "ΤΕΣΣΕΡΑ", "ΠΕΝΤΕ", "ΕΞΙ", "ΕΠΤΑ", "ΟΚΤΩ", "ΕΝΝΙΑ", "ΔΕΚΑ", "ΕΝΤΕΚΑ",
           "ΔΩΔΕΚΑ", "ΔΕΚΑΤΡΙΑ"),
}
_NUMBERS_N = {lang: {normalize(w): n for src in ("en", lang) for n, w in enumerate(_NUMBER_WORDS[src])}
              for lang in LANGUAGES}
#: "4 tricks": the word for tricks after a bid, in every language.
_TRICK_WORDS = frozenset(normalize(w) for w in ("TRICK", "TRICKS", "PLI", "PLIS", "STIKK", "TRIK", "ΜΠΑΖΑ", "ΜΠΑΖΕΣ"))
#: An emoji meaning yes or agreed, as a whole message (``OK`` is a yes already); other emoji are left out.
_YES_EMOJI = frozenset("\U0001F44D\U0001F44C\u2705\U0001F197\u2714")
_SKIN_TONES = frozenset(chr(c) for c in range(0x1F3FB, 0x1F400))


def _norm_table() -> dict[str, dict[str, str]]:
    """language -> {normalised phrase: kind}; English first, the language's own words override."""
    tables: dict[str, dict[str, str]] = {}
    for lang in LANGUAGES:
        table: dict[str, str] = {}
        for source in ("en", lang) if lang != "en" else ("en",):
            for kind, words in _WORDS[source].items():
                if kind in ("on", "off"):
                    continue  # only after REMIND, AUTO, DN...
                for w in words:
                    table[normalize(w)] = kind
        tables[lang] = table
    return tables


_TABLES = _norm_table()
_ON_OFF = {lang: ({normalize(w) for w in _WORDS["en"]["on"] + _WORDS[lang].get("on", ()) + _WORDS["en"]["yes"]},
                  {normalize(w) for w in _WORDS["en"]["off"] + _WORDS[lang].get("off", ()) + _WORDS["en"]["no"]})
           for lang in LANGUAGES}
_RANKS_N = {normalize(k): v for k, v in _RANK_WORDS.items()}
_SUITS_N = {normalize(k): v for k, v in _SUIT_WORDS.items()}
_OPT_OUT = frozenset(OPT_OUT_WORDS) | {"OPT OUT", "STOP ALL"}
_PREFIX = re.compile(r"^\s*#\s*(\d{1,6})(?!\d)[\s:.,;)\-]*")
_CARDISH = re.compile(r"^(?:\d{1,2}|[A-Z])[SHDC]$|^[SHDC](?:\d{1,2}|[A-Z])$")
_CARD_RUN = re.compile(r"(10|[2-9TJQKA])([SHDC])")
_NUMBER = re.compile(r"^-?\d{1,4}$")
_PHONE = re.compile(r"^\+?[\d().\-]+$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class _Say:
    """Builds the intents of one message: each carries the message's text and its ``#N`` prefix."""

    text: str
    game: Optional[int] = None

    def __call__(self, kind: str, *, card: Optional[Card] = None, cards: tuple[Card, ...] = (),
                 number: Optional[int] = None, flag: Optional[bool] = None, arg: Optional[str] = None,
                 rules: Optional[HouseRules] = None, reason: Optional[str] = None, carrier: bool = False,
                 plan: Optional[Plan] = None) -> Intent:
        return Intent(kind, game=self.game, card=card, cards=cards, number=number, flag=flag, arg=arg, rules=rules,
                      reason=reason, carrier=carrier, plan=plan, text=self.text)


def _card(token: str, lang: str) -> Card | None:
    try:
        return parse_card(token, SUIT_INITIALS.get(lang) or None)
    except CardSyntaxError:
        return None


def _cards(tokens: list[str], lang: str) -> list[Card] | None:
    """The cards named by ``tokens`` (``2C 7D``, ``2C7D``, ``Q H 10 S``, ``queen of hearts``), or None."""
    joined = "".join(tokens)
    one = _card(joined, lang)
    if one is not None:
        return [one]
    out: list[Card] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        card = None
        if tok in _RANKS_N and i + 1 < len(tokens) and (tokens[i + 1] in _OF_WORDS or tokens[i + 1] in _SUITS_N):
            card = None  # "as de pique": the rank word first
        else:
            card = _card(tok, lang)
        if card is None and i + 1 < len(tokens) and tok not in _RANKS_N:
            card = _card(tok + tokens[i + 1], lang)
            if card is not None:
                i += 1
        if card is None and tok in _RANKS_N:
            j = i + 1
            if j < len(tokens) and tokens[j] in _OF_WORDS:
                j += 1
            if j < len(tokens) and tokens[j] in _SUITS_N:
                card = _card(RANK_NAMES.get(_RANKS_N[tok], str(_RANKS_N[tok])) + _SUITS_N[tokens[j]], lang)
                i = j
        if card is None and tok in _RANK_CODES and i + 1 < len(tokens):  # "5 of hearts", "Q of clubs"
            j = i + 2 if tokens[i + 1] in _OF_WORDS else i + 1
            if j < len(tokens) and tokens[j] in _SUITS_N:
                card = _card(RANK_NAMES.get(_RANK_CODES[tok], str(_RANK_CODES[tok])) + _SUITS_N[tokens[j]], lang)
                i = j
        if card is None and tok in _SUITS_N and i + 1 < len(tokens) and tokens[i + 1] in _RANKS_N:
            card = _card(RANK_NAMES.get(_RANKS_N[tokens[i + 1]], str(_RANKS_N[tokens[i + 1]])) + _SUITS_N[tok], lang)
            i += 1
        if card is None:
            run = _CARD_RUN.findall(tok)
            if run and "".join(r + s for r, s in run) == tok:
                found = [_card(r + s, lang) for r, s in run]
                if any(c is None for c in found):
                    return None
                out.extend(c for c in found if c is not None)
                i += 1
                continue
            return None
        out.append(card)
        i += 1
    return out or None


def _match(tokens: list[str], table: dict[str, str]) -> tuple[str | None, list[str]]:
    """The kind of the longest phrase ``tokens`` begin with (up to three words), and the tokens after it."""
    for n in (3, 2, 1):
        if len(tokens) >= n:
            kind = table.get(" ".join(tokens[:n]))
            if kind:
                return kind, tokens[n:]
    return None, tokens


def _count(tokens: list[str], lang: str) -> int | None:
    """A number of tricks: ``4``, ``four``, ``4 tricks``, ``quatre plis``, ``dua belas`` (None if it is not one)."""
    if len(tokens) > 1 and tokens[-1] in _TRICK_WORDS:
        tokens = tokens[:-1]
    if len(tokens) == 1 and _NUMBER.match(tokens[0]):
        return int(tokens[0])
    return _NUMBERS_N[lang].get(" ".join(tokens))


def _emoji(token: str) -> bool:
    """Whether ``token`` is only pictures (emoji, skin tones, joiners): no letter, digit or suit."""
    return all(unicodedata.category(ch) in ("So", "Sk", "Cn") or ch in _SKIN_TONES for ch in token)


def _without_emoji(tokens: list[str]) -> tuple[list[str], bool]:
    """The tokens with the emoji left out (``K 👍``: ``K``), and whether a yes emoji (``👍``, ``👌``) was among them."""
    words, yes = [], False
    for token in tokens:
        if token.isascii():  # no picture in it
            words.append(token)
            continue
        pictures = "".join(ch for ch in token if _emoji(ch))
        yes = yes or any(ch in _YES_EMOJI for ch in pictures)
        rest = "".join(ch for ch in token if not _emoji(ch))
        if rest:
            words.append(rest)
    return words, yes


def _flag(rest: list[str], lang: str) -> bool | None:
    if not rest:
        return None
    on, off = _ON_OFF[lang]
    word = rest[0]
    if word in on:
        return True
    if word in off:
        return False
    return None


#: NEW BOT EASY, NEW BOT NORMAL (the same as NEW BOT) and NEW BOT HARD, the computer's levels
#: (:data:`spades.bots.LEVELS`), in every language, normalised as the words they are compared with.
_EASY = frozenset(normalize(w) for w in ("EASY", "FACILE", "LETT", "MUDAH", "GAMPANG", "ΕΥΚΟΛΟ", "ΕΎΚΟΛΟ"))
_NORMAL = frozenset(normalize(w) for w in ("NORMAL", "NORMALE", "BIASA", "ΚΑΝΟΝΙΚΟ", "ΚΑΝΟΝΙΚΌ"))
_HARD = frozenset(normalize(w) for w in ("HARD", "DIFFICILE", "DUR", "VANSKELIG", "SULIT", "SUSAH", "ΔΥΣΚΟΛΟ",
                                         "ΔΎΣΚΟΛΟ"))
#: REMATCH EASIER / REMATCH HARDER: the computer one level down or up, in every language.
_EASIER = frozenset(normalize(w) for w in ("EASIER", "PLUS FACILE", "LETTERE", "LEBIH MUDAH", "LEBIH GAMPANG",
                                           "ΠΙΟ ΕΥΚΟΛΟ", "ΠΙΟ ΕΎΚΟΛΟ", "ΕΥΚΟΛΟΤΕΡΟ", "ΕΥΚΟΛΌΤΕΡΟ"))
_HARDER = frozenset(normalize(w) for w in ("HARDER", "PLUS DIFFICILE", "PLUS DUR", "VANSKELIGERE", "LEBIH SULIT",
                                           "LEBIH SUSAH", "ΠΙΟ ΔΥΣΚΟΛΟ", "ΠΙΟ ΔΎΣΚΟΛΟ", "ΔΥΣΚΟΛΟΤΕΡΟ", "ΔΥΣΚΟΛΌΤΕΡΟ"))
#: The house-rule words after NEW, in every language, normalised as the words they are compared with (a Greek word
#: written as typed would never match: normalising turns its look-alike capitals into Latin ones).
_BAGS = frozenset(normalize(w) for w in ("BAGS", "NILBAGS", "NIL BAGS", "SACS", "POSER", "KANTONG", "ΣΑΚΟΥΛΕΣ"))
_FLOOR = frozenset(normalize(w) for w in ("FLOOR", "PLANCHER", "GULV", "BATAS", "ΟΡΙΟ"))
_ALTERNATE = frozenset(normalize(w) for w in ("ALT", "ALTERNATE", "ALTERNER", "VEKSLE", "GILIR"))
_TARGET = frozenset(normalize(w) for w in ("TO", "TARGET", "A", "JUSTE", "TIL", "SAMPAI", "ΕΩΣ"))


def _take_address(words: list[str], i: int) -> tuple[str, int, bool] | None:
    """The address that begins at ``words[i]``: an email address (lower case), or a phone number (``+`` and its
    digits, or its digits) written over one or more words. Returns (it, the index of its last word, True), or
    (what was typed, that index, False) for a number too short; None when ``words[i]`` begins neither."""
    w = words[i]
    if _EMAIL.match(w.strip(".,;")):
        return w.strip(".,;").lower(), i, True
    if not (_PHONE.match(w) and (len(re.sub(r"\D", "", w)) >= 6 or (i + 1 < len(words) and _PHONE.match(words[i + 1])))):
        return None
    digits = w
    while i + 1 < len(words) and _PHONE.match(words[i + 1]) and not words[i + 1].startswith("-"):
        i += 1
        digits += words[i]
    plus = digits.strip().startswith("+") or digits.strip().startswith("00")
    num = re.sub(r"\D", "", digits)
    if num.startswith("00"):
        num = num[2:]
    if len(num) < 6:
        return digits, i, False
    return ("+" if plus else "") + num, i, True


#: ``LINK 482913``: the code sent back from the address being linked (six digits, never a bid or a number).
_LINK_CODE = re.compile(r"^\d{6}$")
_WHATSAPP = "whatsapp"
#: how much of an address a refusal repeats: all of ``whatsapp:+`` and fifteen digits (issue 45 case 4)
ADDRESS_ECHO = 25
#: ``VIA <kind>``: the words of each kind of address, normalised.
_VIA = {normalize(w): kind for kind, words in (("sms", ("SMS", "TEXT", "PHONE")), ("email", ("EMAIL", "E-MAIL", "MAIL")),
                                               ("whatsapp", ("WHATSAPP", "WA")), ("telegram", ("TELEGRAM", "TG")),
                                               # the game page's notifications (Web Push): each language's word for
                                               # the page, as its WEB word (fr PAGE, nb SIDE, id HALAMAN, el ΣΕΛΙΔΑ)
                                               ("push", ("PAGE", "PUSH", "WEB", "SIDE", "SIDEN", "HALAMAN", "ΣΕΛΙΔΑ",
                                                         "SELIDA")))
        for w in words}


def _link_intent(kind: str, raw_words: list[str], say: _Say) -> Intent:
    """``LINK <address | code>`` and ``UNLINK [address]`` (``raw_words``: what follows the word, as typed). ``LINK``
    alone is the game page's link (``WEB``), as it always was."""
    if not raw_words:
        return say("web") if kind == "link" else say("unlink")
    if kind == "link" and len(raw_words) == 1 and _LINK_CODE.match(raw_words[0].strip(".,;")):
        return say("link", arg=raw_words[0].strip(".,;"))
    address = _one_address(raw_words)
    if address is None:
        return say("unknown", reason="bad_link", arg=" ".join(raw_words)[:ADDRESS_ECHO])
    return say(kind, arg=address)


def _one_address(raw_words: list[str]) -> str | None:
    """The one address ``raw_words`` (as typed) are: a phone number, ``whatsapp:`` and a number, or an email address."""
    typed = " ".join(raw_words)
    prefix, words = "", raw_words
    if typed[:len(_WHATSAPP)].lower() == _WHATSAPP:  # whatsapp:+30..., WhatsApp +30...
        prefix, words = _WHATSAPP + ":", typed[len(_WHATSAPP):].lstrip(" :").split()
    found = _take_address(words, 0) if words else None
    if found is None or not found[2] or found[1] != len(words) - 1 or (prefix and "@" in found[0]):
        return None
    return prefix + found[0]


def _take_whatsapp(words: list[str], i: int) -> tuple[str, int, bool]:
    """``whatsapp:+<number>`` (or ``WhatsApp +<number>``, the number over several words) beginning at ``words[i]``,
    as :func:`_take_address` returns it: (``whatsapp:+<digits>``, its last word's index, True), or what was typed
    and False."""
    rest = words[i][len(_WHATSAPP):].lstrip(":")
    tail = ([rest] if rest else []) + words[i + 1:]
    found = _take_address(tail, 0) if tail else None
    if found is None or not found[2] or "@" in found[0]:
        return " ".join(words[i:i + 2])[:ADDRESS_ECHO], i, False
    return _WHATSAPP + ":" + found[0], i + found[1] + (0 if rest else 1), True


def _new_intent(raw_words: list[str], lang: str, say: _Say) -> Intent:
    """NEW <phone | email | BOT [EASY | NORMAL | HARD]> [BAGS] [FLOOR [n]] [TO n] [ALT] (ALT: strict alternation in the draw, RULES D11); NEW
    with no address: an invitation link (arg ``""``)."""
    table = _TABLES[lang]
    address: str | None = None
    failed_nil_bags, floor, target = False, None, 500
    simultaneous_draw = True
    words = list(raw_words)
    i = 0
    leftovers: list[str] = []
    while i < len(words):
        w = words[i]
        n = normalize(w)
        found = _take_whatsapp(words, i) if address is None and w[:len(_WHATSAPP)].lower() == _WHATSAPP else None
        found = found or (_take_address(words, i) if address is None else None)
        if found is not None:
            said, i, ok = found
            if not ok:
                return say("unknown", reason="bad_address", arg=said[:ADDRESS_ECHO])
            address = said
        elif address is None and table.get(n) == "bot":
            address = "BOT"
        elif address == "BOT" and n in _EASY:  # NEW BOT EASY: the computer's easy level
            address = "BOT EASY"
        elif address == "BOT" and n in _HARD:  # NEW BOT HARD: its strongest
            address = "BOT HARD"
        elif address == "BOT" and n in _NORMAL:  # NEW BOT NORMAL: NEW BOT said in full
            address = "BOT NORMAL"
        elif n in _BAGS:
            failed_nil_bags = True
        elif n in _FLOOR:
            floor = DEFAULT_FLOOR
            if i + 1 < len(words) and _NUMBER.match(words[i + 1].strip()):
                i += 1
                floor = -abs(int(words[i]))
        elif n in _ALTERNATE:
            simultaneous_draw = False
        elif n in _TARGET and i + 1 < len(words) and words[i + 1].isdigit():
            i += 1
            target = int(words[i])
        elif w.isdigit() and address is not None:
            target = int(w)
        elif n:
            leftovers.append(w)
        i += 1
    if address is None and leftovers:  # NEW 12, NEW Ana: neither a number nor an address
        return say("unknown", reason="bad_address", arg=" ".join(leftovers)[:20])
    if not 100 <= target <= 1000:
        return say("unknown", reason="bad_number", arg=str(target))
    if leftovers:
        return say("unknown", reason="not_understood", arg=" ".join(leftovers))
    return say("new", arg=address or "", rules=HouseRules(failed_nil_bags, floor, target, simultaneous_draw))


#: The words of a plan (RULES D12) that open a part of it, and the rules a follow may name.
_PLAN_PARTS = ("if", "always", "lead", "bid", "exchange")
_PLAN_RULES = {"low": LOW, "win": WIN, "high": HIGH}
_RANGE = re.compile(r"^(\d{1,2})(?:-(\d{1,2})|(\+))?$")


def _suit_of(token: str, lang: str) -> Suit | None:
    """The suit ``token`` names: its letter (``H``; a language's own, ``P`` for pique), its word or symbol."""
    if token in _SUITS_N:
        token = _SUITS_N[token]
    if len(token) != 1:
        return None
    card = _card("2" + token, lang)
    return card.suit if card is not None else None


def _plan_intent(tokens: list[str], lang: str, say: _Say) -> Intent:
    """The plan ``tokens`` give (they begin with IF, ALWAYS, LEAD or BID, or their words in ``lang``): see
    :class:`Intent`. Every part may follow another in one message: ``IF H 4H S AS LEAD KD QC``."""
    table = _TABLES[lang]
    follows: list[Follow] = []
    leads: list[Card] = []
    bid: int | None = None
    bid_if: list[tuple[int, int, int]] = []
    swap: list[Card] | None = None
    swap_high = 0
    part = ""
    i = 0
    while i < len(tokens):
        kind, rest = _match(tokens[i:], table)
        if kind in _PLAN_PARTS:
            part = kind or ""
            i = len(tokens) - len(rest)
            continue
        tok = tokens[i]
        if part in ("if", "always"):
            suit = _suit_of(tok, lang)
            if suit is None or i + 1 >= len(tokens):
                return say("unknown", reason="bad_plan", arg=tok[:12])
            rule = _PLAN_RULES.get(table.get(tokens[i + 1], ""))
            play: Card | str | None = rule
            used = 2
            if play is None:
                play = _card(tokens[i + 1], lang)
                if play is None and i + 2 < len(tokens):
                    play, used = _card(tokens[i + 1] + tokens[i + 2], lang), 3
            if play is None:
                return say("unknown", reason="bad_plan", arg=tokens[i + 1][:12])
            follows = [f for f in follows if f.suit is not suit] + [Follow(suit, play, part == "always")]
            i += used
        elif part == "lead":
            card = _card(tok, lang)
            used = 1
            if card is None and i + 1 < len(tokens):
                card, used = _card(tok + tokens[i + 1], lang), 2
            if card is None:
                return say("unknown", reason="bad_plan", arg=tok[:12])
            leads.append(card)
            i += used
        elif part == "exchange":  # SWAP AS KH, SWAP HIGH: the exchange after a double nil
            if table.get(tok) == "high":
                swap_high, i = 3, i + 1
                continue
            if table.get(tok) == "none" or tok == "0":
                swap, i = [], i + 1
                continue
            card = _card(tok, lang)
            if card is None:
                return say("unknown", reason="bad_plan", arg=tok[:12])
            swap = (swap or []) + [card]
            i += 1
        elif part == "bid":
            m = _RANGE.match(tok)
            if m is None:
                return say("unknown", reason="bad_plan", arg=tok[:12])
            if m.group(2) is None and m.group(3) is None:  # a plain number: whatever the opponent bids
                bid = int(tok)
                i += 1
                continue
            low = int(m.group(1))
            high = 13 if m.group(3) else int(m.group(2))
            if i + 1 >= len(tokens) or not tokens[i + 1].isdigit() or low > high:
                return say("unknown", reason="bad_plan", arg=tok[:12])
            bid_if.append((low, high, int(tokens[i + 1])))
            i += 2
        else:
            return say("unknown", reason="bad_plan", arg=tok[:12])
    if not (follows or leads or bid is not None or bid_if or swap is not None or swap_high):
        return say("unknown", reason="bad_plan", arg=" ".join(tokens)[:12])
    return say("plan", plan=Plan(0, tuple(follows), tuple(leads), bid, tuple(bid_if),
                                 tuple(swap) if swap is not None else None, swap_high))


def parse(text: str | None, lang: str = "en") -> Intent:
    """What ``text`` (a message from a player whose language is ``lang``) asks for. Never raises.

    A message in another language's words (``garde`` in an English game) is an ``unknown`` intent with the reason
    ``other_lang`` and that language's code as ``arg`` (the reply suggests ``LANG FR``), never that language's command.
    """
    return _parse(text, supported(lang), hint=True)


def _parse(text: str | None, lang: str, hint: bool) -> Intent:
    """:func:`parse` in ``lang``; ``hint``: try the other languages' words when nothing else is understood."""
    raw = text or ""
    say = _Say(raw)
    if not raw.strip():
        return say("unknown", reason="empty")
    game = None
    m = _PREFIX.match(raw)
    if m:
        game = int(m.group(1))
        raw = raw[m.end():]
    say = _Say(say.text, game)  # the message as received, prefix and all
    norm = normalize(raw[:MAX_LENGTH + 1])
    tokens, yes_emoji = _without_emoji(norm.split())
    if tokens:
        first = tokens[0]
        two = " ".join(tokens[:2])
        if first in _OPT_OUT or two in _OPT_OUT:
            return say("stop", carrier=True)
        if first in OPT_IN_WORDS:
            return say("start", carrier=True)
        if first in HELP_WORDS:
            return say("help", carrier=True)
    if len(raw) > MAX_LENGTH and not (tokens and _match(tokens, _TABLES[lang])[0] == "say"):
        return say("unknown", reason="too_long")  # (a long SAY is trimmed by the service, saying so)
    if not tokens:
        if game is not None and not raw.strip():
            return say("hand")
        if yes_emoji:  # a thumbs up on its own: OK
            return say("yes")
        return say("unknown", reason="not_understood")
    table = _TABLES[lang]
    kind, rest = _match(tokens, table)

    if kind in ("stop", "start", "help"):
        return say(kind, carrier=False)
    if kind == "none" and not rest:
        return say("exchange", cards=())
    if kind in ("keep", "discard", "draw", "hand", "score", "rules", "resign", "yes", "no", "games", "claim",
                "rematch", "web", "last", "stats") and not rest:
        return say(kind)
    if kind == "rematch" and len(rest) <= 2 and " ".join(rest) in _EASIER | _HARDER:
        return say("rematch", arg="easier" if " ".join(rest) in _EASIER else "harder")
    if kind == "rematch" and len(rest) == 1 and rest[0] in _EASY | _HARD:  # REVANCHE FACILE: one level toward it
        return say("rematch", arg="easier" if rest[0] in _EASY else "harder")
    if kind == "plan":
        flag = _flag(rest, lang)
        if not rest:
            return say("plan")
        if flag is False and len(rest) == 1:
            return say("plan", flag=False)
        return _plan_intent(rest, lang, say)
    if kind in ("if", "always", "lead"):
        return _plan_intent(tokens, lang, say)
    if kind == "bid" and rest and _RANGE.match(rest[0]) and not _NUMBER.match(rest[0]):
        return _plan_intent(tokens, lang, say)  # BID 0-3 5 4+ 3: a bid by the opponent's (a plan)
    if kind == "double_nil" and len(rest) <= 2 and rest and table.get(rest[-1]) == "high" \
            and (len(rest) == 1 or table.get(rest[0]) == "exchange"):
        return say("double_nil", plan=Plan(0, swap_high=3))  # DN HIGH, DN SWAP HIGH: the exchange given with it
    if kind == "double_nil":
        flag = _flag(rest, lang)
        if rest and flag is not None and len(rest) == 1:
            return say("dn_setting", flag=flag)
        if not rest:
            return say("double_nil")
    if kind == "draw" and rest:
        flag = _flag(rest, lang)
        if flag is not None and len(rest) == 1:  # DRAW ON = always draw = do not ask DN
            return say("dn_setting", flag=not flag)
    if kind == "nil" and not rest:
        return say("bid", number=0)
    if kind == "bid":
        if len(rest) == 1 and table.get(rest[0]) == "nil":
            return say("bid", number=0)
        count = _count(rest, lang) if rest else None
        if count is not None:  # BID 4, BID FOUR, BID 4 TRICKS
            return say("bid", number=count)
        if not rest:
            return say("unknown", reason="missing_arg", arg="bid")
    if kind == "exchange":
        if rest == ["0"] or not rest or (len(rest) <= 2 and table.get(" ".join(rest)) == "none"):
            return say("exchange", cards=())
        cards = _cards(rest, lang)
        if cards is not None:
            return say("exchange", cards=tuple(cards))
    if kind == "play" and rest:
        cards = _cards(rest, lang)
        if cards is not None and len(cards) == 1:
            return say("play", card=cards[0])
    if kind == "lang":
        if not rest:
            return say("unknown", reason="missing_arg", arg="lang")
        code = normalize_language(" ".join(rest))
        if code is None:
            return say("unknown", reason="bad_lang", arg=" ".join(rest)[:20])
        return say("lang", arg=code)
    if kind in ("remind", "auto", "autoplay"):
        flag = _flag(rest, lang)
        if flag is None or len(rest) != 1:
            return say("unknown", reason="missing_arg", arg=kind)
        return say(kind, flag=flag)
    if kind == "vacation":  # VACATION 7: not a command (docs/commands.md), the reply names PAUSE 7
        days = rest[0] if len(rest) == 1 and rest[0].isdigit() and 0 < int(rest[0]) <= 365 else ""
        return say("unknown", reason="vacation", arg=days)
    if kind == "resume" and not rest:  # RESUME: the pause ends now (PAUSE 0)
        return say("pause", number=0)
    if kind == "pause":
        if not rest:
            return say("pause", number=None)
        if len(rest) == 1 and rest[0].isdigit() and int(rest[0]) <= 365:
            return say("pause", number=int(rest[0]))
        return say("unknown", reason="bad_number", arg="pause")
    if kind == "tz":
        words = raw.split()
        if len(words) < 2:
            return say("unknown", reason="missing_arg", arg="tz")
        return say("tz", arg=words[-1][:40])
    if kind == "new":
        words = raw.split()[1:]
        return _new_intent(words, lang, say)
    if kind == "name":
        chosen = " ".join(raw.split()[len(tokens) - len(rest):])
        if not rest:
            return say("unknown", reason="missing_arg", arg="name")
        name = check_name(chosen)
        if name is None:
            return say("unknown", reason="bad_name", arg=chosen[:20])
        return say("name", arg=name)
    if kind == "say":  # SAY <text>: the text as typed (on one line), for the opponent (service.lifecycle.talk)
        line = " ".join(raw.split()[len(tokens) - len(rest):])
        if not line:
            return say("unknown", reason="missing_arg", arg="say")
        return say("say", arg=line)
    if kind in ("mute", "unmute") and not rest:
        return say(kind)
    if kind == "greeting":
        return say("unknown", reason="greeting")
    if kind in ("link", "unlink"):
        return _link_intent(kind, raw.split()[1:], say)  # (LINK and UNLINK are one word)
    if kind == "web" and rest and _one_address(raw.split()[1:]):  # LIEN moi@example.fr: the page's word, read as
        return _link_intent("link", raw.split()[1:], say)         # LINK's (issue 45 case 12)
    if kind == "via":
        if len(rest) == 1 and rest[0] in _VIA:
            return say("via", arg=_VIA[rest[0]])
        address = _one_address(raw.split()[1:])  # VIA ana@example.com: that address of the player's first
        return say("via", arg=address) if address else say("unknown", reason="missing_arg", arg="via")

    # no command word: a bare number (a bid), cards, or nothing we know
    if len(tokens) == 1 and _NUMBER.match(tokens[0]):
        n = int(tokens[0])
        if n < 0 or n > 99:
            return say("unknown", reason="bad_number", arg=tokens[0])
        return say("bid", number=n)
    count = _count(tokens, lang) if kind is None else None
    if count is not None and count <= 99:  # "four", "4 tricks"
        return say("bid", number=count)
    if kind is None or kind in ("keep", "discard", "play"):  # "♦️2" reads D 2; "K D" the king of diamonds
        cards = _cards(tokens, lang)
        if cards is not None:
            if len(cards) == 1:
                return say("play", card=cards[0])
            return say("exchange", cards=tuple(cards))
        if len(tokens) == 1 and _CARDISH.match(tokens[0]):
            return say("unknown", reason="bad_card", arg=tokens[0])
    if hint:  # another language's words: say which, rather than act on them (issue 23 case 10)
        for other in LANGUAGES:
            if other in (lang, "en") or _count(tokens, other) is not None:
                continue  # a number word of another language ("to", "en", "lima") is too often a word of this one
            alt = _parse(raw, other, hint=False)
            if not alt.is_unknown and alt.kind not in ("stop", "start", "help"):
                return say("unknown", reason="other_lang", arg=other.upper())
    return say("unknown", reason="not_understood")
