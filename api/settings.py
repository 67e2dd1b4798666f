"""The service's limits, from environment variables or ``cartographers serve`` flags.

Every limit has a safe default; the environment variable names are listed in ``docs/service.md``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

MB = 1_000_000


@dataclass(frozen=True)
class Settings:
    """What one running service allows."""

    max_upload_bytes: int = 20 * MB  # whole request body; more → 413 "too-large"
    max_pixels: int = 50_000_000  # photo width × height; more → 413 "too-many-pixels"
    time_limit: float = 30.0  # seconds of CPU work per request; more → 504 "timeout"
    validate_time_limit: float = 5.0  # the legality search's own budget (then "cannot-tell")
    cpu_threads: int = 2  # photos / scores worked on at once, off the event loop
    cors_origins: tuple[str, ...] = field(default=())  # closed unless origins are named
    max_batch_files: int = 1000  # photos (or zip members) in one batch; more → 422 "bad-batch"

    def __post_init__(self) -> None:
        for name in ("max_upload_bytes", "max_pixels", "cpu_threads", "max_batch_files"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("time_limit", "validate_time_limit"):
            if not getattr(self, name) > 0:
                raise ValueError(
                    f"{name} must be a positive number of seconds, got {getattr(self, name)}"
                )

    def with_overrides(self, **changes: object) -> Settings:
        """A copy with the given fields replaced; ``None`` values are ignored."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


#: Environment variable → (Settings field, parser).
ENV_VARS: dict[str, tuple[str, type]] = {
    "CARTOGRAPHERS_MAX_UPLOAD_MB": ("max_upload_bytes", float),
    "CARTOGRAPHERS_MAX_PIXELS": ("max_pixels", int),
    "CARTOGRAPHERS_TIME_LIMIT": ("time_limit", float),
    "CARTOGRAPHERS_VALIDATE_TIME_LIMIT": ("validate_time_limit", float),
    "CARTOGRAPHERS_CPU_THREADS": ("cpu_threads", int),
    "CARTOGRAPHERS_CORS_ORIGINS": ("cors_origins", str),
    "CARTOGRAPHERS_MAX_BATCH_FILES": ("max_batch_files", int),
}


def settings_from_env(env: Mapping[str, str] | None = None) -> Settings:
    """Settings with every ``CARTOGRAPHERS_*`` variable that is set applied, naming a bad one."""
    env = os.environ if env is None else env
    changes: dict[str, object] = {}
    for var, (name, parse) in ENV_VARS.items():
        text = env.get(var, "").strip()
        if not text:
            continue
        try:
            value = parse(text)
        except ValueError:
            raise ValueError(f"{var}={text!r} is not a {parse.__name__}") from None
        if name == "max_upload_bytes":
            value = int(value * MB)
        elif name == "cors_origins":
            value = tuple(o.strip() for o in text.split(",") if o.strip())
        changes[name] = value
    return Settings().with_overrides(**changes)
