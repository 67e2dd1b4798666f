"""The game's vocabulary in the player's language: card names and rules, terrains, seasons, and
card names typed in any language.

The English words live with the rules (``scoring``); their translations in the catalogs, under a
context each (``card``, ``card rule``, ``terrain``, ``season``, ``back``), so "forest" the terrain
and "forest" the card back can differ.

>>> from api.i18n import speaking
>>> with speaking("pt_BR"):
...     card_name("sentinel-wood"), terrain_name("water"), card_slug_any("bosque centinela")
('Bosque Sentinela', 'água', 'sentinel-wood')
"""

from __future__ import annotations

import difflib
import functools
import unicodedata

from api.i18n import LANGUAGES, _, _p, speaking
from scoring.cards import BACK_NAMES, CARDS, CardError, card_slug
from scoring.seasons import check_setup
from scoring.terrain import Terrain

#: Terrain words as a player says them (the wasteland is side B's rift).
TERRAIN_WORDS = {t: ("rift land" if t is Terrain.WASTELAND else t.value) for t in Terrain}


def card_name(slug: str) -> str:
    """A card's printed name in the language in force (the slug for an unknown card)."""
    return _p("card", CARDS[slug].name) if slug in CARDS else slug


def card_rule(slug: str) -> str:
    """A card's rule in one line, in the language in force."""
    return _p("card rule", CARDS[slug].rule)


def terrain_name(terrain: Terrain | str) -> str:
    return _p("terrain", TERRAIN_WORDS[Terrain(terrain)])


def season_name(season: str) -> str:
    return _p("season", season)


def back_name(back: str) -> str:
    return _p("back", BACK_NAMES[back])


def _plain(text: str) -> str:
    """Lower case, accents and punctuation dropped, one space between words."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    letters = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join("".join(ch if ch.isalnum() else " " for ch in letters).split())


@functools.cache
def _names_by_plain() -> dict[str, str]:
    """Every card's name in every language (and with its article dropped) → its slug."""
    names: dict[str, str] = {}
    for language in LANGUAGES:
        with speaking(language):
            for slug in CARDS:
                plain = _plain(card_name(slug))
                names[plain] = slug
                first, _sep, rest = plain.partition(" ")
                if rest and first in ("the", "o", "a", "os", "as", "el", "la", "los", "las"):
                    names.setdefault(rest, slug)
    return names


def card_slug_any(text: str) -> str:
    """The slug of the card ``text`` names: slug or name in any language, case and accents
    forgiven; else :class:`CardError` with "did you mean" in the language in force."""
    try:
        return card_slug(text)
    except CardError:
        pass
    names = _names_by_plain()
    plain = _plain(text)
    if plain in names:
        return names[plain]
    close = difflib.get_close_matches(plain, list(names), n=3, cutoff=0.6)
    suggestions = list(dict.fromkeys(card_name(names[c]) for c in close))
    if suggestions:
        hint = _("did you mean {names}?", names=_(" or ").join(suggestions))
    else:
        hint = _("the cards are {names}", names=", ".join(card_name(s) for s in CARDS))
    raise CardError(_("unknown scoring card {name}: {hint}", name=repr(text.strip()), hint=hint))


def parse_cards_any(text: str) -> list[str] | str:
    """``"a,b,c,d"`` in any language → four slugs; ``"all"`` (or its translation) → ``"all"``."""
    if _plain(text) in ("all", _plain(_("all"))):
        return "all"
    slugs = [card_slug_any(s) for s in text.split(",") if s.strip()]
    check_setup(slugs)
    return slugs
