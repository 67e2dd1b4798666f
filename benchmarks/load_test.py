"""Load test: a real ``uvicorn`` on 127.0.0.1, sample photos posted to ``/v1/score``.

1. start the service (its own temporary database and batch folder), wait for ``/health``, warm
   up (one request per photo — the reader's model loads — then ``--warm-up`` s, 30 by default, with
   one client per CPU thread, so every worker thread has read every photo), then note the server's
   resident memory;
2. ``--clients`` (16) threads post the sample photos as fast as they are answered for
   ``--seconds`` (60);
3. ``--sequential`` (500) requests one after another;
4. report per phase: requests, errors (anything but 200), throughput, p50/p95/p99 latency, and the
   server's resident memory before, at its peak and after (target: growth ≤ 10 %).

Every request goes to 127.0.0.1 only; both loops are bounded and the server is stopped at the end.

    python benchmarks/load_test.py                      # the full run (~30 s warm-up + 60 s + 500
    photos) python benchmarks/load_test.py --warm-up 5 --seconds 10 --sequential 20   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
CARDS = "sentinel-wood,canal-lake,wildholds,borderlands"
REQUEST_TIMEOUT_S = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, work: Path, threads: int) -> subprocess.Popen:
    """``uvicorn api.service:create_app`` on 127.0.0.1:port, its files under ``work``."""
    env = {
        **os.environ,
        "CARTOGRAPHERS_DATABASE_URL": f"sqlite:///{work / 'games.sqlite3'}",
        "CARTOGRAPHERS_BATCH_DIR": str(work / "batch"),
        "CARTOGRAPHERS_CPU_THREADS": str(threads),
    }
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "api.service:create_app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    return subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def wait_healthy(base: str, proc: subprocess.Popen, limit_s: float = 60.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the server did not answer /health within {limit_s:.0f} s")


def rss_mb(pid: int) -> float:
    """Resident memory of the server process and its children, in MB."""
    proc = psutil.Process(pid)
    procs = [proc, *proc.children(recursive=True)]
    return sum(p.memory_info().rss for p in procs if p.is_running()) / 1e6


@dataclass
class Phase:
    """What one phase measured."""

    name: str
    latencies: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def add(self, seconds: float, status: str) -> None:
        self.latencies.append(seconds)
        self.statuses[status] += 1

    def to_json(self) -> dict:
        lat = sorted(self.latencies)
        pct = lambda q: round(lat[min(len(lat) - 1, int(q * len(lat)))], 3) if lat else None  # noqa: E731
        errors = sum(n for s, n in self.statuses.items() if s != "200")
        return {
            "phase": self.name,
            "requests": len(lat),
            "errors": errors,
            "statuses": dict(self.statuses),
            "seconds": round(self.seconds, 1),
            "throughput_rps": round(len(lat) / self.seconds, 3),
            "p50_s": pct(0.50),
            "p95_s": pct(0.95),
            "p99_s": pct(0.99),
            "mean_s": round(statistics.fmean(lat), 3) if lat else None,
        }


def post_photo(
    client: httpx.Client, base: str, name: str, data: bytes, phase: Phase, lock: threading.Lock
) -> None:
    started = time.perf_counter()
    try:
        r = client.post(
            f"{base}/v1/score", files={"photo": (name, data, "image/jpeg")}, data={"cards": CARDS}
        )
        status = str(r.status_code)
        if r.status_code != 200:
            status += f" {r.json().get('code', '')}"
    except httpx.HTTPError as e:
        status = type(e).__name__
    with lock:
        phase.add(time.perf_counter() - started, status)


def concurrent_phase(
    base: str, photos: list[tuple[str, bytes]], clients: int, seconds: float
) -> Phase:
    """``clients`` threads posting photos until ``seconds``
    have passed (a request started is finished)."""
    phase, lock = Phase(f"{clients} concurrent clients, {seconds:g} s"), threading.Lock()
    stop_at = time.monotonic() + seconds

    def client_loop(k: int) -> None:
        with httpx.Client(timeout=REQUEST_TIMEOUT_S) as client:
            i = k
            while time.monotonic() < stop_at:
                name, data = photos[i % len(photos)]
                post_photo(client, base, name, data, phase, lock)
                i += clients

    started = time.perf_counter()
    threads = [threading.Thread(target=client_loop, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    phase.seconds = time.perf_counter() - started
    return phase


def sequential_phase(base: str, photos: list[tuple[str, bytes]], count: int) -> Phase:
    phase, lock = Phase(f"{count} sequential requests"), threading.Lock()
    started = time.perf_counter()
    with httpx.Client(timeout=REQUEST_TIMEOUT_S) as client:
        for i in range(count):
            name, data = photos[i % len(photos)]
            post_photo(client, base, name, data, phase, lock)
    phase.seconds = time.perf_counter() - started
    return phase


class PeakMemory:
    """Polls the server's resident memory every half second; ``peak`` is the highest seen."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._stop = pid, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self.peak = max(self.peak, rss_mb(self.pid))
            except psutil.Error:
                return

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = psutil.virtual_memory().total / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {memory:.0f} GiB, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--sequential", type=int, default=500)
    ap.add_argument(
        "--threads", type=int, default=2, help="the service's CARTOGRAPHERS_CPU_THREADS"
    )
    # 5 s (docs/hardening.md runs 4-7) left the baseline anywhere from 385 to 450 MB, so the growth
    # figure measured the warm-up as much as the load; 30 s is about three rounds of the photos per
    # thread
    ap.add_argument(
        "--warm-up", type=float, default=30.0, help="seconds of warm-up load before the baseline"
    )
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    photos = [(p.name, p.read_bytes()) for p in sorted((ROOT / "samples").glob("*.jpg"))]
    if not photos:
        raise SystemExit("no sample photos in samples/")
    work = Path(tempfile.mkdtemp(prefix="cartographers-load-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(port, work, args.threads)
    try:
        wait_healthy(base, proc)
        rss_start = rss_mb(proc.pid)
        with httpx.Client(timeout=REQUEST_TIMEOUT_S) as client:  # warm-up: the model loads
            answers = {
                name: client.post(
                    f"{base}/v1/score",
                    files={"photo": (name, data, "image/jpeg")},
                    data={"cards": CARDS},
                ).status_code
                for name, data in photos
            }
        concurrent_phase(
            base, photos, args.threads, args.warm_up
        )  # every CPU thread has read every photo
        # photos the reader cannot read (a 422, a correct answer)
        # are left out, so any error below is the service's
        unread = sorted(n for n, status in answers.items() if status != 200)
        photos = [(n, d) for n, d in photos if answers[n] == 200]
        if not photos:
            raise SystemExit(f"the reader read none of the sample photos: {answers}")
        rss_before = rss_mb(proc.pid)
        with PeakMemory(proc.pid) as peak:
            phases = [concurrent_phase(base, photos, args.clients, args.seconds)]
            rss_between = rss_mb(proc.pid)
            phases.append(sequential_phase(base, photos, args.sequential))
        rss_after = rss_mb(proc.pid)
        alive = proc.poll() is None and httpx.get(f"{base}/health", timeout=5).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    report = {
        "machine": machine(),
        "photos": [n for n, _ in photos],
        "left_out": unread,
        "cpu_threads": args.threads,
        "phases": [p.to_json() for p in phases],
        "rss_mb": {
            "at_start": round(rss_start, 1),
            "before": round(rss_before, 1),
            "peak": round(peak.peak, 1),
            "between_phases": round(rss_between, 1),
            "after": round(rss_after, 1),
            "growth_percent": round(100 * (rss_after / rss_before - 1), 1),
        },
        "server_alive_after": alive,
    }
    print(
        f"machine: {report['machine']}; service: uvicorn, {args.threads} CPU threads; "
        f"{len(photos)} sample photos to /v1/score (left out, the reader answers 422: "
        f"{', '.join(unread) or 'none'})"
    )
    print(
        f"{'phase':36s} {'requests':>8s} {'errors':>6s} {'req/s':>7s} {'p50 s':>7s} {'p95 s':>7s} "
        f"{'p99 s':>7s}"
    )
    for p in report["phases"]:
        print(
            f"{p['phase']:36s} {p['requests']:8d} {p['errors']:6d} {p['throughput_rps']:7.2f} "
            f"{p['p50_s']:7.2f} {p['p95_s']:7.2f} {p['p99_s']:7.2f}   {p['statuses']}"
        )
    m = report["rss_mb"]
    print(
        f"server RSS MB: at start {m['at_start']}, after warm-up {m['before']}, peak {m['peak']}, "
        f"between phases {m['between_phases']}, "
        f"after {m['after']} (growth {m['growth_percent']:+.1f} %); alive after: {alive}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    errors = sum(p["errors"] for p in report["phases"])
    return 0 if errors == 0 and alive and m["growth_percent"] <= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
