"""Fitting a :class:`vision.inference.ConvNet` with PyTorch (a training-only dependency).

The network is small on purpose: three 3 × 3 convolutions (``width``, 2 ``width`` and 4 ``width``
channels), each followed by ReLU and 2 × 2 max pooling, then one hidden dense layer that also
sees the standardised numbers, then the classes. Each batch is shown slightly turned, sheared,
scaled and moved (a hand never writes a digit twice alike), and the learning rate follows one
cycle. The fitted weights are copied into a numpy :class:`~vision.inference.ConvNet`, and the copy
is checked against PyTorch's own output before it is returned.

Reading a photo never imports PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from vision.inference import ConvNet

#: largest difference between the numpy copy's probabilities and PyTorch's that is accepted
EXPORT_TOLERANCE = 1e-4


@dataclass(frozen=True)
class ConvNetRecipe:
    """How one network is fitted."""

    width: int = 16  # channels of the first convolution (then twice, four times as many)
    hidden: int = 128  # units of the dense layer
    epochs: int = 12
    batch: int = 256
    peak_learning_rate: float = 3e-3
    weight_decay: float = 1e-3
    dropout: float = 0.3
    turn: float = 0.15  # largest turn of a training picture, radians
    shear: float = 0.2
    zoom: float = 0.1  # largest change of size, as a share
    shift_px: float = 1.5  # largest move, picture pixels
    #: largest change of a picture's brightness, as a log factor; 0: each picture scaled to its
    #: darkest pixel (a character's ink is all that matters, not how dark it is)
    gain: float = 0.0


def require_torch():
    """PyTorch, or a ``RuntimeError`` that says how to get it."""
    try:
        import torch
    except ImportError as exc:
        raise RuntimeError(
            "training the convolutional networks needs PyTorch: pip install -e '.[train]'"
        ) from exc
    return torch


def _module(side: int, n_numbers: int, n_outputs: int, recipe: ConvNetRecipe):
    """The PyTorch network :class:`~vision.inference.ConvNet` computes."""
    torch = require_torch()
    nn, f = torch.nn, torch.nn.functional
    w = recipe.width

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.convs = nn.ModuleList(
                [nn.Conv2d(1, w, 3, padding=1), nn.Conv2d(w, 2 * w, 3, padding=1)]
                + [nn.Conv2d(2 * w, 4 * w, 3, padding=1)]
            )
            self.hidden = nn.Linear(4 * w * (side // 8) ** 2 + n_numbers, recipe.hidden)
            self.out = nn.Linear(recipe.hidden, n_outputs)
            self.drop = nn.Dropout(recipe.dropout)

        def forward(self, picture, numbers):
            h = picture
            for conv in self.convs:
                h = f.max_pool2d(f.relu(conv(h)), 2)
            h = torch.cat([h.flatten(1), numbers], 1)
            return self.out(self.drop(f.relu(self.hidden(h))))

    return Net()


def _jitter(pictures, recipe: ConvNetRecipe, generator):
    """The batch's pictures each turned, sheared, scaled and moved a little, then peak scaled to
    1 or (``recipe.gain``) made a little lighter or darker."""
    torch = require_torch()
    f = torch.nn.functional
    n, side = pictures.shape[0], pictures.shape[-1]

    def uniform(*shape):  # in [-1, 1)
        return torch.rand(*shape, generator=generator) * 2 - 1

    turn, shear = uniform(n) * recipe.turn, uniform(n) * recipe.shear
    zoom = 1 + uniform(n) * recipe.zoom
    cos, sin = torch.cos(turn), torch.sin(turn)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 1] = cos / zoom, (shear - sin) / zoom
    theta[:, 1, 0], theta[:, 1, 1] = sin / zoom, cos / zoom
    theta[:, :, 2] = uniform(n, 2) * (2 * recipe.shift_px / side)
    grid = f.affine_grid(theta, list(pictures.shape), align_corners=False)
    out = f.grid_sample(pictures, grid, align_corners=False, padding_mode="zeros")
    if recipe.gain > 0:
        return out * torch.exp(uniform(n) * recipe.gain).view(-1, 1, 1, 1)
    return out / out.flatten(1).amax(1).clamp_min(1e-6).view(-1, 1, 1, 1)


def train_convnet(
    pictures: np.ndarray,
    numbers: np.ndarray,
    labels: np.ndarray,
    seed: int,
    recipe: ConvNetRecipe = ConvNetRecipe(),
    log: Callable[[str], None] = lambda _: None,
    heads: tuple[int, ...] = (),
) -> ConvNet:
    """A :class:`~vision.inference.ConvNet` fitted on (N, side²) ``pictures``, (N, E) ``numbers``
    and (N,) integer ``labels``, from the start ``seed`` gives. With ``heads`` (the sizes of
    softmax groups), ``labels`` is (N, len(heads)): each group's class, or a negative number where
    a row has none (a digit the number does not have)."""
    torch = require_torch()
    f = torch.nn.functional
    side = int(round(np.sqrt(pictures.shape[1])))
    classes = np.arange(sum(heads)) if heads else np.unique(labels)
    ends = np.cumsum(heads).tolist()

    def loss_of(raw, target):
        if not heads:
            return f.cross_entropy(raw, target)
        parts = [
            f.cross_entropy(raw[:, e - n : e], target[:, k], ignore_index=-1, reduction="sum")
            for k, (n, e) in enumerate(zip(heads, ends))
        ]
        return sum(parts) / len(target)

    def probabilities(raw):
        if not heads:
            return f.softmax(raw, 1)
        return torch.cat([f.softmax(raw[:, e - n : e], 1) for n, e in zip(heads, ends)], 1)

    mean = numbers.mean(axis=0).astype(np.float64)
    scale = numbers.std(axis=0).astype(np.float64) + 1e-6
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    net = _module(side, numbers.shape[1], len(classes), recipe)
    x = torch.from_numpy(np.ascontiguousarray(pictures, np.float32)).view(-1, 1, side, side)
    e = torch.from_numpy(((numbers - mean) / scale).astype(np.float32))
    target = np.where(labels < 0, -1, labels) if heads else np.searchsorted(classes, labels)
    y = torch.from_numpy(np.asarray(target, np.int64))
    n, batch = len(y), recipe.batch
    optimiser = torch.optim.AdamW(net.parameters(), weight_decay=recipe.weight_decay)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, recipe.peak_learning_rate, total_steps=recipe.epochs * -(-n // batch)
    )
    for epoch in range(recipe.epochs):
        net.train()
        order = torch.randperm(n, generator=generator)
        total = 0.0
        for start in range(0, n, batch):
            rows = order[start : start + batch]
            loss = loss_of(net(_jitter(x[rows], recipe, generator), e[rows]), y[rows])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(rows)
        log(f"  epoch {epoch + 1}/{recipe.epochs}: loss {total / n:.4f}")
    net.eval()
    exported = export_convnet(net, mean, scale, classes, side, heads)
    probe = np.hstack([pictures[:256], numbers[:256]]).astype(np.float32)
    with torch.no_grad():
        theirs = probabilities(net(x[:256], e[:256])).numpy()
    gap = float(np.abs(exported.predict_proba(probe) - theirs).max(initial=0.0))
    if gap > EXPORT_TOLERANCE:
        raise ValueError(f"the numpy copy of the convolutional network differs by {gap:.2g}")
    return exported


def in_half_precision(net: ConvNet) -> ConvNet:
    """``net`` with its weights rounded to half precision, as the model file keeps them (half the
    size; :func:`vision.inference.to_arrays` stores what half precision holds exactly as such)."""

    def rounded(arrays: tuple) -> tuple:
        return tuple(a.astype(np.float16).astype(np.float32) for a in arrays)

    return replace(
        net,
        kernels=rounded(net.kernels),
        kernel_biases=rounded(net.kernel_biases),
        weights=rounded(net.weights),
        biases=rounded(net.biases),
    )


def export_convnet(net, mean, scale, classes, side: int, heads: tuple[int, ...] = ()) -> ConvNet:
    """The numpy :class:`~vision.inference.ConvNet` of a fitted PyTorch network of
    :func:`_module`'s shape."""

    def array(t):
        return t.detach().numpy().astype(np.float32)

    return ConvNet(
        side=side,
        kernels=tuple(array(c.weight) for c in net.convs),
        kernel_biases=tuple(array(c.bias) for c in net.convs),
        mean=np.asarray(mean, np.float64),
        scale=np.asarray(scale, np.float64),
        weights=(array(net.hidden.weight).T.copy(), array(net.out.weight).T.copy()),
        biases=(array(net.hidden.bias), array(net.out.bias)),
        classes=np.asarray(classes),
        heads=tuple(heads),
    )
