"""The game's vocabulary in the player's language: card names and rules, terrains, seasons, solo
titles, and card names typed in any language.

The English words live with the rules (``scoring``); their translations in the catalogs, under a
context each (``card``, ``explore card``, ``ambush card``, ``card rule``, ``terrain``, ``season``,
``back``, ``solo title``), so "forest" the terrain and "forest" the card back can differ.

>>> from api.i18n import speaking
>>> with speaking("pt_BR"):
...     card_name("sentinel-wood"), terrain_name("water"), card_slug_any("bosque centinela")
('Bosque Sentinela', 'água', 'sentinel-wood')
>>> with speaking("uk"):
...     card_name("hamlet"), card_name("goblin-attack"), deck_slug_any("fenda planar")
('Хутір', 'Напад Гоблінів', 'rift-lands')
"""

from __future__ import annotations

import difflib
import functools
import unicodedata

from api.i18n import LANGUAGES, _, _p, speaking
from scoring.cards import BACK_NAMES, CARDS, CardError, card_slug
from scoring.decks import AMBUSH, DECK_CARDS, EXPLORE
from scoring.seasons import check_setup
from scoring.terrain import Terrain

#: Terrain words as a player says them (the wasteland is side B's rift).
TERRAIN_WORDS = {t: ("rift land" if t is Terrain.WASTELAND else t.value) for t in Terrain}


def card_name(slug: str) -> str:
    """A card's printed name in the language in force: a scoring, explore or ambush card (the slug
    for an unknown card)."""
    if slug in CARDS:
        return _p("card", CARDS[slug].name)
    if slug in EXPLORE:
        return _p("explore card", EXPLORE[slug].name)
    if slug in AMBUSH:
        return _p("ambush card", AMBUSH[slug].name)
    return slug


def card_rule(slug: str) -> str:
    """A card's rule in one line, in the language in force."""
    return _p("card rule", CARDS[slug].rule)


def terrain_name(terrain: Terrain | str) -> str:
    return _p("terrain", TERRAIN_WORDS[Terrain(terrain)])


def season_name(season: str) -> str:
    return _p("season", season)


def back_name(back: str) -> str:
    return _p("back", BACK_NAMES[back])


def solo_title(title: str) -> str:
    """A solo rating's title ("Legendary Cartographer") in the language in force."""
    return _p("solo title", title)


def _plain(text: str) -> str:
    """Lower case, accents and punctuation dropped, one space between words."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    letters = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join("".join(ch if ch.isalnum() else " " for ch in letters).split())


ARTICLES = ("the", "o", "a", "os", "as", "el", "la", "los", "las")


@functools.cache
def _names_by_plain(deck: bool = False) -> dict[str, str]:
    """Every scoring card's name (``deck``: every explore and ambush card's) in every language,
    and with its article dropped → its slug."""
    names: dict[str, str] = {}
    for language in LANGUAGES:
        with speaking(language):
            for slug in DECK_CARDS if deck else CARDS:
                plain = _plain(card_name(slug))
                names[plain] = slug
                first, _sep, rest = plain.partition(" ")
                if rest and first in ARTICLES:
                    names.setdefault(rest, slug)
    return names


def _hint(plain: str, names: dict[str, str], every: list[str]) -> str:
    """ "did you mean …?" with the closest names, else every card's name, in the language in
    force."""
    close = difflib.get_close_matches(plain, list(names), n=3, cutoff=0.6)
    suggestions = list(dict.fromkeys(card_name(names[c]) for c in close))
    if suggestions:
        return _("did you mean {names}?", names=_(" or ").join(suggestions))
    return _("the cards are {names}", names=", ".join(card_name(s) for s in every))


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
    hint = _hint(plain, names, list(CARDS))
    raise CardError(_("unknown scoring card {name}: {hint}", name=repr(text.strip()), hint=hint))


def deck_slug_any(text: str) -> str:
    """The slug of the explore or ambush card ``text`` names: its slug, or its name in any
    language, case, accents and hyphens forgiven ("hamlet", "Vilarejo", "ХУТІР", "the Great
    River"); else :class:`CardError` with "did you mean" in the language in force."""
    if not isinstance(text, str):
        raise CardError(f"an explore or ambush card is named by a string, got {text!r}")
    if text.strip() in DECK_CARDS:
        return text.strip()
    names = _names_by_plain(deck=True)
    plain = _plain(text)
    first, _sep, rest = plain.partition(" ")
    bare = rest if rest and first in ARTICLES else plain  # "the Great River", "o Grande Rio"
    slug = names.get(plain) or names.get(bare)
    if slug is not None:
        return slug
    hint = _hint(plain, names, list(DECK_CARDS))
    raise CardError(
        _("unknown explore or ambush card {name}: {hint}", name=repr(text.strip()), hint=hint)
    )


def parse_cards_any(text: str) -> list[str] | str:
    """``"a,b,c,d"`` in any language → four slugs; ``"all"`` (or its translation) → ``"all"``."""
    if _plain(text) in ("all", _plain(_("all"))):
        return "all"
    slugs = [card_slug_any(s) for s in text.split(",") if s.strip()]
    check_setup(slugs)
    return slugs
