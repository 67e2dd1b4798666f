"""The reader's fitted models as plain arrays, predicted with numpy alone.

Training fits scikit-learn estimators; reading a photo needs only their arithmetic. Each fitted
estimator is exported once (:func:`export`) to a small frozen dataclass holding arrays —
:class:`Network` for a ``StandardScaler`` + ``MLPClassifier`` pipeline, :class:`BoostedTrees` for a
``HistGradientBoostingClassifier`` — whose ``predict_proba`` gives the estimator's probabilities.
The export checks that on probe rows before it returns, so a scikit-learn release that stores its
trees differently fails at training time, never in a player's reading.

Why: importing scikit-learn costs about 2 s of every command that reads a photo on a 2-core
machine, and a file of arrays (``numpy.savez``, read with ``allow_pickle=False``) can hold nothing
but numbers and text: loading it never runs code, and it does not depend on the library that
fitted it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

#: Largest difference between an export's probabilities and the estimator's that :func:`export`
#: accepts (the networks' weights are kept in half precision by training; the export computes as
#: scikit-learn does).
EXPORT_TOLERANCE = 1e-5


def softmax(raw: np.ndarray) -> np.ndarray:
    """Row-wise softmax.

    >>> softmax(np.array([[0.0, 0.0], [0.0, np.log(3.0)]])).round(3).tolist()
    [[0.5, 0.5], [0.25, 0.75]]
    """
    z = np.exp(raw - raw.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def _binary_proba(raw: np.ndarray) -> np.ndarray:
    """(N, 2) probabilities of classes 0 and 1 from the logit of class 1."""
    p = 1.0 / (1.0 + np.exp(-raw))
    return np.column_stack([1.0 - p, p])


def _dense(h: np.ndarray, weights: tuple, biases: tuple) -> np.ndarray:
    """The raw outputs of dense layers applied to ``h``, each but the last followed by ReLU."""
    for k, (w, b) in enumerate(zip(weights, biases)):
        h = h @ w + b
        if k < len(weights) - 1:
            np.maximum(h, 0, out=h)
    return h


@dataclass(frozen=True)
class Network:
    """A standardised multi-layer perceptron with ReLU hidden layers and a softmax output.

    >>> net = Network(mean=np.zeros(2), scale=np.ones(2), weights=(np.eye(2),),
    ...               biases=(np.zeros(2),), classes=np.array([0, 1]))
    >>> net.predict_proba(np.array([[0.0, np.log(3.0)]])).round(3).tolist()
    [[0.25, 0.75]]
    """

    mean: np.ndarray  # (F,) the scaler's mean
    scale: np.ndarray  # (F,) the scaler's scale
    weights: tuple[np.ndarray, ...]  # one (in, out) matrix per layer
    biases: tuple[np.ndarray, ...]  # one (out,) vector per layer
    classes: np.ndarray  # the label of each output column

    @property
    def n_features_in_(self) -> int:
        return len(self.mean)

    @property
    def classes_(self) -> np.ndarray:  # scikit-learn's name, so code reads either kind alike
        return self.classes

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """(N, len(classes)) class probabilities of the rows of ``x``."""
        h = np.array(
            x, dtype=np.float32
        )  # in single precision throughout, as the networks were fitted
        h -= self.mean.astype(np.float32)
        h /= self.scale.astype(np.float32)
        h = _dense(h, self.weights, self.biases)
        if len(self.classes) == 2 and h.shape[1] == 1:
            return _binary_proba(h[:, 0])
        return softmax(h)


@dataclass(frozen=True)
class BoostedTrees:
    """Gradient-boosted regression trees over raw features: each class's score is ``baseline`` plus
    one tree's leaf value per iteration; probabilities are the softmax of the scores (the logistic
    of the one score for two classes). All trees' nodes lie end to end in the node arrays;
    ``left``/``right`` index nodes within their own tree, whose first node is ``starts[t]``.
    A missing feature value (NaN) goes to the side the tree learnt for it.

    One tree per iteration and class, iteration-major, as a two-class stump shows:

    >>> stump = BoostedTrees(baseline=np.array([0.0]), classes=np.array([0, 1]), n_iter_=1,
    ...     feature=np.array([0, 0, 0]), threshold=np.array([0.5, 0, 0]),
    ...     missing_left=np.array([1, 0, 0]),
    ...     left=np.array([1, 0, 0]), right=np.array([2, 0, 0]), is_leaf=np.array([0, 1, 1]),
    ...     value=np.array([0.0, -2.0, 2.0]), starts=np.array([0]), n_features_in_=1)
    >>> stump.predict_proba(np.array([[0.0], [1.0], [np.nan]]))[:, 1].round(3).tolist()
    [0.119, 0.881, 0.119]
    """

    baseline: np.ndarray  # (K,) the score before any tree (K = 1 for two classes)
    classes: np.ndarray
    n_iter_: int
    feature: np.ndarray  # per node: the feature it splits on
    threshold: np.ndarray  # per node: go left when the feature is <= this
    missing_left: np.ndarray  # per node: where NaN goes
    left: np.ndarray
    right: np.ndarray
    is_leaf: np.ndarray
    value: np.ndarray  # per leaf: its contribution to the score
    starts: np.ndarray  # (T,) first node of each tree
    n_features_in_: int

    @property
    def classes_(self) -> np.ndarray:
        return self.classes

    @cached_property
    def _walk(self) -> tuple[np.ndarray, ...]:
        """The node arrays as :meth:`leaves` walks them: split feature, threshold, NaN goes left,
        both children as global node indices, is a leaf."""
        sizes = np.diff(np.r_[self.starts, len(self.feature)])
        first = np.repeat(np.asarray(self.starts, np.intp), sizes)  # each node's tree's first node
        return (
            np.asarray(self.feature, np.intp),
            np.asarray(self.threshold, np.float64),
            np.asarray(self.missing_left, bool),
            first + np.asarray(self.left, np.intp),
            first + np.asarray(self.right, np.intp),
            np.asarray(self.is_leaf, bool),
        )

    def leaves(self, x: np.ndarray) -> np.ndarray:
        """(N, T) the leaf each row reaches in each tree (global node indices). All rows walk all
        trees together, one level per step, and only the walks not yet at a leaf are moved."""
        feature, threshold, missing_left, left, right, is_leaf = self._walk
        x = np.asarray(x, np.float64)
        n, n_trees = len(x), len(self.starts)
        flat = x.ravel()
        row_start = np.repeat(np.arange(n, dtype=np.intp) * x.shape[1], n_trees)
        node = np.tile(np.asarray(self.starts, np.intp), n)
        active = np.flatnonzero(~is_leaf[node])
        while len(active):
            at = node[active]
            v = flat[row_start[active] + feature[at]]
            go_left = (v <= threshold[at]) | (missing_left[at] & np.isnan(v))
            step = np.where(go_left, left[at], right[at])
            node[active] = step
            active = active[~is_leaf[step]]
        return node.reshape(n, n_trees)

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        """(N, K) raw scores: the baseline plus the leaves' values, summed over iterations."""
        values = self.value[self.leaves(x)]  # (N, T), T = iterations × K
        k = len(self.baseline)
        return self.baseline + values.reshape(len(values), self.n_iter_, k).sum(axis=1)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """(N, len(classes)) class probabilities of the rows of ``x``."""
        raw = self.decision_function(x)
        return _binary_proba(raw[:, 0]) if len(self.baseline) == 1 else softmax(raw)


def _conv3x3(h: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(N, H, W, O) = the zero-padded 3 × 3 convolution of (N, H, W, C) ``h`` with (O, C, 3, 3)
    ``kernel`` (cross-correlation, as PyTorch's ``Conv2d`` computes it), plus ``bias``: each
    pixel's 3 × 3 neighbourhood as one row, times the kernel as one matrix."""
    n, height, width, c = h.shape
    padded = np.zeros((n, height + 2, width + 2, c), np.float32)
    padded[:, 1:-1, 1:-1] = h
    # a view (n, height, width, 3, 3, c) of every pixel's neighbourhood, copied once into rows
    rows = padded.strides
    windows = np.lib.stride_tricks.as_strided(
        padded, (n, height, width, 3, 3, c), rows[:3] + rows[1:], writeable=False
    )
    columns = windows.reshape(n * height * width, 9 * c)
    matrix = np.ascontiguousarray(kernel.transpose(2, 3, 1, 0).reshape(9 * c, len(kernel)))
    out = columns @ matrix  # rows (dy, dx, c) of the matrix match the columns' order
    out += bias  # in place: a second array this size costs more than the sum
    return out.reshape(n, height, width, len(kernel))


@dataclass(frozen=True)
class ConvNet:
    """A small convolutional network over a square picture and a few numbers about it.

    A row of ``x`` is the picture (``side`` × ``side``, row by row) followed by the numbers. The
    picture goes through 3 × 3 zero-padded convolutions, each followed by ReLU and 2 × 2 max
    pooling; the last maps, flattened channel by channel, are joined by the standardised numbers
    and go through ReLU dense layers to a softmax. Trained with PyTorch, run with numpy alone.

    One 1-channel convolution that copies its input, on a 2 × 2 picture and no numbers:

    >>> copy = np.zeros((1, 1, 3, 3), np.float32); copy[0, 0, 1, 1] = 1.0
    >>> net = ConvNet(side=2, kernels=(copy,), kernel_biases=(np.zeros(1, np.float32),),
    ...               mean=np.zeros(0), scale=np.ones(0), weights=(np.array([[-1.0, 1.0]]),),
    ...               biases=(np.zeros(2, np.float32),), classes=np.array([0, 1]))
    >>> net.predict_proba(np.array([[0.0, np.log(3.0) / 2, 0.0, 0.0]])).round(3).tolist()
    [[0.25, 0.75]]
    """

    side: int  # the picture's side, px
    kernels: tuple[np.ndarray, ...]  # one (out, in, 3, 3) kernel per convolution
    kernel_biases: tuple[np.ndarray, ...]  # one (out,) vector per convolution
    mean: np.ndarray  # (E,) the numbers' mean
    scale: np.ndarray  # (E,) the numbers' scale
    weights: tuple[np.ndarray, ...]  # one (in, out) matrix per dense layer
    biases: tuple[np.ndarray, ...]
    classes: np.ndarray
    #: the outputs' groups, each with a softmax of its own (a number's layout, then each digit);
    #: empty: one softmax over every output
    heads: tuple[int, ...] = ()

    @property
    def n_features_in_(self) -> int:
        return self.side * self.side + len(self.mean)

    @property
    def classes_(self) -> np.ndarray:
        return self.classes

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """(N, len(classes)) class probabilities of the rows of ``x``."""
        x = np.asarray(x, np.float32)
        n, area = len(x), self.side * self.side
        h = x[:, :area].reshape(n, self.side, self.side, 1)  # channels last while convolving
        for kernel, bias in zip(self.kernels, self.kernel_biases):
            h = _conv3x3(h, kernel, bias)
            h = np.maximum(  # 2 × 2 max pooling, as the larger of four strided views
                np.maximum(h[:, 0:-1:2, 0:-1:2], h[:, 0:-1:2, 1::2]),
                np.maximum(h[:, 1::2, 0:-1:2], h[:, 1::2, 1::2]),
            )
            np.maximum(h, 0, out=h)  # ReLU after pooling: the same, on a quarter of the values
        maps = h.transpose(0, 3, 1, 2).reshape(n, -1)  # flattened channel by channel
        numbers = (x[:, area:] - self.mean.astype(np.float32)) / self.scale.astype(np.float32)
        raw = _dense(np.concatenate([maps, numbers], axis=1), self.weights, self.biases)
        if not self.heads:
            return softmax(raw)
        ends = np.cumsum(self.heads)
        return np.hstack([softmax(raw[:, e - n : e]) for n, e in zip(self.heads, ends)])


def _network_from_sklearn(pipeline) -> Network:
    """A :class:`Network` from a fitted ``make_pipeline(StandardScaler(), MLPClassifier(...))``."""
    scaler, mlp = pipeline[0], pipeline[-1]
    if mlp.activation != "relu" or mlp.out_activation_ not in ("softmax", "logistic"):
        raise ValueError(
            f"cannot export an MLP with {mlp.activation} / {mlp.out_activation_} activations"
        )
    return Network(
        mean=np.asarray(scaler.mean_, np.float64),
        scale=np.asarray(scaler.scale_, np.float64),
        weights=tuple(np.asarray(w, np.float32) for w in mlp.coefs_),
        biases=tuple(np.asarray(b, np.float32) for b in mlp.intercepts_),
        classes=np.asarray(mlp.classes_),
    )


def _trees_from_sklearn(boosting) -> BoostedTrees:
    """A :class:`BoostedTrees` from a fitted ``HistGradientBoostingClassifier`` (numerical splits
    only).

    scikit-learn has no public view of these trees, so this reads its predictors' node records;
    :func:`export` then checks the result against ``predict_proba``."""
    trees = [predictor.nodes for iteration in boosting._predictors for predictor in iteration]
    nodes = np.concatenate(trees)
    if nodes["is_categorical"].any():
        raise ValueError("cannot export trees with categorical splits")
    starts = np.cumsum([0] + [len(t) for t in trees[:-1]]).astype(np.int64)
    k = len(boosting._predictors[0])
    unbiased = BoostedTrees(
        baseline=np.zeros(k),
        classes=np.asarray(boosting.classes_),
        n_iter_=int(boosting.n_iter_),
        feature=nodes["feature_idx"].astype(np.int32),
        threshold=nodes["num_threshold"].astype(np.float64),
        missing_left=nodes["missing_go_to_left"].astype(np.uint8),
        left=nodes["left"].astype(np.int32),
        right=nodes["right"].astype(np.int32),
        is_leaf=nodes["is_leaf"].astype(np.uint8),
        value=np.where(nodes["is_leaf"].astype(bool), nodes["value"], 0.0).astype(np.float64),
        starts=starts,
        n_features_in_=int(boosting.n_features_in_),
    )
    # The baseline from the public decision function: it is the same for every row.
    probe = np.zeros((1, boosting.n_features_in_))
    baseline = (
        np.atleast_2d(boosting.decision_function(probe)).reshape(1, -1)[0]
        - unbiased.decision_function(probe)[0]
    )
    return replace(unbiased, baseline=baseline)


def export(estimator, probe: np.ndarray | None = None) -> Network | BoostedTrees:
    """The numpy form of a fitted scikit-learn estimator, checked on ``probe`` rows (or on random
    rows where none are given): its probabilities must match the estimator's within
    EXPORT_TOLERANCE. An estimator already exported is returned as it is.

    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> X = np.random.default_rng(0).normal(size=(300, 4))
    >>> y = (X[:, 0] > X[:, 1]).astype(int) + (X[:, 2] > 1)
    >>> fitted = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    >>> trees = export(fitted, X)
    >>> float(abs(trees.predict_proba(X) - fitted.predict_proba(X)).max()) < 1e-12
    True
    """
    if isinstance(estimator, (Network, BoostedTrees)):
        return estimator
    exported = (
        _trees_from_sklearn(estimator)
        if hasattr(estimator, "_predictors")
        else _network_from_sklearn(estimator)
    )
    if probe is None:
        # single precision, as the reader's features are (networks then compute as they were fitted)
        probe = (np.random.default_rng(0).normal(size=(64, exported.n_features_in_)) * 3).astype(
            np.float32
        )
    probe = np.asarray(probe)
    gap = float(
        np.abs(exported.predict_proba(probe) - estimator.predict_proba(probe)).max(initial=0.0)
    )
    if gap > EXPORT_TOLERANCE:
        raise ValueError(
            f"exported {type(estimator).__name__} differs from it by {gap:.2g}: "
            "this scikit-learn release stores its models differently; update vision/inference.py"
        )
    return exported


# Saving: every array of a model under a path-like key
# ("shape/0/weights/1"), so the file is one flat npz.


def to_arrays(model: Network | ConvNet | BoostedTrees, prefix: str) -> dict[str, np.ndarray]:
    """The arrays of one exported model under keys starting ``prefix``.

    >>> net = Network(np.zeros(2), np.ones(2), (np.eye(2, dtype=np.float32),),
    ...               (np.zeros(2, np.float32),), np.array([0, 1]))
    >>> sorted(to_arrays(net, "n/"))
    ['n/biases/0', 'n/classes', 'n/kind', 'n/mean', 'n/scale', 'n/weights/0']
    >>> back = from_arrays(to_arrays(net, "n/"), "n/")
    >>> bool(np.array_equal(back.predict_proba(np.eye(2)), net.predict_proba(np.eye(2))))
    True
    """
    if isinstance(model, (Network, ConvNet)):
        out = {
            f"{prefix}kind": np.array("convnet" if isinstance(model, ConvNet) else "network"),
            f"{prefix}mean": model.mean,
            f"{prefix}scale": model.scale,
            f"{prefix}classes": model.classes,
        }
        layers = ["weights", "biases"]
        if isinstance(model, ConvNet):
            out[f"{prefix}side"] = np.array(model.side)
            if model.heads:
                out[f"{prefix}heads"] = np.array(model.heads)
            layers += ["kernels", "kernel_biases"]
        # Training keeps the MLPs' weights in half
        # precision; the file keeps them so (half the size).
        for name in layers:
            out.update(
                {f"{prefix}{name}/{k}": _compact(a) for k, a in enumerate(getattr(model, name))}
            )
        return out
    fields = {
        name: getattr(model, name)
        for name in (
            "baseline",
            "classes",
            "feature",
            "threshold",
            "missing_left",
            "left",
            "right",
            "is_leaf",
            "value",
            "starts",
        )
    }
    # Node indices fit 16 bits (trees of a few dozen nodes,
    # features in the hundreds): a third of the size.
    for name in ("feature", "left", "right"):
        fields[name] = fields[name].astype(np.uint16)
    return {
        f"{prefix}kind": np.array("trees"),
        f"{prefix}n_iter": np.array(model.n_iter_),
        f"{prefix}n_features": np.array(model.n_features_in_),
        **{f"{prefix}{name}": value for name, value in fields.items()},
    }


def _compact(values: np.ndarray) -> np.ndarray:
    """``values`` in half precision when that loses nothing, else as they are."""
    half = values.astype(np.float16)
    return half if np.array_equal(half, values) else values


def from_arrays(arrays, prefix: str) -> Network | ConvNet | BoostedTrees:
    """The model :func:`to_arrays` stored under ``prefix``."""
    kind = str(arrays[f"{prefix}kind"])
    if kind in ("network", "convnet"):

        def layers(name: str) -> tuple[np.ndarray, ...]:
            count = sum(1 for key in arrays if key.startswith(f"{prefix}{name}/"))
            return tuple(arrays[f"{prefix}{name}/{k}"].astype(np.float32) for k in range(count))

        common = dict(
            mean=arrays[f"{prefix}mean"],
            scale=arrays[f"{prefix}scale"],
            classes=arrays[f"{prefix}classes"],
            weights=layers("weights"),
            biases=layers("biases"),
        )
        if kind == "network":
            return Network(**common)
        return ConvNet(
            side=int(arrays[f"{prefix}side"]),
            kernels=layers("kernels"),
            kernel_biases=layers("kernel_biases"),
            heads=tuple(int(n) for n in arrays.get(f"{prefix}heads", ())),
            **common,
        )
    if kind == "trees":
        get = lambda name, dtype=None: (
            arrays[f"{prefix}{name}"] if dtype is None else arrays[f"{prefix}{name}"].astype(dtype)
        )
        return BoostedTrees(
            baseline=get("baseline"),
            classes=get("classes"),
            n_iter_=int(get("n_iter")),
            feature=get("feature", np.int32),
            threshold=get("threshold"),
            missing_left=get("missing_left"),
            left=get("left", np.int32),
            right=get("right", np.int32),
            is_leaf=get("is_leaf"),
            value=get("value"),
            starts=get("starts"),
            n_features_in_=int(get("n_features")),
        )
    raise ValueError(f"unknown model kind {kind!r} under {prefix!r}")
