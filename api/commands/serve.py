"""``cartographers serve [--host H] [--port P] [limits]``: the HTTP service and the web page."""

from __future__ import annotations

import argparse

from api.settings import MB, settings_from_env


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run the HTTP service and the web page (uvicorn)",
        description="Serve /v1/… (OpenAPI at /docs) and the web page at /. Limits default to the "
        "CARTOGRAPHERS_* environment variables, then to the built-in defaults.",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; "
        "0.0.0.0 to reach it from a phone on the same network)",
    )
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--max-upload-mb", type=float, help="largest request body in MB (default 20)")
    p.add_argument("--max-pixels", type=int, help="largest photo in pixels (default 50,000,000)")
    p.add_argument("--time-limit", type=float, help="seconds of work per request (default 30)")
    p.add_argument(
        "--cors-origin",
        action="append",
        metavar="ORIGIN",
        help="allow browser pages from this origin (repeatable; default: none)",
    )
    p.add_argument(
        "--limit-concurrency",
        type=int,
        default=64,
        metavar="N",
        help="connections served at once; more get 503 at once instead of queueing "
        "without bound behind a public address (default 64)",
    )
    p.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from api.service import create_app

    settings = settings_from_env().with_overrides(
        max_upload_bytes=int(args.max_upload_mb * MB) if args.max_upload_mb is not None else None,
        max_pixels=args.max_pixels,
        time_limit=args.time_limit,
        cors_origins=tuple(args.cors_origin) if args.cors_origin else None,
    )
    if args.limit_concurrency < 1:
        raise ValueError("--limit-concurrency must be at least 1")
    uvicorn.run(
        create_app(settings),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        limit_concurrency=args.limit_concurrency,
    )
    return 0
