"""Keeping the catalogs in step with the code (Babel): ``python -m api.catalogs update`` and
``python -m api.catalogs add LANG``.

The template (``api/locales/cartographers.pot``) holds every message the code marks — ``_``/``_n``/
``_p`` in the faces, ``msg``/``msg_n`` in the rules and the reader (Babel's extractor) — the web
page's marked text, and the vocabulary taken from the rules' own data (card names and rules,
explore and ambush card names, terrains, seasons, card backs, solo titles, what each error code
means). ``update`` merges it into every language's ``.po`` (new messages come in untranslated, so
the catalog test names them); ``add`` starts a new language from it.
"""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.pofile import read_po, write_po

from api.errors import ERRORS
from api.i18n import DOMAIN, LANGUAGES, LOCALES
from api.words import TERRAIN_WORDS
from scoring.cards import BACK_NAMES, CARDS
from scoring.decks import AMBUSH_CARDS, EXPLORE_CARDS
from scoring.seasons import LOWEST_TITLE, SEASONS, SOLO_TITLES

ROOT = Path(__file__).resolve().parent.parent
#: ``_``/``_n``/``_p`` in the faces (``api.i18n``); ``msg``/``msg_n`` where the rules and the reader
#: say something to a player (``scoring.message``: translated by the face that shows it)
KEYWORDS = {"_": None, "_n": (1, 2), "_p": ((1, "c"), 2), "msg": None, "msg_n": (1, 2)}
SOURCES = ("api", "scoring", "vision")  # the packages whose player-facing words are marked
STATIC = ROOT / "api" / "static"  # the web page: data-i18n text in HTML, t()/tn() in scripts
JS_KEYWORDS = {"t": None, "tn": (1, 2)}
_MARKED_TEXT = re.compile(r"<(\w+)\b[^<>]*\bdata-i18n(?![-\w])[^<>]*>([^<]+)</\1>")
_MARKED_LABEL = re.compile(r"<\w+\b[^<>]*\baria-label=\"([^\"]+)\"[^<>]*\bdata-i18n-aria\b")
TEMPLATE = LOCALES / f"{DOMAIN}.pot"


def vocabulary() -> list[tuple[str, str]]:
    """(context, English) of every game word that lives in the rules' data, not in a call."""
    words = [("card", c.name) for c in CARDS.values()]
    words += [("card rule", c.rule) for c in CARDS.values()]
    words += [("explore card", c.name) for c in EXPLORE_CARDS]
    words += [("ambush card", c.name) for c in AMBUSH_CARDS]
    words += [("terrain", w) for w in TERRAIN_WORDS.values()]
    words += [("season", s.name) for s in SEASONS]
    words += [("back", b) for b in BACK_NAMES.values()]
    words += [("solo title", t) for _floor, t in SOLO_TITLES] + [("solo title", LOWEST_TITLE)]
    words += [("error", kind.meaning) for kind in ERRORS.values()]
    return words


def template() -> Catalog:
    """Every message of the code and the vocabulary, as a Babel catalog."""
    cat = Catalog(domain=DOMAIN, project="cartographers", charset="utf-8")
    for package in SOURCES:
        for filename, lineno, message, _comments, context in extract_from_dir(
            ROOT / package, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
        ):
            cat.add(message, None, [(f"{package}/{filename}", lineno)], context=context)
    for where, message in page_messages():
        cat.add(message, None, [where])
    for context, word in vocabulary():
        cat.add(word, None, [("scoring", 0)], context=context)
    return cat


def page_messages() -> Iterator[tuple[tuple[str, int], str | tuple[str, str]]]:
    """The web page's messages: marked HTML text and labels (whitespace as the browser joins it)
    and the scripts' ``t``/``tn`` calls; each with where it is."""
    for page in sorted(STATIC.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        for pattern, group in ((_MARKED_TEXT, 2), (_MARKED_LABEL, 1)):
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                yield (f"api/static/{page.name}", line), " ".join(html.unescape(m[group]).split())
    for script in sorted(STATIC.glob("*.js")):
        for lineno, message, _comments, _context in extract_from_file(
            "javascript", script, keywords=JS_KEYWORDS
        ):
            yield (f"api/static/{script.name}", lineno), message


def _write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=100, sort_output=True, omit_header=False)


def update() -> None:
    """The template written anew and merged into every language's catalog."""
    pot = template()
    _write(pot, TEMPLATE)
    for language in LANGUAGES:
        path = LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"
        if not path.exists():
            continue
        with path.open("rb") as f:
            po = read_po(f, locale=language, domain=DOMAIN)
        po.update(pot, update_header_comment=False)
        po.obsolete.clear()  # a message the code no longer says is dropped, not kept
        _write(po, path)


def add(language: str) -> Path:
    """A new language's catalog, every message untranslated."""
    with TEMPLATE.open("rb") as f:
        pot = read_po(f)
    cat = Catalog(locale=language, domain=DOMAIN, project="cartographers", charset="utf-8")
    cat.update(pot)
    path = LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    _write(cat, path)
    return path


if __name__ == "__main__":
    if sys.argv[1:2] == ["update"]:
        update()
    elif sys.argv[1:2] == ["add"] and len(sys.argv) == 3:
        print(add(sys.argv[2]))
    else:
        sys.exit("usage: python -m api.catalogs update | add LANG")
