"""Requests/s and latency of the HTTP service: ``/v1/score-map`` and ``/v1/score`` (sample photos).

Starts ``cartographers serve`` (one uvicorn worker) on a free port of 127.0.0.1, sends a bounded
number of requests from a few client threads, and prints the measured figures. Nothing is
written in advance; run it on an idle machine:

    python3 benchmarks/bench_api.py [--requests 400] [--photo-requests 40] [--concurrency 4]
                                    [--photo-concurrency 2] [--photos 8] [--megapixels 8]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
CARDS = ["sentinel-wood", "canal-lake", "wildholds", "borderlands"]
MAX_SECONDS = 300  # every run stops by itself


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server() -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "api.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.1)
    proc.terminate()
    raise SystemExit("the server did not start")


def run_load(base: str, make_request, total: int, concurrency: int) -> dict:
    """Send ``total`` requests from ``concurrency``
    threads; latency per request and overall rate."""
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    counter = iter(range(total))
    deadline = time.monotonic() + MAX_SECONDS

    def worker():
        with httpx.Client(base_url=base, timeout=120) as client:
            while time.monotonic() < deadline:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                t0 = time.perf_counter()
                r = make_request(client, i)
                dt = time.perf_counter() - t0
                with lock:
                    latencies.append(dt)
                    if r.status_code != 200:
                        failures.append(f"{r.status_code} {r.text[:120]}")

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    lat = sorted(latencies)
    return {
        "requests": len(lat),
        "failures": len(failures),
        "first_failure": failures[0] if failures else None,
        "seconds": round(wall, 2),
        "requests_per_s": round(len(lat) / wall, 1),
        "p50_ms": round(1000 * statistics.median(lat), 1),
        "p95_ms": round(1000 * lat[min(len(lat) - 1, int(0.95 * len(lat)))], 1),
        "max_ms": round(1000 * lat[-1], 1),
        "concurrency": concurrency,
    }


class HealthProbe:
    """Asks ``/health`` every 50 ms from a thread until stopped, timing each answer."""

    def __init__(self, base: str):
        self.latencies: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(base,))
        self._thread.start()

    def _run(self, base: str) -> None:
        with httpx.Client(base_url=base, timeout=30) as client:
            while not self._stop.wait(0.05):
                t0 = time.perf_counter()
                client.get("/health")
                self.latencies.append(time.perf_counter() - t0)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> str:
        lat = sorted(self.latencies)
        if not lat:
            return "no answers"
        return (
            f"{len(lat)} requests, p50 {1000 * statistics.median(lat):.1f} ms, "
            f"p95 {1000 * lat[min(len(lat) - 1, int(0.95 * len(lat)))]:.1f} ms"
        )


def sample_photos(n: int, megapixels: float) -> tuple[list[bytes], str]:
    """Photos from ``samples/`` if it has any, else ``n`` synthetic phone photos (fixed seeds)."""
    files = sorted(p for ext in ("jpg", "jpeg", "png") for p in (ROOT / "samples").glob(f"*.{ext}"))
    if files:
        return [p.read_bytes() for p in files], "samples/"
    from vision.synth.photo import make_photo

    return [
        make_photo(1000 + i, megapixels=megapixels).jpeg for i in range(n)
    ], f"synthetic, seeds 1000–{999 + n}, {megapixels:g} MP"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=400, help="score-map requests (default 400)")
    ap.add_argument(
        "--photo-requests", type=int, default=40, help="score requests with photos (default 40)"
    )
    ap.add_argument(
        "--concurrency", type=int, default=4, help="client threads for score-map (default 4)"
    )
    ap.add_argument(
        "--photo-concurrency", type=int, default=2, help="client threads for score (default 2)"
    )
    ap.add_argument(
        "--photos", type=int, default=8, help="synthetic photos when samples/ has none (default 8)"
    )
    ap.add_argument("--megapixels", type=float, default=8.0, help="their size (default 8 MP)")
    args = ap.parse_args()
    sheet = json.loads((ROOT / "samples" / "typical-a.json").read_text())
    proc, base = start_server()
    try:
        health = httpx.get(f"{base}/health").json()
        print(
            f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; "
            f"server: one uvicorn worker at {base}; health: {health}"
        )
        body = {"sheet": sheet, "cards": CARDS, "season": "spring"}
        run_load(base, lambda c, i: c.post("/v1/score-map", json=body), 20, 1)  # warm-up
        res = run_load(
            base, lambda c, i: c.post("/v1/score-map", json=body), args.requests, args.concurrency
        )
        print(f"/v1/score-map (samples/typical-a.json, four cards, one season): {json.dumps(res)}")
        if not health.get("reader"):
            print("/v1/score: not measured, this build has no photo reader")
        else:
            photos, source = sample_photos(args.photos, args.megapixels)

            def score(c, i):
                data = photos[i % len(photos)]
                return c.post(
                    "/v1/score",
                    files={"photo": ("sheet.jpg", data, "image/jpeg")},
                    data={"cards": ",".join(CARDS), "season": "spring"},
                )

            run_load(base, score, min(4, len(photos)), 1)  # warm-up: model load
            sizes = sorted({len(p) // 1000 for p in photos})
            probe = HealthProbe(base)  # is the event loop still answering while photos are read?
            res = run_load(base, score, args.photo_requests, args.photo_concurrency)
            probe.stop()
            print(
                f"/v1/score ({len(photos)} photos, {source}, {sizes[0]}–{sizes[-1]} kB): "
                f"{json.dumps(res)}"
            )
            print(f"GET /health during that load: {probe.summary()}")
        print(
            f"load average {os.getloadavg()[0]:.1f} at the end (other work on the machine slows "
            "every figure)"
        )
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
