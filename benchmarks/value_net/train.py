"""Train the value of the kept hand (issue #35, step 3) on positions from ``generate.py``, and
compare it on held-out hands with the strong bot's appraisal and with linear fits.

The hands (not the positions: a hand's positions share its label) are split at random into
training (80%), validation (10%, for early stopping) and held-out test (10%). Reported on the
test positions, all hands and by matchup (self-play; strong v greedy), as R² (1 - residual
variance / variance of the hand's points):

- the strong bot's appraisal alone (expected deadwood after one more draw), in a linear fit;
- a linear value of LADDER.md's kind: deadwood, appraisal, the chances of a knock and of gin
  after the next draw and the discard's danger, each also times the stock left;
- a linear fit (ridge) on every input of the network;
- the network: a small MLP (``--hidden``, ReLU), mean squared error, Adam, numpy.

The network is written as JSON (``--weights``; the inputs' standardisation folded into the first
layer), so that a bot can evaluate it in pure Python::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/value_net/train.py /tmp/vn.npz \\
        --weights /tmp/value_net.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, Path(__file__).resolve().parent):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from value_net import SIZE  # noqa: E402

Array = Any

# Column indices of the scalar inputs (bots.value_net.SCALARS).
STOCK, DEADWOOD, APPRAISAL, DANGER, KNOCK, GIN = range(312, 318)


def suit_permutations() -> Array:
    """For each of the 24 orders of the suits, the column order that applies it to every card
    block of an input (cards are ``suit * 13 + rank``): the value of a position does not depend
    on which suit is which (hoyle rules), so each training batch is shown with its suits
    permuted at random."""
    out = []
    for order in itertools.permutations(range(4)):
        cols = np.arange(SIZE)
        for block in range(6):
            for card in range(52):
                suit, rank = divmod(card, 13)
                cols[52 * block + order[suit] * 13 + rank] = 52 * block + card
        out.append(cols)
    return np.array(out)


def r2(y: Array, pred: Array) -> float:
    return float(1.0 - np.mean((y - pred) ** 2) / np.var(y))


def linear_fit(x: Array, y: Array, ridge: float = 1e-3) -> Array:
    """Least squares with an intercept (the last weight) and a small ridge."""
    a = np.hstack([x, np.ones((len(x), 1))])
    reg = ridge * len(x) * np.eye(a.shape[1])
    reg[-1, -1] = 0.0
    return np.linalg.solve(a.T @ a + reg, a.T @ y)


def linear_predict(w: Array, x: Array) -> Array:
    return x @ w[:-1] + w[-1]


def ladder_features(x: Array) -> Array:
    """LADDER.md's linear value: its five terms, each also scaled by the stock left."""
    terms = x[:, [DEADWOOD, APPRAISAL, KNOCK, GIN, DANGER]]
    return np.hstack([terms, terms * x[:, [STOCK]]])


class MLP:
    def __init__(self, sizes: list[int], rng: np.random.Generator) -> None:
        self.w = [
            rng.normal(0, np.sqrt(2.0 / a), (a, b)).astype(np.float32)
            for a, b in itertools.pairwise(sizes)
        ]
        self.w[-1][:] = 0.0  # start at the mean label: no variance from the initial weights
        self.b = [np.zeros(b, np.float32) for b in sizes[1:]]
        self.m = [np.zeros_like(p) for p in self.w + self.b]
        self.v = [np.zeros_like(p) for p in self.w + self.b]
        self.t = 0

    def forward(self, x: Array) -> tuple[Array, list[Array]]:
        acts = [x]
        h = x
        for i, (w, b) in enumerate(zip(self.w, self.b, strict=True)):
            h = h @ w + b
            if i < len(self.w) - 1:
                h = np.maximum(h, 0.0)
            acts.append(h)
        return h[:, 0], acts

    def step(self, x: Array, y: Array, lr: float, decay: float) -> float:
        pred, acts = self.forward(x)
        err = pred - y
        grad = (2.0 / len(y)) * err[:, None]
        gw: list[Array] = []
        gb: list[Array] = []
        for i in range(len(self.w) - 1, -1, -1):
            gw.append(acts[i].T @ grad + decay * self.w[i])
            gb.append(grad.sum(0))
            if i:
                grad = (grad @ self.w[i].T) * (acts[i] > 0)
        gw.reverse()
        gb.reverse()
        self.t += 1
        b1, b2 = 0.9, 0.999
        for j, (p, g) in enumerate(zip(self.w + self.b, gw + gb, strict=True)):
            self.m[j] = b1 * self.m[j] + (1 - b1) * g
            self.v[j] = b2 * self.v[j] + (1 - b2) * g * g
            mhat = self.m[j] / (1 - b1**self.t)
            vhat = self.v[j] / (1 - b2**self.t)
            p -= lr * mhat / (np.sqrt(vhat) + 1e-8)
        return float(np.mean(err**2))

    def predict(self, x: Array, batch: int = 65536) -> Array:
        return np.concatenate([self.forward(x[i : i + batch])[0] for i in range(0, len(x), batch)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help=".npz files from generate.py")
    parser.add_argument("--hidden", default="64,64", help="hidden layer sizes")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--decay", type=float, default=1e-4, help="L2 weight decay")
    parser.add_argument("--patience", type=int, default=5, help="epochs without improvement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cards-only",
        action="store_true",
        help="the network without the strong bot's terms (deadwood, appraisal, danger, knock and "
        "gin chances): cards, odds and stock only",
    )
    parser.add_argument(
        "--fraction",
        type=float,
        default=1.0,
        help="train on this share of the training hands (a learning curve; the same test set)",
    )
    parser.add_argument(
        "--no-augment", action="store_true", help="do not permute the suits of training batches"
    )
    parser.add_argument("--weights", type=Path, help="write the network here (JSON)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)

    xs, ys, hands, matchups = [], [], [], []
    offset = 0
    for path in args.data:
        d = np.load(path)
        xs.append(d["x"].astype(np.float32))
        ys.append(d["y"].astype(np.float32))
        hands.append(d["hand"].astype(np.int64) + offset)
        matchups.append(d["matchup"])
        offset += int(d["hands"]) + 1
    x, y = np.concatenate(xs), np.concatenate(ys)
    hand, matchup = np.concatenate(hands), np.concatenate(matchups)
    assert x.shape[1] == SIZE, (x.shape, SIZE)
    rng = np.random.default_rng(args.seed)
    ids = np.unique(hand)
    part = rng.random(ids.max() + 1)
    train = part[hand] < 0.8 * args.fraction
    valid = (part[hand] >= 0.8) & (part[hand] < 0.9)
    test = part[hand] >= 0.9
    print(
        f"{len(y)} positions from {len(ids)} hands: {train.sum()} training, {valid.sum()} "
        f"validation, {test.sum()} test; label mean {y.mean():.2f}, sd {y.std():.2f}"
    )
    figures: dict[str, Any] = {
        "positions": len(y),
        "hands": len(ids),
        "test_positions": int(test.sum()),
    }
    groups = {"all": test, "self-play": test & (matchup == 0), "v greedy": test & (matchup == 1)}

    def report(name: str, pred_all: Array) -> None:
        row = {g: r2(y[mask], pred_all[mask]) for g, mask in groups.items()}
        figures[name] = row
        print(f"{name:40s} " + "  ".join(f"{g} {v:.3f}" for g, v in row.items()), flush=True)

    fit_rows = train | valid  # the linear fits need no early stopping
    w = linear_fit(x[fit_rows][:, [APPRAISAL]], y[fit_rows])
    report("appraisal (expected deadwood), linear", linear_predict(w, x[:, [APPRAISAL]]))
    lf = ladder_features(x)
    w = linear_fit(lf[fit_rows], y[fit_rows])
    report("LADDER's linear value (10 terms)", linear_predict(w, lf))
    mean, sd = x[train].mean(0), x[train].std(0)
    # The same for the four suits of a rank (so that permuting suits commutes with it).
    for stats in (mean, sd):
        cards = stats[:312].reshape(6, 4, 13)
        cards[:] = cards.mean(axis=1, keepdims=True)
    sd = np.maximum(sd, 0.1)
    z = (x - mean) / sd
    w = linear_fit(z[fit_rows], y[fit_rows], ridge=1e-2)
    report("linear on every input", linear_predict(w, z))

    if args.cards_only:
        z[:, DEADWOOD:] = 0.0
    sizes = [SIZE] + [int(h) for h in args.hidden.split(",") if h] + [1]
    net = MLP(sizes, rng)
    scale = float(y[train].std())
    zt, yt = z[train], y[train] / scale
    best, best_state, stale = -np.inf, None, 0
    started = time.process_time()
    perms = suit_permutations()
    for epoch in range(args.epochs):
        order = rng.permutation(len(yt))
        losses = []
        for i in range(0, len(order), args.batch):
            rows = order[i : i + args.batch]
            batch = zt[rows]
            if not args.no_augment:
                batch = batch[:, perms[rng.integers(len(perms))]]
            losses.append(net.step(batch, yt[rows], args.lr, args.decay))
        score = r2(y[valid], net.predict(z[valid]) * scale)
        print(
            f"epoch {epoch + 1}: train mse {np.mean(losses):.4f}, validation R² {score:.4f}",
            flush=True,
        )
        if score > best:
            best, stale = score, 0
            best_state = ([p.copy() for p in net.w], [p.copy() for p in net.b])
        else:
            stale += 1
            if stale >= args.patience:
                break
    train_seconds = time.process_time() - started
    assert best_state is not None
    net.w, net.b = best_state
    figures["train_cpu_seconds"] = train_seconds
    figures["epochs"] = epoch + 1
    figures["hidden"] = sizes[1:-1]
    report(f"MLP {args.hidden}", net.predict(z) * scale)
    print(f"training: {train_seconds:.0f} s of CPU, {epoch + 1} epochs")

    if args.weights:
        # Fold the standardisation and the label's scale in: f(x) on the raw inputs.
        w0 = net.w[0] / sd[:, None]
        b0 = net.b[0] - mean @ w0
        layers = [(w0, b0), *zip(net.w[1:], net.b[1:], strict=True)]
        layers[-1] = (layers[-1][0] * scale, layers[-1][1] * scale)
        out = {
            "inputs": SIZE,
            "layers": [
                {"w": np.round(w, 6).tolist(), "b": np.round(b, 6).tolist()} for w, b in layers
            ],
            "test_r2": figures[f"MLP {args.hidden}"],
        }
        args.weights.write_text(json.dumps(out, separators=(",", ":")))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
