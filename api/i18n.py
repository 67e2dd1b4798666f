"""The players' languages: gettext catalogs (``api/locales/<lang>/LC_MESSAGES/cartographers.po``)
managed with Babel, and the one place that knows which language is speaking.

Code marks what a player reads with ``_("…")``, ``_n(singular, plural, n)`` and
``_p(context, "…")`` (Babel's extraction keywords); ``{name}`` placeholders are filled after the
lookup, so a translation may move them. The language in force is a context variable: a command sets
it once (:func:`use`), the HTTP service per request from ``Accept-Language``. The ``.po`` sources
are compiled in memory on first use, so an install needs no build step.

>>> with speaking("es"):
...     _p("season", "winter"), _n("{n} coin", "{n} coins", 3, n=3)
('invierno', '3 monedas')
>>> negotiate("uk-UA,uk;q=0.9,en;q=0.5"), negotiate("pt"), negotiate("fr-FR"), negotiate(None)
('uk', 'pt_BR', 'en', 'en')
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import io
import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path

from babel import Locale, UnknownLocaleError, negotiate_locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

#: Every language the product speaks, by gettext locale name, with its name in itself.
#: Adding one: a catalog made with ``python -m api.catalogs add LANG`` and a line here.
LANGUAGES: Mapping[str, str] = {
    "en": "English",
    "pt_BR": "Português (Brasil)",
    "es": "Español",
    "uk": "Українська",
}
DEFAULT_LANGUAGE = "en"
DOMAIN = "cartographers"
LOCALES = Path(__file__).parent / "locales"

_language: ContextVar[str] = ContextVar("language", default=DEFAULT_LANGUAGE)


@functools.cache
def catalog(language: str) -> gettext.NullTranslations:
    """The compiled catalog of ``language`` (English is the source text itself)."""
    path = LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    if language == DEFAULT_LANGUAGE or not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as f:
        po = read_po(f, locale=language, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, po, use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def current_language() -> str:
    return _language.get()


def use(language: str) -> None:
    """Speak ``language`` from now on in this context (a command's whole run)."""
    _language.set(language if language in LANGUAGES else DEFAULT_LANGUAGE)


@contextlib.contextmanager
def speaking(language: str) -> Iterator[str]:
    """Speak ``language`` inside the ``with`` block only (a request, a test)."""
    token = _language.set(language if language in LANGUAGES else DEFAULT_LANGUAGE)
    try:
        yield _language.get()
    finally:
        _language.reset(token)


def _(message: str, /, **values: object) -> str:
    """``message`` in the language in force, its ``{placeholders}`` filled from ``values``."""
    text = catalog(_language.get()).gettext(message)
    return text.format(**values) if values else text


def _n(singular: str, plural: str, n: int, /, **values: object) -> str:
    """The plural form of the language in force for ``n`` (Ukrainian has three)."""
    text = catalog(_language.get()).ngettext(singular, plural, n)
    return text.format(**values) if values else text


def _p(context: str, message: str, /, **values: object) -> str:
    """``message`` in ``context`` ("card", "terrain", "season"): one English word, two meanings."""
    text = catalog(_language.get()).pgettext(context, message)
    return text.format(**values) if values else text


@functools.cache
def page_catalog(language: str) -> dict:
    """The web page's messages in ``language`` as JSON: ``messages`` (English → translation),
    ``plurals`` (singular → every form) and ``plural_index`` (the form for n = 0…199; larger n use
    the entry of 100 + n % 100, which every language here agrees with)."""
    with (LOCALES / f"{DOMAIN}.pot").open("rb") as f:
        template = read_po(f)
    cat = catalog(language)
    index = [_plural_index(cat, n) for n in range(200)]
    messages: dict[str, str] = {}
    plurals: dict[str, list[str]] = {}
    for m in template:
        if not m.id or not any(path.startswith("api/static/") for path, _line in m.locations):
            continue
        if isinstance(m.id, tuple):
            plurals[m.id[0]] = _plural_forms(cat, m.id[0], m.id[1], index)
        else:
            messages[m.id] = cat.gettext(m.id)
    return {
        "language": language,
        "languages": dict(LANGUAGES),
        "messages": messages,
        "plurals": plurals,
        "plural_index": index,
    }


def _plural_index(cat: gettext.NullTranslations, n: int) -> int:
    plural = getattr(cat, "plural", None)
    return int(plural(n)) if plural else (0 if n == 1 else 1)


def _plural_forms(
    cat: gettext.NullTranslations, singular: str, plural: str, index: list[int]
) -> list[str]:
    """Every plural form of one message, in the catalog's order (``index``: the form of each n)."""
    by_form: dict[int, str] = {}
    for n, form in enumerate(index):
        by_form.setdefault(form, cat.ngettext(singular, plural, n))
    return [by_form.get(i, plural) for i in range(max(index) + 1)]


def language_of(tag: str | None) -> str | None:
    """The product language a locale tag asks for ("pt-BR", "pt", "uk_UA.UTF-8"), or None."""
    if not tag:
        return None
    tag = tag.split(".")[0].split("@")[0].replace("-", "_").strip()
    if tag in ("C", "POSIX", ""):
        return None
    try:
        locale = Locale.parse(tag)
    except (ValueError, TypeError, UnknownLocaleError):
        return None
    for name in LANGUAGES:
        if Locale.parse(name).language == locale.language:
            return name
    return None


def negotiate(accept_language: str | None) -> str:
    """The language to answer an ``Accept-Language`` header in (quality order; English last)."""
    wanted = []
    for part in (accept_language or "").split(","):
        tag, _sep, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if tag and q > 0:
            wanted.append((q, tag))
    tags = [tag for _q, tag in sorted(wanted, key=lambda w: -w[0])]
    exact = negotiate_locale([t.replace("-", "_") for t in tags], list(LANGUAGES), sep="_")
    if exact:
        return exact
    for tag in tags:
        if (found := language_of(tag)) is not None:
            return found
    return DEFAULT_LANGUAGE


def from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """The language the shell asks for: ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``."""
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for tag in environ.get(key, "").split(":"):
            if (found := language_of(tag)) is not None:
                return found
    return DEFAULT_LANGUAGE
