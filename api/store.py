"""The tournament database: tables and how to open it, through SQLAlchemy 2.

One SQLite file by default (``CARTOGRAPHERS_DATABASE_URL`` unset:
``~/.local/share/cartographers/games.sqlite3``): WAL mode so readers never wait
for the writer, a busy timeout so concurrent writers queue instead of failing, foreign keys on,
and every write transaction started with ``BEGIN IMMEDIATE`` so two uploads never both read and
then both try to upgrade to writing (SQLite's classic "database is locked"). Any SQLAlchemy URL
works instead — ``postgresql+psycopg://user:pass@host/db`` for several service instances sharing
one database (``pip install 'cartographers[postgres]'``).

Tables (one row each):

* ``games`` — a table's game: name, sheet side, the four scoring cards under edicts A–D;
* ``players`` — a player and their seat (0 = first, clockwise);
* ``revealed_cards`` — the explore/ambush cards revealed in one season of one game (optional);
* ``season_sheets`` — one player's sheet at the end of one season, with its score and checks.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    sessionmaker,
)

DATABASE_URL_ENV = "CARTOGRAPHERS_DATABASE_URL"
DEFAULT_SQLITE_NAME = "games.sqlite3"
SQLITE_BUSY_TIMEOUT_MS = 30_000


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_game_id() -> str:
    """A short random id that is safe in URLs."""
    return uuid.uuid4().hex[:12]


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_game_id)
    name: Mapped[str] = mapped_column(String(200), default="")
    side: Mapped[str] = mapped_column(String(1))
    cards: Mapped[list] = mapped_column(JSON)  # four slugs, edicts A–D
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    players: Mapped[list[PlayerRow]] = relationship(
        back_populates="game", order_by="PlayerRow.seat", cascade="all, delete-orphan"
    )
    revealed: Mapped[list[RevealedRow]] = relationship(cascade="all, delete-orphan")


class PlayerRow(Base):
    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("game_id", "seat"), UniqueConstraint("game_id", "name"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)  # 0…N−1, clockwise round the table
    name: Mapped[str] = mapped_column(String(100))
    game: Mapped[GameRow] = relationship(back_populates="players")


class RevealedRow(Base):
    __tablename__ = "revealed_cards"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    season: Mapped[str] = mapped_column(String(10), primary_key=True)
    cards: Mapped[list] = mapped_column(JSON)  # deck slugs in the order revealed


class SeasonSheetRow(Base):
    __tablename__ = "season_sheets"
    __table_args__ = (UniqueConstraint("player_id", "season_index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    season_index: Mapped[int] = mapped_column(Integer)  # 0 spring … 3 winter
    sheet: Mapped[dict] = mapped_column(JSON)  # docs/formats.md sheet JSON
    source: Mapped[str] = mapped_column(String(10))  # "photo" or "sheet"
    score: Mapped[dict] = mapped_column(JSON)  # scoring.seasons.SeasonScore.to_json()
    total: Mapped[int] = mapped_column(Integer)
    monster_penalty: Mapped[int] = mapped_column(Integer)
    checks: Mapped[dict] = mapped_column(JSON)  # legality verdict, low-confidence cells, warnings
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the product keeps its files: ``$XDG_DATA_HOME/cartographers``
    (``~/.local/share/...``)."""
    env = os.environ if env is None else env
    return Path(env.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "cartographers"


def default_database_url(env: Mapping[str, str] | None = None) -> str:
    """``CARTOGRAPHERS_DATABASE_URL`` if set, else the
    SQLite file ``games.sqlite3`` in :func:`data_dir`."""
    env = os.environ if env is None else env
    return env.get(DATABASE_URL_ENV, "").strip() or sqlite_url(data_dir(env) / DEFAULT_SQLITE_NAME)


def sqlite_url(path: str | Path) -> str:
    return f"sqlite:///{Path(path).expanduser().resolve()}"


def _tune_sqlite(engine: Engine) -> None:
    """WAL, busy timeout, foreign keys; ``BEGIN IMMEDIATE`` for every transaction."""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves, below
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA journal_mode = WAL")
        cur.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable across a process crash
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


class Store:
    """One database: ``with store.transaction() as s:`` is one all-or-nothing unit of work."""

    def __init__(self, url: str | None = None):
        self.url = url or default_database_url()
        if self.url.startswith("sqlite"):
            path = self.url.split("///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.engine = create_engine(
                self.url, connect_args={"check_same_thread": False, "timeout": 30}
            )
            _tune_sqlite(self.engine)
        else:
            self.engine = create_engine(self.url, pool_pre_ping=True)
        Base.metadata.create_all(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on any exception."""
        with self._sessions() as session, session.begin():
            yield session

    def describe(self) -> str:
        """The URL with any password hidden, for logs and ``/health``-like answers."""
        return self.engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        self.engine.dispose()
