"""Figure 7 of Du, Eppstein, Goodrich, Lueker (WADS 2009): overfull ratios of Fold and
Spread on the 1990 Census name lists.

For FEMALE-1990, MALE-1990 and LAST-1990 (``../shared/datasets/names1990``) and every k from
the largest item to ⌊Σ/2⌋, the overfull ratio (largest class / k) of four curves: Random
Fold, Random Spread (5 random orders, seeds 0-4: their mean and their maximum), Sorted Fold
and Sorted Spread (ascending and descending, as the paper does not say which). Conventions
(spec, section E.5): item sizes are integers in units of 0.001 % (round(frequency_percent ×
1000); 0 dropped); a k where an algorithm makes a single class is left out of its curve;
the plot shows the maximum ratio over each of 100 equal-width subranges of k, as the
paper's caption says. Writes ``experiments/results/fig7.png`` and ``fig7.md`` (per-decile
maxima and means) and prints the table.

    python experiments/fig7_bin_covering.py [--shared ../shared/datasets] [--seeds 5]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from incrowd.algorithms.single_attribute.bincover import sweep

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
RESULTS = Path(__file__).resolve().parent / "results"
LISTS = {
    "FEMALE-1990": "dist_female_first.csv",
    "MALE-1990": "dist_male_first.csv",
    "LAST-1990": "dist_all_last.csv",
}
SUBRANGES = 100


def sizes(path: Path) -> np.ndarray:
    """Item sizes in units of 0.001 %, names listed as 0.000 left out."""
    table = pd.read_csv(path, keep_default_na=False)
    x = (table["frequency_percent"].astype(float) * 1000).round().astype(np.int64).to_numpy()
    return x[x > 0]


def curves(x: np.ndarray, seeds: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per k: the overfull ratio of each curve (NaN where it makes one class)."""
    ks = np.arange(int(x.max()), int(x.sum()) // 2 + 1)
    out: dict[str, np.ndarray] = {}

    def ratio(algorithm: str, order: str, seed: int | None = None) -> np.ndarray:
        largest, classes = sweep(x, ks, algorithm, order=order, seed=seed)  # type: ignore[arg-type]
        return np.where(classes >= 2, largest / ks, np.nan)

    for algorithm in ("fold", "spread"):
        name = algorithm.capitalize()
        runs = np.stack([ratio(algorithm, "random", s) for s in range(seeds)])
        out[f"Random {name} (mean of {seeds})"] = np.nanmean(runs, axis=0)
        out[f"Random {name} (max of {seeds})"] = np.nanmax(runs, axis=0)
        out[f"Sorted {name} (ascending)"] = ratio(algorithm, "ascending")
        out[f"Sorted {name} (descending)"] = ratio(algorithm, "descending")
    return ks, out


def binned(ks: np.ndarray, values: np.ndarray, parts: int, how: str) -> np.ndarray:
    edges = np.linspace(ks[0], ks[-1] + 1, parts + 1)
    where = np.clip(np.searchsorted(edges, ks, side="right") - 1, 0, parts - 1)
    out = np.full(parts, np.nan)
    for b in range(parts):
        chosen = values[where == b]
        chosen = chosen[np.isfinite(chosen)]
        if chosen.size:
            out[b] = chosen.max() if how == "max" else chosen.mean()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    results = {}
    for title, file in LISTS.items():
        x = sizes(args.shared / "names1990" / file)
        results[title] = (x, *curves(x, args.seeds))
    seconds = time.perf_counter() - start
    lines = [
        "# Fig. 7: overfull ratio (largest class / k)",
        "",
        f"All k from the largest item to ⌊Σ/2⌋; {args.seeds} random orders; computed in "
        f"{seconds:.1f} s (`python experiments/fig7_bin_covering.py`).",
    ]
    for title, (x, ks, found) in results.items():
        lines += ["", f"## {title}: {x.size} names, Σ = {x.sum()}, k = {ks[0]}…{ks[-1]} "
                  f"({ks.size} values)", ""]  # fmt: skip
        header = ["curve", "mean", "max"] + [f"decile {d} max" for d in range(1, 11)]
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for name, values in found.items():
            deciles = binned(ks, values, 10, "max")
            cells = [name, f"{np.nanmean(values):.3f}", f"{np.nanmax(values):.3f}"]
            cells += [f"{v:.3f}" for v in deciles]
            lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "fig7.md").write_text(text)
    if not args.no_plot:
        plot(results, RESULTS / "fig7.png")


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8), sharey=True)
    styles = {"Random Fold": ("tab:blue", "-"), "Random Spread": ("tab:orange", "-"),
              "Sorted Fold": ("tab:green", "--"), "Sorted Spread": ("tab:red", "--")}  # fmt: skip
    for ax, (title, (_x, ks, found)) in zip(axes, results.items(), strict=True):
        centers = np.linspace(ks[0], ks[-1] + 1, SUBRANGES + 1)
        centers = (centers[:-1] + centers[1:]) / 2
        for name, values in found.items():
            if "mean of" in name or "descending" in name:
                continue  # the plot shows the worst random order and ascending sort
            key = " ".join(name.split()[:2])
            color, line = styles[key]
            ax.plot(centers, binned(ks, values, SUBRANGES, "max"), color=color, linestyle=line,
                    label=key)  # fmt: skip
        ax.set_title(title)
        ax.set_xlabel("k (units of 0.001 %)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("overfull ratio (max per subrange)")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
