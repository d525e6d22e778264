"""The command words of each language, and how a message's first words are matched against them.

:data:`WORDS` holds them in natural spelling (kind -> words or phrases); :data:`TABLES` the same normalised
(:func:`chat.normalize.normalize`), one table a language. English words are accepted in every language; a
language's own words only in that language (so French MAIN "hand" and Indonesian MAIN "play" never meet). The
carrier keywords (:data:`OPT_OUT_WORDS`, :data:`OPT_IN_WORDS`, :data:`HELP_WORDS`) mean what carriers make them
mean in every language; the computer's levels are words of every language too.
"""

from __future__ import annotations

from .languages import LANGUAGES
from .normalize import normalize

#: Twilio's / carriers' reserved opt-out words.
OPT_OUT_WORDS = ("STOP", "UNSUBSCRIBE", "END", "QUIT", "STOPALL", "REVOKE", "OPTOUT", "CANCEL")
OPT_IN_WORDS = ("START", "UNSTOP")
HELP_WORDS = ("HELP", "INFO")
# kind -> words or phrases, in natural spelling (normalised below). English words are accepted in every
# language; a language's own words only in that language (so French MAIN "hand" and Indonesian MAIN "play"
# never meet).
WORDS: dict[str, dict[str, tuple[str, ...]]] = {
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
        "web": ("WEB", "PAGE", "SHEET"),  # (LINK alone too: :func:`link_intent`)
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


def _norm_table() -> dict[str, dict[str, str]]:
    """language -> {normalised phrase: kind}; English first, the language's own words override."""
    tables: dict[str, dict[str, str]] = {}
    for lang in LANGUAGES:
        table: dict[str, str] = {}
        for source in ("en", lang) if lang != "en" else ("en",):
            for kind, words in WORDS[source].items():
                if kind in ("on", "off"):
                    continue  # only after REMIND, AUTO, DN...
                for w in words:
                    table[normalize(w)] = kind
        tables[lang] = table
    return tables


TABLES = _norm_table()
ON_OFF = {lang: ({normalize(w) for w in WORDS["en"]["on"] + WORDS[lang].get("on", ()) + WORDS["en"]["yes"]},
                 {normalize(w) for w in WORDS["en"]["off"] + WORDS[lang].get("off", ()) + WORDS["en"]["no"]})
          for lang in LANGUAGES}
OPT_OUT = frozenset(OPT_OUT_WORDS) | {"OPT OUT", "STOP ALL"}


def match_phrase(tokens: list[str], table: dict[str, str]) -> tuple[str | None, list[str]]:
    """The kind of the longest phrase ``tokens`` begin with (up to three words), and the tokens after it."""
    for n in (3, 2, 1):
        if len(tokens) >= n:
            kind = table.get(" ".join(tokens[:n]))
            if kind:
                return kind, tokens[n:]
    return None, tokens


def read_flag(rest: list[str], lang: str) -> bool | None:
    """ON (True) or OFF (False) as the first of ``rest`` says it in ``lang`` (YES and NO too); None if neither."""
    if not rest:
        return None
    on, off = ON_OFF[lang]
    word = rest[0]
    if word in on:
        return True
    if word in off:
        return False
    return None


#: NEW BOT EASY, NEW BOT NORMAL (the same as NEW BOT) and NEW BOT HARD, the computer's levels
#: (:data:`spades.bots.LEVELS`), in every language, normalised as the words they are compared with.
EASY = frozenset(normalize(w) for w in ("EASY", "FACILE", "LETT", "MUDAH", "GAMPANG", "ΕΥΚΟΛΟ", "ΕΎΚΟΛΟ"))
NORMAL = frozenset(normalize(w) for w in ("NORMAL", "NORMALE", "BIASA", "ΚΑΝΟΝΙΚΟ", "ΚΑΝΟΝΙΚΌ"))
HARD = frozenset(normalize(w) for w in ("HARD", "DIFFICILE", "DUR", "VANSKELIG", "SULIT", "SUSAH", "ΔΥΣΚΟΛΟ",
                                        "ΔΎΣΚΟΛΟ"))
#: REMATCH EASIER / REMATCH HARDER: the computer one level down or up, in every language.
EASIER = frozenset(normalize(w) for w in ("EASIER", "PLUS FACILE", "LETTERE", "LEBIH MUDAH", "LEBIH GAMPANG",
                                          "ΠΙΟ ΕΥΚΟΛΟ", "ΠΙΟ ΕΎΚΟΛΟ", "ΕΥΚΟΛΟΤΕΡΟ", "ΕΥΚΟΛΌΤΕΡΟ"))
HARDER = frozenset(normalize(w) for w in ("HARDER", "PLUS DIFFICILE", "PLUS DUR", "VANSKELIGERE", "LEBIH SULIT",
                                          "LEBIH SUSAH", "ΠΙΟ ΔΥΣΚΟΛΟ", "ΠΙΟ ΔΎΣΚΟΛΟ", "ΔΥΣΚΟΛΟΤΕΡΟ", "ΔΥΣΚΟΛΌΤΕΡΟ"))
