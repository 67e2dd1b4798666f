"""What the rules and the reader say to a player, kept translatable.

``scoring`` and ``vision`` never import the faces (``api``), yet what they say — a reader's
warning, a validator's reason, a written-score check — reaches a player who may read Ukrainian.
So they say it as a :class:`Message`: the English template (the catalogs' msgid, with ``{name}``
placeholders), its values and, when a count decides the wording, the plural template and the
count. A Message *is* its English text (a ``str``), so everything that stores, joins, compares or
prints it — JSON, CSV, logs, the tests — sees the English it always saw; a face that speaks another
language swaps it for the translation (``api/messages.py``). A value that is itself a word of the
game (a season, a terrain, a card, a card back) is a :class:`Word`, a list a :class:`Joined` and a
decimal or a percent a :class:`Number`, so the face names those in the player's language too and
writes the numbers its way (``0,83``, ``83 %``).

``msg`` and ``msg_n`` are the catalogs' extraction keywords (``api/catalogs.py``): a template
written any other way is not found, so never translated.

>>> m = msg_n("{n} cell to check", "{n} cells to check", 3)
>>> m, m == "3 cells to check", m.template, dict(m.params)
('3 cells to check', True, '{n} cell to check', {'n': 3})
>>> msg("{season}: {n} written", season=Word("season", "fall"), n=4)
'fall: 4 written'
>>> from_data(to_data([m])) == [m] and isinstance(from_data(to_data(m)), Message)
True
>>> Number(0.834, "percent"), Number(0.98), from_data(to_data(Number(0.5, "percent", 0))).value
('83%', '0.98', 0.5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NoReturn


class _Frozen(str):
    """A ``str`` whose extra attributes are set once, in ``__new__``."""

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)


class Message(_Frozen):
    """One thing said to a player: ``template`` (English, the msgid) filled with ``params``; with
    ``plural``, the template for any ``number`` other than 1 (a language may have more forms)."""

    template: str
    params: Mapping[str, object]
    plural: str | None
    number: int | None

    def __new__(
        cls,
        template: str,
        params: Mapping[str, object] | None = None,
        plural: str | None = None,
        number: int | None = None,
    ) -> Message:
        values = dict(params or {})
        english = template if plural is None or number == 1 else plural
        self = super().__new__(cls, english.format(**values))
        self._set(template=template, params=MappingProxyType(values), plural=plural, number=number)
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # pickled to and from the batch's worker processes
        return (Message, (self.template, dict(self.params), self.plural, self.number))


class Word(_Frozen):
    """A word of the game inside a message: ``kind`` (``season``, ``terrain``, ``card``,
    ``back``) and ``token`` (the season's name, the terrain's JSON name, the slug of a scoring,
    explore or ambush card, the back's key); its English text is ``english`` (default: the token
    itself)."""

    kind: str
    token: str

    def __new__(cls, kind: str, token: str, english: str | None = None) -> Word:
        self = super().__new__(cls, token if english is None else english)
        self._set(kind=kind, token=token)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Word, (self.kind, self.token, str(self)))


class Number(_Frozen):
    """A number a player reads as a decimal (``style="decimal"``, ``digits`` after the point) or a
    percent (``style="percent"``, whole percents); its English text is Python's own formatting
    (``0.83``, ``83%``), so English stays as it always was and a face writes it its own way."""

    value: float
    style: str
    digits: int

    def __new__(cls, value: float, style: str = "decimal", digits: int = 2) -> Number:
        if style == "percent":
            english = f"{value:.0%}"
        elif style == "decimal":
            english = f"{value:.{digits}f}"
        else:
            raise ValueError(f"unknown number style {style!r}")
        self = super().__new__(cls, english)
        self._set(value=float(value), style=style, digits=digits)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Number, (self.value, self.style, self.digits))


class Joined(_Frozen):
    """Several values said one after another with ``sep`` between (cell names, card names); each
    value that is a Message or a Word is translated on its own."""

    items: tuple[str, ...]
    sep: str

    def __new__(cls, items: Sequence[str], sep: str = ", ") -> Joined:
        self = super().__new__(cls, sep.join(items))
        self._set(items=tuple(items), sep=sep)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Joined, (list(self.items), self.sep))


def msg(template: str, /, **params: object) -> Message:
    """A message with no count in it (the extraction keyword for one msgid)."""
    return Message(template, params)


def msg_n(singular: str, plural: str, count: int, /, **params: object) -> Message:
    """A message whose wording follows ``count`` (``{n}`` is the count unless given)."""
    params.setdefault("n", count)
    return Message(singular, params, plural, count)


def to_data(value: Any) -> Any:
    """``value`` with every Message, Word, Joined and Number in it as plain JSON that
    :func:`from_data` turns back: what a journal or a database keeps, so a later answer can still
    translate it."""
    if isinstance(value, Message):
        params = {k: to_data(v) for k, v in value.params.items()}
        return {"$message": [value.template, value.plural, value.number, params]}
    if isinstance(value, Word):
        return {"$word": [value.kind, value.token, str(value)]}
    if isinstance(value, Joined):
        return {"$joined": [[to_data(i) for i in value.items], value.sep]}
    if isinstance(value, Number):
        return {"$number": [value.value, value.style, value.digits]}
    if isinstance(value, dict):
        return {k: to_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_data(v) for v in value]
    return value


def from_data(value: Any) -> Any:
    """The inverse of :func:`to_data` (plain strings, as older records hold, stay strings)."""
    if isinstance(value, dict):
        if len(value) == 1 and "$message" in value:
            template, plural, number, params = value["$message"]
            return Message(template, {k: from_data(v) for k, v in params.items()}, plural, number)
        if len(value) == 1 and "$word" in value:
            return Word(*value["$word"])
        if len(value) == 1 and "$joined" in value:
            items, sep = value["$joined"]
            return Joined([from_data(i) for i in items], sep)
        if len(value) == 1 and "$number" in value:
            return Number(*value["$number"])
        return {k: from_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_data(v) for v in value]
    return value
