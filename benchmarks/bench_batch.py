"""Batch benchmark: throughput with 1 and 2 workers, kill -9 and resume, the Dask path.

    python benchmarks/bench_batch.py [--photos 200] [--megapixels 3] [--dir
    /tmp/cartographers-bench-batch]
                                     [--skip-kill] [--dask]

1. Makes ``--photos`` synthetic phone photos (vision.synth.make_photo) of the final sheets of
   simulated games, once, into ``--dir`` (kept for reruns; never in the repository).
2. Runs ``cartographers batch`` on them with ``--workers 1`` and ``--workers 2`` (fresh runs) and
   prints sheets/s for each and the speed-up.
3. Starts a 2-worker batch as a separate process, sends it SIGKILL once a third of the sheets are in
   the journal, reruns it, and checks that no finished sheet was redone and that the results equal
   the clean 2-worker run's.
4. With ``--dask``: the same batch on a 2-worker Dask LocalCluster, results compared to the pool's.

Every figure printed is measured here, on this machine; nothing is assumed.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

CARDS = "sentinel-wood,canal-lake,wildholds,borderlands"


def make_one(args: tuple[int, float, str]) -> tuple[str, dict]:
    """One photo of a simulated final sheet; returns its file name and true sheet."""
    from scoring.simulator import simulate
    from vision.synth.photo import make_photo

    seed, megapixels, folder = args
    players = 4
    record = simulate(players, "AB"[seed % 2], seed // players, "random")
    sheet = record.final_sheets[seed % players]
    photo = make_photo(seed, sheet=sheet, megapixels=megapixels)
    name = f"sheet{seed:04d}.jpg"
    (Path(folder) / name).write_bytes(photo.jpeg)
    return name, sheet.to_json()


def make_photos(folder: Path, count: int, megapixels: float) -> dict[str, dict]:
    """The photos and their truth, made once and reused."""
    folder.mkdir(parents=True, exist_ok=True)
    truth_file = folder.with_name(
        folder.name + ".truth.json"
    )  # beside the folder, not a batch input
    truth = json.loads(truth_file.read_text()) if truth_file.exists() else {}
    todo = [s for s in range(count) if f"sheet{s:04d}.jpg" not in truth]
    if todo:
        print(f"making {len(todo)} photos of {megapixels:g} MP in {folder} …", flush=True)
        t0 = time.perf_counter()
        with cf.ProcessPoolExecutor(2) as pool:
            for name, sheet in pool.map(
                make_one, [(s, megapixels, str(folder)) for s in todo], chunksize=4
            ):
                truth[name] = sheet
        truth_file.write_text(json.dumps(truth))
        print(f"  made in {time.perf_counter() - t0:.0f} s")
    return {k: v for k, v in truth.items() if int(k[5:9]) < count}


def run_cli(
    photos: Path, out: Path, workers: int, *extra: str, fresh: bool = True
) -> tuple[float, dict]:
    """``cartographers batch`` as a child process; wall time and its summary line."""
    cmd = [
        sys.executable,
        "-m",
        "api.cli",
        "batch",
        str(photos),
        "--cards",
        CARDS,
        "--out",
        str(out),
        "--workers",
        str(workers),
        *extra,
    ] + (["--fresh"] if fresh else [])
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, json.loads(done.stdout.strip().splitlines()[-1])


def comparable(path: Path) -> dict:
    data = json.loads(path.read_text())
    for s in data["sheets"]:
        s.pop("seconds", None)
    return data


def accuracy(results: dict, truth: dict) -> tuple[int, int, int]:
    """(sheets read, sheets read with every cell right, wrong cells in all)."""
    read = right = wrong = 0
    for s in results["sheets"]:
        if s["status"] != "ok":
            continue
        read += 1
        want = truth[s["file"]]["cells"]
        bad = sum(a != b for ra, rb in zip(s["cells"], want) for a, b in zip(ra, rb))
        wrong += bad
        right += bad == 0
    return read, right, wrong


def kill_and_resume(photos: Path, work: Path, total: int, clean: Path) -> None:
    out = work / "killed.json"
    journal = out.with_name(out.name + ".journal.jsonl")
    for p in (out, journal):
        p.unlink(missing_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "api.cli",
        "batch",
        str(photos),
        "--cards",
        CARDS,
        "--out",
        str(out),
        "--workers",
        "2",
        "--no-progress",
    ]
    child = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    target = max(1, total // 3)
    while child.poll() is None:
        lines = journal.read_bytes().count(b"\n") - 1 if journal.exists() else 0
        if lines >= target:
            os.killpg(
                child.pid, signal.SIGKILL
            )  # the batch and its worker processes, like a power cut
            break
        time.sleep(0.05)
    child.wait()
    finished = journal.read_bytes().count(b"\n") - 1
    print(
        f"kill -9 after {finished} of {total} sheets were in the journal; results file written: "
        f"{out.exists()}"
    )
    seconds, summary = run_cli(photos, out, 2, fresh=False)
    same = comparable(out) == comparable(clean)
    print(
        f"rerun: resumed {summary['resumed']}, scored {summary['scored']} ({seconds:.1f} s); "
        "no finished sheet redone: "
        f"{summary['resumed'] == finished and summary['scored'] == total - finished}; "
        f"results equal the clean run's: {same}"
    )


def dask_run(photos: Path, work: Path, clean: Path) -> None:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        seconds, summary = run_cli(
            photos, work / "dask.json", 2, "--scheduler", cluster.scheduler_address
        )
    print(
        f"Dask LocalCluster (2 worker processes): {summary['sheets_per_second']:.2f} sheets/s "
        f"over {seconds:.1f} s "
        "wall; results equal the local pool's: "
        f"{comparable(work / 'dask.json') == comparable(clean)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", type=int, default=200)
    ap.add_argument("--megapixels", type=float, default=3.0)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/cartographers-bench-batch"))
    ap.add_argument("--skip-kill", action="store_true")
    ap.add_argument("--dask", action="store_true")
    args = ap.parse_args()
    photos = args.dir / f"photos-{args.photos}-{args.megapixels:g}mp"
    truth = make_photos(photos, args.photos, args.megapixels)
    work = args.dir / "runs"
    work.mkdir(parents=True, exist_ok=True)
    rates = {}
    for workers in (1, 2):
        out = work / f"workers{workers}.json"
        seconds, summary = run_cli(photos, out, workers)
        rates[workers] = summary["sheets_per_second"]
        read, right, wrong = accuracy(json.loads(out.read_text()), truth)
        print(
            f"workers={workers}: {summary['scored']} sheets in {summary['seconds']:.1f} s = "
            f"{summary['sheets_per_second']:.2f} sheets/s ({seconds:.1f} s wall with start-up); "
            f"failed {summary['failed']}; read {read}, every cell right on {right}, wrong cells "
            f"{wrong}"
        )
    print(
        f"speed-up 2 workers / 1 worker: {rates[2] / rates[1]:.2f}x (os.cpu_count() = "
        f"{os.cpu_count()})"
    )
    print(
        "same results with 1 and 2 workers:",
        comparable(work / "workers1.json") == comparable(work / "workers2.json"),
    )
    if not args.skip_kill:
        kill_and_resume(photos, work, len(truth), work / "workers2.json")
    if args.dask:
        dask_run(photos, work, work / "workers2.json")


if __name__ == "__main__":
    main()
