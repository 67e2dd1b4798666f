"""What ``scoring`` and ``vision`` say (:mod:`scoring.message`), in the player's language.

The rules and the reader hand over :class:`~scoring.message.Message` values — English strings
that remember their template and values — inside warnings, reasons and checks. A face says them in
the language in force: :func:`say` one of them, :func:`localised` every one inside an answer (JSON
shapes unchanged: a message stays a string). English is the Message's own text, byte for byte.

>>> from api.i18n import speaking
>>> from scoring.message import Word, msg_n
>>> m = msg_n("{n} coin", "{n} coins", 3)
>>> with speaking("uk"):
...     say(m), localised({"checks": [{"message": m}]}), say(Word("season", "fall"))
('3 монети', {'checks': [{'message': '3 монети'}]}, 'осінь')
>>> say(m), type(say(m)).__name__
('3 coins', 'str')
>>> with speaking("es"):
...     say(Number(0.834, "percent")), decimal(0.98), percent(0.05)
('83\xa0%', '0,98', '5\xa0%')
>>> decimal(0.98), percent(0.05)
('0.98', '5%')
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from babel.numbers import format_decimal, format_percent

from api.i18n import DEFAULT_LANGUAGE, catalog, current_language, negotiate, speaking
from api.words import back_name, card_name, season_name, terrain_name
from scoring.message import Joined, Message, Number, Word

if TYPE_CHECKING:  # the command line uses this module too, without loading the web framework
    from starlette.requests import Request
    from starlette.responses import Response

log = logging.getLogger("cartographers.messages")

#: How a face names each kind of :class:`~scoring.message.Word` in the language in force.
WORDS: dict[str, Callable[[str], str]] = {
    "season": season_name,
    "terrain": terrain_name,
    "card": card_name,
    "back": back_name,
}


def say(text: str) -> str:
    """``text`` in the language in force: translated when it is a Message, a Word or a Joined,
    written the language's way when it is a Number; any other string as it is."""
    language = current_language()
    if language == DEFAULT_LANGUAGE or not isinstance(text, Message | Word | Joined | Number):
        return str(text)
    if isinstance(text, Number):
        return _number(text, language)
    if isinstance(text, Word):
        name = WORDS.get(text.kind)
        return name(text.token) if name else str(text)
    if isinstance(text, Joined):
        return text.sep.join(say(item) for item in text.items)
    return _say_message(text)


def _say_message(message: Message) -> str:
    cat = catalog(current_language())
    if message.plural is None:
        template = cat.gettext(message.template)
    else:
        template = cat.ngettext(message.template, message.plural, message.number or 0)
    values = {k: say(v) if isinstance(v, str) else v for k, v in message.params.items()}
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):  # a broken translation: English beats a crash
        log.warning("translation of %r does not fit its values", message.template)
        return str(message)


def _number(number: Number, language: str) -> str:
    """A decimal or a percent as the language writes it ("0,83", "83 %"), digits as in English."""
    if number.style == "percent":
        return format_percent(number.value, locale=language)
    pattern = "0." + "0" * number.digits if number.digits else "0"
    return format_decimal(number.value, format=pattern, locale=language)


def decimal(value: float, digits: int = 2) -> str:
    """``value`` with ``digits`` after the point, in the language in force ("0.98", "0,98")."""
    return say(Number(value, "decimal", digits))


def percent(value: float) -> str:
    """``value`` (0.05 for 5 %) as whole percents, in the language in force ("5%", "5 %")."""
    return say(Number(value, "percent"))


def localised(data: Any) -> Any:
    """``data`` (JSON-ready: dicts, lists, strings, numbers) with every message in it said in the
    language in force; a copy, the same shape."""
    if isinstance(data, str):
        return say(data)
    if isinstance(data, dict):
        return {k: localised(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [localised(v) for v in data]
    return data


def answer_in(request: Request, response: Response, data: Any) -> Any:
    """An HTTP answer's data with its messages in the language the request's ``Accept-Language``
    asks for (English when no catalog speaks it), said in ``Content-Language``."""
    language = negotiate(request.headers.get("accept-language"))
    response.headers["Content-Language"] = language.replace("_", "-")
    with speaking(language):
        return localised(data)
