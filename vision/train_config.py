"""The training recipe: its settings (:class:`TrainConfig`, recorded with the model), the quick
recipe, and the ``cartographers train`` command line that makes a recipe."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass
class TrainConfig:
    """How the shipped model is made (recorded in models/reader.json)."""

    seed: int = 1
    photos: int = 3200  # the most that fit the time budget; accuracy still grows with each doubling
    holdout_style_family: str = (
        "marker"  # kept out, so the benchmark measures an unseen marking style
    )
    holdout_background_family: str = "cloth"  # and an unseen table
    # Printed-art families (vision.synth.art): this share of the photos shows a family other than
    # our look-alike, drawn uniformly among those not held out; the cell models learn from them all
    art_share: float = 0.5
    # The coin model learns from these art families only ("all": every one in training). Our
    # families' coin tracks taught it to take the publisher's unmarked coins for marked ones
    # (docs/reader.md, "Other printings")
    coin_art: str = "lookalike"

    holdout_art_family: str = "woodcut"  # kept out, so the benchmark measures an unseen printing
    max_megapixels: float = (
        2.5  # features are taken on the rectified sheet; bigger photos add time only
    )
    # Photos given a lamp's glare. Off: glare comes with the held-out marker family only, and
    # training on it read glare cells better but whole sheets worse on the benchmark
    glare_share: float = 0.0
    # Photos of each drawn sheet (later ones are retakes under new light). 1: a second take cost 1.8
    # × the network time for a small gain
    takes: int = 1
    validation_share: float = (
        0.15  # photos kept aside to calibrate the flag threshold and report figures
    )
    max_iter: int = 300  # coin boosting
    context_max_iter: int = (
        150  # sheet-context boosting (more iterations read no better and doubled the file)
    )
    # 2: a second context round reading the first round's neighbours; no gain beyond random-start
    # spread for a 25 % bigger file
    context_rounds: int = 1
    nearby_paper: bool = True  # the context stage compares each cell with the empty paper around it
    sheet_look: bool = True  # and reads the sheet's own look (the spread of its cells' colours)
    ruins_compared: bool = True  # and compares each ruins cell with the sheet's other ruins cells
    # The ruins cells get a context stage of their own (reading that comparison) and the main stage
    # reads the other cells without it: the context fit took 235 s instead of 815 s, and read as
    # well (docs/reader.md, "Training")
    ruins_context: bool = True
    learning_rate: float = 0.08
    max_leaf_nodes: int = 31
    hidden_layers: tuple[int, ...] = (
        512,
        256,
    )  # wider layers read barely better for twice the file and time
    alpha: float = 1e-3
    epochs: int = (
        40  # fixed: the rows of one photo are alike, so a random early-stopping split would leak
    )
    # shape networks, alternating between the two halves of the photos, each its own random start
    networks: int = 4
    # Trees beside the networks (fit_trees; 0: none), one per half, read by the context stage: they
    # err on other cells than the networks, and the context stage learns when to believe which
    tree_iterations: int = 200
    tree_leaves: int = 31
    tree_learning_rate: float = 0.1
    workers: int = 2

    def coin_families(self) -> set[str] | None:
        """The art families named by ``coin_art`` (``None``: every one).

        >>> TrainConfig(coin_art="lookalike,engraved").coin_families() == {"lookalike", "engraved"}
        True
        """
        return None if self.coin_art == "all" else {f for f in self.coin_art.split(",") if f}


#: The quick recipe (``cartographers train --quick``): every stage of the full one — generating, the
#: jittered copies, networks, trees, the context stage, coins, validation, the saved file — on a few
#: small photos, in about a minute. Its model reads badly; it is for checking the recipe runs.
QUICK = {
    "photos": 24,
    "max_megapixels": 1.0,
    "epochs": 3,
    "max_iter": 10,
    "context_max_iter": 10,
    "tree_iterations": 4,
    "hidden_layers": (32, 16),
    "networks": 2,
    "art_share": 0.5,
}


def quick_config(cfg: TrainConfig) -> TrainConfig:
    """``cfg`` cut down to the quick recipe (:data:`QUICK`).

    >>> quick_config(TrainConfig(seed=4)).photos, quick_config(TrainConfig(seed=4)).seed
    (24, 4)
    """
    return replace(cfg, **QUICK)


def train_command(cfg: TrainConfig) -> str:
    """The ``cartographers train`` command that makes this configuration (options only where they
    differ from the defaults the command line offers).

    >>> train_command(TrainConfig(seed=3))
    'cartographers train --seed 3'
    >>> train_command(TrainConfig(photos=40, holdout_art_family="none"))
    'cartographers train --seed 1 --photos 40 --holdout-art-family none'
    """
    d = TrainConfig()
    if {k: getattr(cfg, k) for k in QUICK} == QUICK:
        return f"cartographers train --quick --seed {cfg.seed}"
    words = ["cartographers", "train", "--seed", str(cfg.seed)]
    for name in (
        "photos",
        "holdout_style_family",
        "holdout_background_family",
        "holdout_art_family",
        "art_share",
        "coin_art",
    ):
        if getattr(cfg, name) != getattr(d, name):
            words += [f"--{name.replace('_', '-')}", str(getattr(cfg, name))]
    return " ".join(words)
