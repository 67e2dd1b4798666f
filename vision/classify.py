"""The per-cell terrain classifier and the per-coin filled/empty classifier, and their model file.

Cells are read in two stages. First four ``MLPClassifier`` networks (each behind a
``StandardScaler``), two fitted on each half of the training photos from different random starts,
over the features of :mod:`vision.features` (ink colour and darkness, stroke-orientation histograms,
a darkness thumbnail); their mean is both more accurate and better calibrated than one network. Then
the *sheet context* stage (:func:`sheet_context`): a player uses the same pencils all over a sheet,
so each cell's ink colour is compared with the cells of the same sheet the networks are sure of,
class by class, and with the sure empty paper around it (:func:`nearby_paper`); the
sheet's own look, the median and spread of its cells' colour measures (:func:`sheet_look`),
says what kind of sheet that is; and a ``HistGradientBoostingClassifier`` reads the networks'
probabilities together with those distances and its neighbours' probabilities — and
the probabilities of *trees* beside the networks (:attr:`ReaderModel.trees`, two
``HistGradientBoostingClassifier``s over the same cell features, one per half of the training
photos): they read cells less well than the networks but err on other cells, and the context stage
learns when to believe which; a cell's probabilities mix both stages, the context stage weighing
``CONTEXT_WEIGHT`` (it helps most on colour shading and unseen marker fills). The
context stage can run in two rounds (``TrainConfig.context_rounds``, :func:`second_round_inputs`):
the second reads the first round's probabilities of each cell and its neighbours. It gave no clear
gain for a bigger file, so the shipped model has one round. The six ruins cells have a context
stage of their own (:attr:`ReaderModel.ruins_context`), which also compares each with the sheet's
other ruins cells (:func:`ruins_comparison`): a bare ruins cell prints a glyph the others share,
and those columns say nothing about any other cell, so the main stage reads the rest without them
(the two fit in 195 + 40 s where one stage over every cell took about 815 s).

The coin model is a ``HistGradientBoostingClassifier`` over :mod:`vision.coins` features.

Training fits these with scikit-learn; the model file ``models/reader.npz`` holds their numpy
export (:mod:`vision.inference`): plain arrays, read with ``allow_pickle=False``, so loading never
runs code from the file and reading a photo never imports scikit-learn. ``models/reader.json``
beside it records the library versions, training seed and configuration, measured figures and the
low-confidence threshold.
"""

from __future__ import annotations

import json
import platform
import zipfile
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from scoring.sides import SIDES
from scoring.terrain import Terrain
from vision.coins import COIN_FEATURE_NAMES
from vision.features import CELL_FEATURE_NAMES, HUE_BINS
from vision.inference import export, from_arrays, to_arrays

MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
MODEL_FILE = MODEL_DIR / "reader.npz"
META_FILE = MODEL_DIR / "reader.json"

#: What a player can draw on a cell: the classes of the cell model, in this order.
CELL_CLASSES: tuple[Terrain, ...] = (
    Terrain.EMPTY,
    Terrain.FOREST,
    Terrain.VILLAGE,
    Terrain.FARM,
    Terrain.WATER,
    Terrain.MONSTER,
)

#: The layout of the model file's arrays (:func:`save_model`);
#: a file of another layout asks for retraining.
FILE_FORMAT = 1

DEFAULT_LOW_CONFIDENCE = 0.9
#: "Unfamiliar sheet" rule: a cell whose top probability is below UNSURE_BELOW counts as unsure;
#: when more than UNFAMILIAR_SHARE of a sheet's drawable cells are unsure, the sheet looks unlike
#: the training sheets (an unseen marking style, a strong colour cast), the model's confidence is
#: worth less there, and cells are flagged below UNFAMILIAR_LOW_CONFIDENCE instead of the calibrated
#: threshold (a model without a sheet-context stage; with one, the stage's own probability is held
#: to CONTEXT_FLAG_BELOW_UNFAMILIAR instead: docs/reader.md, "Flag"). Chosen, for the calibrated
#: threshold, on our own printings (art families, 80 sheets / look-alike, 299) with the shipped
#: model and SURE_DESPITE_DOUBT 0.999, as cells flagged and wrong cells left unflagged per sheet:
#: 0.9995 7.9 % and 0.000 / 5.6 % and 0.010; 0.995 7.0 % and 0.000 / 4.6 % and 0.010; 0.99 6.9 % and
#: 0.000 / 4.5 % and 0.010. On the publisher's sheets (315) the same three: 12.5 % and 0.013, 10.1 %
#: and 0.016, 9.9 % and 0.025.
UNSURE_BELOW = 0.9
UNFAMILIAR_SHARE = 0.08
UNFAMILIAR_LOW_CONFIDENCE = 0.995

#: Flags of a model with a sheet-context stage (docs/reader.md, "Flag"). The stage reads each cell
#: with its sheet around it, and its own probability of the class read ranks the wrong cells better
#: than the mixed probability does (area under the curve for a wrong cell: the look-alike 0.9901
#: against 0.9877, our art families 0.9965 against 0.9935, the publisher's sheets 0.9878 against
#: 0.9811). A cell is flagged when the stage gives the class read less than CONTEXT_FLAG_BELOW
#: (CONTEXT_FLAG_BELOW_UNFAMILIAR on an unfamiliar sheet), or the mixed probability is below
#: MIXED_FLAG_BELOW (the networks contest the stage). Chosen on our own printings (art families, 80
#: sheets / look-alike, 299) with the shipped model as the rule flagging fewest cells while leaving
#: at most 0.01 wrong cells a sheet unflagged on both; the calibrated threshold
#: (``low_confidence_below``) serves models without the stage.
CONTEXT_FLAG_BELOW = 0.995
CONTEXT_FLAG_BELOW_UNFAMILIAR = 0.999
MIXED_FLAG_BELOW = 0.8

#: Colour measures (vision.features names) the
#: sheet-context stage compares between cells of a sheet.
CONTEXT_FEATURES: tuple[str, ...] = (
    "dL_mean",
    "dL_p75",
    "da_mean",
    "db_mean",
    "da_ink",
    "db_ink",
    "chroma_mean",
    "coloured",
    "coloured2",
    "ink12",
    "ink25",
    *(f"hue{b}" for b in range(HUE_BINS)),
)
_CONTEXT_COLUMNS = [CELL_FEATURE_NAMES.index(n) for n in CONTEXT_FEATURES]
_SIDE_B = CELL_FEATURE_NAMES.index("side_b")
CONTEXT_SURE = (
    0.9  # a cell counts towards its class's colour on the sheet when the networks give it this
)
CONTEXT_MAX_COUNT = 20  # sure cells of a class counted up to this many
CONTEXT_NONE = 10.0  # distance reported when a class has no sure cell on the sheet (scaled units)
#: Nearby paper (:func:`nearby_paper`): how fast a cell's weight as a neighbour falls off with
#: distance (the σ of a Gaussian, in cells), and the colour measures whose signed difference from
#: the nearby paper the stage reads. σ 1.0 read the fewest dev cells wrong among 0.7–2.5, and
#: comparing with sure empty cells only beat comparing with every class's.
NEARBY_SIGMA = 1.0
NEARBY_DIFFERENCES: tuple[str, ...] = (
    "dL_mean",
    "dL_p75",
    "da_mean",
    "db_mean",
    "coloured",
    "ink12",
)
_NEARBY_COLUMNS = [CONTEXT_FEATURES.index(n) for n in NEARBY_DIFFERENCES]
#: the context stage's share of a cell's probabilities (the networks have the rest). On the shipped
#: stage
#: 0.7–1.0 read as many cells wrong and, at equal catch, flag as many (a move along one curve); 0.5
#: read 9 % more wrong.
CONTEXT_WEIGHT = 0.6


class ModelMissingError(RuntimeError):
    """No trained model file: run ``cartographers train``."""


@dataclass
class ReaderModel:
    """The cell classifier (networks and sheet-context stage), the coin classifier, and what the
    reader needs to know about them."""

    # Each part is a fitted model with predict_proba and classes_: a vision.inference export when
    # loaded from the file, the scikit-learn estimator during training.
    shape: list  # networks over CELL_FEATURE_NAMES, classes 0…5 = CELL_CLASSES
    coins: object  # boosted trees over vision.coins features, class 1 = coin filled
    meta: dict = field(default_factory=dict)
    context: object | None = (
        None  # HistGradientBoostingClassifier over context_inputs(); None: networks only
    )
    context_scale: np.ndarray | None = (
        None  # (len(CONTEXT_FEATURES),) spread of each measure in training
    )
    nearby_paper: bool = False  # the context stage also reads nearby_paper() (older files do not)
    sheet_look: bool = False  # and sheet_look() (older files do not)
    ruins_compared: bool = False  # and ruins_comparison() (older files do not)
    # A context stage of the ruins cells' own, over context_inputs() and, with ruins_compared,
    # ruins_comparison(); when present, ``context`` reads the other cells without the comparison.
    # None: ``context`` reads every cell (older files)
    ruins_context: object | None = None
    # The first context round, one stage per half of the training photos (their mean is read); when
    # present, ``context`` is the second round, over second_round_inputs(). Empty: one round
    first_context: list = field(default_factory=list)
    # HistGradientBoostingClassifiers over CELL_FEATURE_NAMES, one per half of the training photos;
    # the context stage reads their mean probabilities (context_inputs' ``trees``). Empty: no trees
    # (older files)
    trees: list = field(default_factory=list)

    @property
    def low_confidence_below(self) -> float:
        """Cells whose top probability is below this are flagged (calibrated at training)."""
        return float(self.meta.get("low_confidence_below", DEFAULT_LOW_CONFIDENCE))

    def sheet_threshold(self, confidences: np.ndarray) -> tuple[float, bool]:
        """The flag threshold for one sheet from its drawable cells' top probabilities, and whether
        the sheet looked unfamiliar (the "unfamiliar sheet" rule above).

        >>> model = ReaderModel(shape=[], coins=None, meta={"low_confidence_below": 0.99})
        >>> model.sheet_threshold(np.array([1.0] * 95 + [0.8] * 5))
        (0.99, False)
        >>> model.sheet_threshold(np.array([1.0] * 90 + [0.8] * 10))
        (0.995, True)
        """
        unfamiliar = (
            bool(len(confidences))
            and float(np.mean(np.asarray(confidences) < UNSURE_BELOW)) > UNFAMILIAR_SHARE
        )
        base = self.low_confidence_below
        return (max(base, UNFAMILIAR_LOW_CONFIDENCE) if unfamiliar else base), unfamiliar

    def unsure_cells(
        self, probs: np.ndarray, context: np.ndarray | None = None
    ) -> tuple[np.ndarray, bool]:
        """Which cells of ONE sheet to flag, from their probabilities (:meth:`cell_stages`), and
        whether the sheet looked unfamiliar (the "unfamiliar sheet" rule above). With the context
        stage's own probabilities (``context``), the rule of ``CONTEXT_FLAG_BELOW``; without, the
        top probability under :meth:`sheet_threshold`.

        >>> model = ReaderModel(shape=[], coins=None, meta={"low_confidence_below": 0.99})
        >>> probs = np.array([[0.97, 0.03], [0.995, 0.005], [0.92, 0.08]])
        >>> model.unsure_cells(probs)[0].tolist()
        [True, False, True]
        >>> context = np.array([[0.999, 0.001], [0.99, 0.01], [0.999, 0.001]])
        >>> model.unsure_cells(probs, context)[0].tolist()  # the stage unsure of the second
        [False, True, False]
        """
        confidence = probs.max(axis=1)
        threshold, unfamiliar = self.sheet_threshold(confidence)
        if context is None:
            return confidence < threshold, unfamiliar
        chosen = context[np.arange(len(probs)), probs.argmax(axis=1)]
        below = CONTEXT_FLAG_BELOW_UNFAMILIAR if unfamiliar else CONTEXT_FLAG_BELOW
        return (chosen < below) | (confidence < MIXED_FLAG_BELOW), unfamiliar

    def network_probabilities(self, features: np.ndarray) -> np.ndarray:
        """(N, 6) probabilities over CELL_CLASSES: the mean of the shape networks."""
        return mean_proba(self.shape, features)

    def tree_probabilities(self, features: np.ndarray) -> np.ndarray | None:
        """(N, 6) probabilities over CELL_CLASSES: the
        mean of the trees; None for a model without."""
        return mean_proba(self.trees, features) if self.trees else None

    def cell_probabilities(self, features: np.ndarray) -> np.ndarray:
        """(N, 6) probabilities over CELL_CLASSES for the drawable cells of ONE sheet: the networks'
        mean, mixed with the sheet-context stage's (``CONTEXT_WEIGHT``) when the model has one; the
        context stage also reads the trees' probabilities when the model has trees."""
        return self.cell_stages(features)[0]

    def cell_stages(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`cell_probabilities` and the sheet-context stage's own (N, 6) probabilities
        (``None`` for a model without the stage), which the flags read (:meth:`unsure_cells`)."""
        networks = self.network_probabilities(features)
        if self.context is None or len(features) == 0:
            return networks, None
        inputs = self.context_stage_inputs(features, networks)
        if self.first_context:
            first = np.mean([full_proba(stage, inputs) for stage in self.first_context], axis=0)
            inputs = second_round_inputs(inputs, mix_context(networks, first), sheet_side(features))
        context = full_proba(self.context, inputs)
        ruins = ruins_rows(features) if self.ruins_context is not None else []
        if ruins:
            context[ruins] = full_proba(
                self.ruins_context, self.ruins_stage_inputs(features, networks, inputs)[ruins]
            )
        return mix_context(networks, context), context

    def context_stage_inputs(self, features: np.ndarray, networks: np.ndarray) -> np.ndarray:
        """What the (first round of the) context stage reads about one whole sheet, given the
        networks' probabilities: :func:`context_inputs` with the parts this model was fitted on."""
        return context_inputs(
            features,
            networks,
            self.context_scale,
            self.nearby_paper,
            self.sheet_look,
            self.tree_probabilities(features),
            self.ruins_compared and self.ruins_context is None,
        )

    def ruins_stage_inputs(
        self, features: np.ndarray, networks: np.ndarray, inputs: np.ndarray
    ) -> np.ndarray:
        """What this model's ruins stage reads (:func:`ruins_stage_inputs`)."""
        return ruins_stage_inputs(
            features, networks, inputs, self.context_scale, self.ruins_compared
        )

    def coin_probabilities(self, features: np.ndarray) -> np.ndarray:
        """(14,) probability that each coin is filled."""
        proba = self.coins.predict_proba(features)
        classes = list(self.coins.classes_.astype(int))
        return proba[:, classes.index(1)] if 1 in classes else np.zeros(len(features))


def scaled_colour(features: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The cells' colour measures (CONTEXT_FEATURES) in units of their training spread ``scale``:
    the space in which the context stage measures distances between cells."""
    return features[:, _CONTEXT_COLUMNS].astype(np.float64) / scale


def sheet_context(features: np.ndarray, probabilities: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Inputs of the sheet-context stage for the drawable cells of one sheet, (N, 6 + 12 + 19):
    the networks' probabilities; for each class, how far the cell's colour measures
    (CONTEXT_FEATURES, divided by ``scale``) are from the mean of the sheet's other cells the
    networks give that class at least CONTEXT_SURE, and how many such cells there are; the measures
    themselves.

    >>> from vision.features import CELL_FEATURE_NAMES
    >>> x = np.zeros((3, len(CELL_FEATURE_NAMES)))
    >>> x[:, CELL_FEATURE_NAMES.index("db_ink")] = [30, 28, 0]
    >>> p = np.array([[0, 0, 0, 1.0, 0, 0], [0, 0, 0, 1.0, 0, 0], [1.0, 0, 0, 0, 0, 0]])
    >>> c = sheet_context(x, p, np.ones(len(CONTEXT_FEATURES)))
    >>> c[0, 6 + 2 * 3:6 + 2 * 3 + 2].tolist()  # farm: 2 from the other sure farm cell, 1 such cell
    [2.0, 1.0]
    >>> float(c[2, 6 + 2 * 0])  # empty: no other sure empty cell on the sheet
    10.0
    """
    colour = features[:, _CONTEXT_COLUMNS].astype(np.float64)
    z = colour / scale  # scaled_colour(), from the columns already taken
    out = np.zeros((len(features), 2 * len(CELL_CLASSES)))
    for k in range(len(CELL_CLASSES)):
        sure = (probabilities[:, k] >= CONTEXT_SURE).astype(np.float64)
        count = sure.sum() - sure  # each cell compared with the others only
        mean = (sure @ z - sure[:, None] * z) / np.maximum(count, 1)[:, None]
        out[:, 2 * k] = np.where(count >= 1, np.linalg.norm(z - mean, axis=1), CONTEXT_NONE)
        out[:, 2 * k + 1] = np.minimum(count, CONTEXT_MAX_COUNT)
    return np.concatenate([probabilities, out, colour], axis=1)


@cache
def drawable_neighbours(side: str) -> tuple[tuple[int, ...], ...]:
    """For each drawable cell of ``side`` (``SideLayout.drawable``: row by row, as the reader lists
    them), the indices of its drawable neighbours up, down, left and right.

    >>> nb = drawable_neighbours("A")
    >>> len(nb), nb[0]  # 116 drawable cells; the top-left corner has two neighbours
    (116, (1, 11))
    """
    cells = SIDES[side].drawable
    index = {cell: i for i, cell in enumerate(cells)}
    return tuple(
        tuple(
            index[(r + dr, c + dc)]
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0))
            if (r + dr, c + dc) in index
        )
        for r, c in cells
    )


def neighbour_summary(probabilities: np.ndarray, side: str) -> np.ndarray:
    """(N, 13) for the drawable cells of one sheet: the mean and the largest of each class's
    probability over a cell's drawable neighbours, and how many neighbours it has. Shapes are drawn
    whole, so a mark among marks of its kind is likelier than a lone one, and ink spilling over a
    line comes from a neighbour that shows it.

    >>> p = np.zeros((116, len(CELL_CLASSES))); p[:, 0] = 1.0
    >>> p[1, 0], p[1, 3] = 0.0, 1.0  # one farm
    >>> s = neighbour_summary(p, "A")
    >>> s[0, [0, 3, 6 + 3, 12]].tolist()  # cell 0: one of its two neighbours is that farm
    [0.5, 0.5, 1.0, 2.0]
    """
    neighbours = drawable_neighbours(side)
    if len(probabilities) != len(neighbours):
        raise ValueError(
            f"neighbour_summary needs one whole sheet: {len(neighbours)} drawable cells on side "
            f"{side}, "
            f"got {len(probabilities)}"
        )
    k = len(CELL_CLASSES)
    out = np.zeros((len(neighbours), 2 * k + 1))
    for i, js in enumerate(neighbours):
        q = probabilities[list(js)]
        out[i, :k], out[i, k : 2 * k], out[i, 2 * k] = q.mean(axis=0), q.max(axis=0), len(js)
    return out


@cache
def nearby_weights(side: str) -> np.ndarray:
    """(N, N) how much drawable cell j (``SideLayout.drawable`` order) counts as cell i's neighbour:
    a Gaussian of the distance between their centres (σ = ``NEARBY_SIGMA`` cells), 0 for the cell
    itself.

    >>> w = nearby_weights("A")
    >>> # itself, beside, diagonal:
    >>> w.shape, float(w[0, 0]), round(float(w[0, 1]), 3), round(float(w[0, 12]), 3)
    ((116, 116), 0.0, 0.607, 0.368)
    """
    rc = np.array(SIDES[side].drawable, dtype=np.float64)
    d2 = ((rc[:, None, :] - rc[None, :, :]) ** 2).sum(axis=-1)
    w = np.exp(-d2 / (2 * NEARBY_SIGMA**2))
    np.fill_diagonal(w, 0.0)
    return w


def nearby_paper(features: np.ndarray, probabilities: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """(N, 2 + len(NEARBY_DIFFERENCES)) for the drawable cells of one sheet: how far a cell's colour
    measures (CONTEXT_FEATURES / ``scale``) are from the paper around it — the mean of the nearby
    cells the networks give "empty" at least CONTEXT_SURE, weighted by :func:`nearby_weights` — the
    weight behind that mean, and the signed differences of NEARBY_DIFFERENCES (distance
    ``CONTEXT_NONE`` and differences 0 when no sure empty cell is near).

    Light and tint change across a sheet faster than the smooth paper surface follows
    (:func:`vision.features.paper_model`): a yellowed edge, a fold's shade. An empty cell there is
    unlike the sheet's empty cells on average (:func:`sheet_context`) but like the empty cells
    beside it (benchmark photo 50100116, a blank sheet with a shadow over one corner: its eight bare
    cells there read as forest before, right with this).

    >>> from vision.features import CELL_FEATURE_NAMES
    >>> db_mean = CELL_FEATURE_NAMES.index("db_mean")
    >>> x = np.zeros((116, len(CELL_FEATURE_NAMES))); x[:, db_mean] = 1.0
    >>> x[0, db_mean] = 4.0  # cell 0 more yellow than the paper around it
    >>> p = np.zeros((116, len(CELL_CLASSES))); p[:, 0] = 1.0  # every cell surely empty
    >>> f = nearby_paper(x, p, np.ones(len(CONTEXT_FEATURES)))
    >>> nearby_db = 2 + NEARBY_DIFFERENCES.index("db_mean")
    >>> [round(float(v), 2) for v in (f[0, 0], f[0, nearby_db], f[5, 0])]
    [3.0, 3.0, 0.0]
    """
    weights = nearby_weights(sheet_side(features))
    if len(features) != len(weights):
        raise ValueError(
            f"nearby_paper needs one whole sheet: {len(weights)} drawable cells, got "
            f"{len(features)}"
        )
    z = scaled_colour(features, scale)
    w = weights * (probabilities[:, CELL_CLASSES.index(Terrain.EMPTY)] >= CONTEXT_SURE)[None, :]
    total = w.sum(axis=1)
    near = total > 1e-3
    diff = z - w @ z / np.maximum(total, 1e-9)[:, None]
    distance = np.where(near, np.linalg.norm(diff, axis=1), CONTEXT_NONE)
    return np.concatenate(
        [distance[:, None], total[:, None], np.where(near[:, None], diff[:, _NEARBY_COLUMNS], 0.0)],
        axis=1,
    )


def sheet_look(features: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """(N, 2 × len(CONTEXT_FEATURES)) for the cells of one sheet, the same row for every cell: the
    median and the standard deviation over the sheet of each colour measure (CONTEXT_FEATURES /
    ``scale``).

    The measures are taken against the sheet's own paper, yet the same faint yellow means a pencil
    farm on a sheet of faint pencil strokes and paper under warm light on a sheet of bold marker
    fills: the spread says which kind of sheet it is, the median how far its light and tint were
    left over (the median and spread together read dev cells better than either alone).

    >>> from vision.features import CELL_FEATURE_NAMES
    >>> x = np.zeros((4, len(CELL_FEATURE_NAMES)))
    >>> x[:, CELL_FEATURE_NAMES.index("db_mean")] = [0, 0, 2, 6]
    >>> look = sheet_look(x, np.ones(len(CONTEXT_FEATURES)))
    >>> k = CONTEXT_FEATURES.index("db_mean")
    >>> # median 1 for every cell; spread:
    >>> look[:, k].tolist(), look[0, len(CONTEXT_FEATURES) + k].tolist()
    ([1.0, 1.0, 1.0, 1.0], 2.449489742783178)
    """
    z = scaled_colour(features, scale)
    row = np.concatenate([np.median(z, axis=0), z.std(axis=0)])
    return np.repeat(row[None, :], len(features), axis=0)


#: Ruins comparison (:func:`ruins_comparison`): the layouts compared with the other ruins cells'
#: (the colour and stroke maps of :mod:`vision.features`), and how close (in scaled colour units)
#: another ruins cell must be to count as one of its kind.
_THUMB_COLUMNS = {
    n: [CELL_FEATURE_NAMES.index(f"thumb{n}_{k}") for k in range(n * n)] for n in (9, 7)
}
_LAYOUT_COLUMNS = [
    CELL_FEATURE_NAMES.index(f"{m}_at{k}") for m in ("da", "db", "stroke") for k in range(16)
]
_DARKNESS = CONTEXT_FEATURES.index("dL_mean")
RUINS_ALIKE = 1.5
RUINS_COMPARISON_COLUMNS = (
    len(CONTEXT_FEATURES)  # colour against the least dark other ruins cell
    + 2 * len(CELL_CLASSES)  # its probabilities and the others' mean
    + 4  # distances, how many alike, darkness rank
    + sum(len(cols) for cols in _THUMB_COLUMNS.values())
    + len(_LAYOUT_COLUMNS)
    + 6  # sums of the thumbnail's excess
)


def ruins_comparison(
    features: np.ndarray, probabilities: np.ndarray, scale: np.ndarray
) -> np.ndarray:
    """(N, RUINS_COMPARISON_COLUMNS) for the drawable cells of one sheet: for each ruins cell, how
    it differs from the sheet's other ruins cells; NaN for every other cell.

    The six ruins cells print the same glyph, in a look that changes from printing to printing, and
    a bare one is the glyph alone: what a ruins cell holds beyond its least-marked fellows is the
    player's. Columns: the colour measures minus those of the least dark other ruins cell, that
    cell's and the others' mean network probabilities, the distance to it, to the nearest one and
    how many are within ``RUINS_ALIKE``, the cell's darkness rank among them; the darkness
    thumbnails (9 × 9, 7 × 7) minus the pixel-wise lightest of the others, the colour and stroke
    maps minus the least dark one's, and sums of the thumbnail's excess.

    >>> x = np.zeros((116, len(CELL_FEATURE_NAMES)))
    >>> p = np.full((116, len(CELL_CLASSES)), 1 / 6)
    >>> ruins = [i for i, cell in enumerate(SIDES["A"].drawable) if cell in SIDES["A"].ruins]
    >>> x[ruins[0], _THUMB_COLUMNS[9][40]] = 0.8  # one ruins cell darker in its middle
    >>> r = ruins_comparison(x, p, np.ones(len(CONTEXT_FEATURES)))
    >>> int(np.isnan(r[:, 0]).sum()), float(r[ruins[0], -6])  # 110 other cells; its excess
    (110, 0.8)
    """
    ruins = ruins_rows(features)
    out = np.full((len(features), RUINS_COMPARISON_COLUMNS), np.nan)
    z, f = scaled_colour(features[ruins], scale), features[ruins].astype(np.float64)
    q = probabilities[ruins]
    for a, i in enumerate(ruins):
        others = [b for b in range(len(ruins)) if b != a]
        peer = min(others, key=lambda b: z[b, _DARKNESS])
        distance = np.linalg.norm(z[others] - z[a], axis=1)
        rest = f[others]
        thumbs = [f[a, cols] - rest[:, cols].min(axis=0) for cols in _THUMB_COLUMNS.values()]
        excess = np.clip(thumbs[0], 0.0, None)
        out[i] = np.concatenate(
            [
                z[a] - z[peer],
                q[peer],
                q[others].mean(axis=0),
                [
                    np.linalg.norm(z[a] - z[peer]),
                    distance.min(),
                    np.sum(distance < RUINS_ALIKE),
                    np.sum(z[others, _DARKNESS] < z[a, _DARKNESS]),
                ],
                *thumbs,
                f[a, _LAYOUT_COLUMNS] - f[peer, _LAYOUT_COLUMNS],
                [
                    excess.sum(),
                    excess.max(),
                    np.sort(excess)[-10:].mean(),
                    np.sum(excess > 0.1),
                    thumbs[0].sum(),
                    np.abs(thumbs[0]).sum(),
                ],
            ]
        )
    return out


def ruins_rows(features: np.ndarray) -> list[int]:
    """The rows of ``features`` (the drawable cells of one sheet) that are ruins cells.

    >>> x = np.zeros((116, len(CELL_FEATURE_NAMES)))
    >>> len(ruins_rows(x)), ruins_rows(x) == sorted(ruins_rows(x))
    (6, True)
    """
    layout = SIDES[sheet_side(features)]
    return [i for i, cell in enumerate(layout.drawable) if cell in layout.ruins]


def sheet_side(features: np.ndarray) -> str:
    """The side of the sheet whose cells ``features`` describe (their ``side_b`` feature)."""
    return "B" if features[0, _SIDE_B] > 0.5 else "A"


def context_inputs(
    features: np.ndarray,
    probabilities: np.ndarray,
    scale: np.ndarray,
    nearby: bool = True,
    look: bool = True,
    trees: np.ndarray | None = None,
    ruins: bool = False,
) -> np.ndarray:
    """Everything the (first round of the) sheet-context stage reads about one whole sheet:
    :func:`sheet_context` and :func:`neighbour_summary` of the networks' probabilities,
    :func:`nearby_paper` unless ``nearby`` is False (older models), :func:`sheet_look`
    unless ``look`` is False (older models), the trees' probabilities ``trees``
    (N, 6) when given, and :func:`ruins_comparison` when ``ruins`` is True. Shapes are drawn
    whole, so a cell's neighbours say much about it.

    >>> p = np.full((116, len(CELL_CLASSES)), 1 / 6)
    >>> x = np.zeros((116, len(CELL_FEATURE_NAMES)))
    >>> one = np.ones(len(CONTEXT_FEATURES))
    >>> with_trees = context_inputs(x, p, one, trees=p)
    >>> with_trees.shape[1] - context_inputs(x, p, one).shape[1]  # the trees' six
    6
    """
    parts = [
        sheet_context(features, probabilities, scale),
        neighbour_summary(probabilities, sheet_side(features)),
    ]
    if nearby:
        parts.append(nearby_paper(features, probabilities, scale))
    if look:
        parts.append(sheet_look(features, scale))
    if trees is not None:
        parts.append(trees)
    if ruins:
        parts.append(ruins_comparison(features, probabilities, scale))
    return np.concatenate(parts, axis=1)


def ruins_stage_inputs(
    features: np.ndarray,
    probabilities: np.ndarray,
    inputs: np.ndarray,
    scale: np.ndarray,
    compared: bool = True,
) -> np.ndarray:
    """What the ruins cells' own stage reads about one whole sheet: the main stage's ``inputs``
    (:func:`context_inputs` without the comparison) and, when ``compared``,
    :func:`ruins_comparison` of the networks' ``probabilities`` (NaN outside the ruins cells).

    >>> p = np.full((116, len(CELL_CLASSES)), 1 / 6)
    >>> x, one = np.zeros((116, len(CELL_FEATURE_NAMES))), np.ones(len(CONTEXT_FEATURES))
    >>> main, whole = context_inputs(x, p, one), context_inputs(x, p, one, ruins=True)
    >>> np.array_equal(ruins_stage_inputs(x, p, main, one), whole, equal_nan=True)
    True
    """
    if not compared:
        return inputs
    return np.concatenate([inputs, ruins_comparison(features, probabilities, scale)], axis=1)


def second_round_inputs(
    first_inputs: np.ndarray, first_probabilities: np.ndarray, side: str
) -> np.ndarray:
    """What the second context round reads about one whole sheet: the first round's inputs, the
    cell's probabilities after the first round and :func:`neighbour_summary` of them.
    A second round gained no more than random starts vary, so the shipped model has one.

    >>> p = np.full((116, len(CELL_CLASSES)), 1 / 6)
    >>> second_round_inputs(np.zeros((116, 50)), p, "A").shape  # 50 + 13 + 6
    (116, 69)
    """
    return np.concatenate(
        [first_inputs, neighbour_summary(first_probabilities, side), first_probabilities], axis=1
    )


def mix_context(networks: np.ndarray, context: np.ndarray) -> np.ndarray:
    """A cell's probabilities from the networks' and the context stage's (``CONTEXT_WEIGHT``)."""
    return (1 - CONTEXT_WEIGHT) * networks + CONTEXT_WEIGHT * context


def context_scale(features: np.ndarray) -> np.ndarray:
    """Spread of each CONTEXT_FEATURES measure over training
    cells (the sheet-context distances' unit)."""
    return features[:, _CONTEXT_COLUMNS].std(axis=0).astype(np.float64) + 1e-6


def full_proba(model, x: np.ndarray) -> np.ndarray:
    """predict_proba with a column for every class in CELL_CLASSES (absent classes get 0)."""
    proba = model.predict_proba(x)
    out = np.zeros((len(x), len(CELL_CLASSES)))
    out[:, np.asarray(model.classes_).astype(int)] = proba
    return out


def mean_proba(models: list, x: np.ndarray) -> np.ndarray:
    """The mean of :func:`full_proba` over ``models``."""
    return np.mean([full_proba(m, x) for m in models], axis=0)


def library_versions() -> dict[str, str]:
    """Versions of the libraries training used (reading a model file needs numpy only)."""
    import cv2
    import sklearn

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scikit-learn": sklearn.__version__,
        "opencv": cv2.__version__,
    }


def _parts(model: ReaderModel) -> dict[str, object]:
    """The model's fitted parts by their key in the file: ``shape/0``, ``coins``, ``trees/1``, …"""
    parts: dict[str, object] = {f"shape/{k}": net for k, net in enumerate(model.shape)}
    parts["coins"] = model.coins
    if model.context is not None:
        parts["context"] = model.context
    if model.ruins_context is not None:
        parts["ruins_context"] = model.ruins_context
    parts.update({f"first_context/{k}": stage for k, stage in enumerate(model.first_context)})
    parts.update({f"trees/{k}": tree for k, tree in enumerate(model.trees)})
    return parts


def save_model(
    model: ReaderModel, model_file: Path = MODEL_FILE, meta_file: Path = META_FILE
) -> None:
    """Write the model as one compressed npz of plain arrays (:mod:`vision.inference`; fitted
    scikit-learn estimators are exported and checked first) and its metadata as JSON."""
    arrays: dict[str, np.ndarray] = {
        "format": np.array(FILE_FORMAT),
        "cell_feature_names": np.array(CELL_FEATURE_NAMES),
        "coin_feature_names": np.array(COIN_FEATURE_NAMES),
    }
    for key, part in _parts(model).items():
        arrays.update(to_arrays(export(part), f"{key}/"))
    if model.context_scale is not None:
        arrays["context_scale"] = np.asarray(model.context_scale, np.float64)
    model_file.parent.mkdir(parents=True, exist_ok=True)
    with open(model_file, "wb") as out:
        np.savez_compressed(out, **arrays)
    meta = dict(model.meta)
    meta["versions"] = library_versions()
    meta["file_format"] = FILE_FORMAT
    meta["file_bytes"] = model_file.stat().st_size
    meta_file.write_text(json.dumps(meta, indent=1) + "\n")


def load_model(model_file: Path = MODEL_FILE, meta_file: Path = META_FILE) -> ReaderModel:
    """Load a model written by :func:`save_model`. The file holds arrays only (no pickled objects),
    and must describe cells and coins by the features this reader measures."""
    if not model_file.exists():
        raise ModelMissingError(f"no reader model at {model_file}: run 'cartographers train'")
    try:
        with np.load(model_file, allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile) as e:
        raise ModelMissingError(
            f"{model_file} is not a reader model file ({e}): run 'cartographers train'"
        ) from None
    if "format" not in arrays or int(arrays["format"]) != FILE_FORMAT:
        raise ModelMissingError(
            f"{model_file} is a model from another version of the reader: run 'cartographers train'"
        )
    for key, names in (
        ("cell_feature_names", CELL_FEATURE_NAMES),
        ("coin_feature_names", COIN_FEATURE_NAMES),
    ):
        if arrays[key].tolist() != list(names):
            raise ModelMissingError(
                f"{model_file} was trained on other {key.split('_')[0]} features than this reader "
                "measures: run 'cartographers train'"
            )
    meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
    count = lambda group: len({key.split("/")[1] for key in arrays if key.startswith(f"{group}/")})
    part = lambda key: from_arrays(arrays, f"{key}/")
    config = meta.get("config", {})  # which context inputs the file's stage reads
    return ReaderModel(
        shape=[part(f"shape/{k}") for k in range(count("shape"))],
        coins=part("coins"),
        meta=meta,
        context=part("context") if "context/kind" in arrays else None,
        ruins_context=part("ruins_context") if "ruins_context/kind" in arrays else None,
        context_scale=arrays.get("context_scale"),
        first_context=[part(f"first_context/{k}") for k in range(count("first_context"))],
        trees=[part(f"trees/{k}") for k in range(count("trees"))],
        nearby_paper=bool(config.get("nearby_paper", False)),
        sheet_look=bool(config.get("sheet_look", False)),
        ruins_compared=bool(config.get("ruins_compared", False)),
    )


@lru_cache(maxsize=1)
def default_model() -> ReaderModel:
    """The shipped model, loaded once per process."""
    return load_model()
