"""Zip codes as connected regions of at least 20,000 people, against HIPAA's 3-digit rule.

HIPAA Safe Harbor publishes the first three digits of a zip code where that 3-digit area
holds more than 20,000 people, and ``000`` elsewhere. Here every zip of
``../shared/datasets/us_zip_population.csv`` (33,774 zips, ACS 2022 residents) is weighted
by its residents and grouped into connected regions of the Delaunay graph of the zip points
(Du et al., Thm 3) with k = 20,000. Printed side by side: the number of classes, the largest
and median class, and the people whose area is suppressed; the region method's proven
bound, lower bound and certified ratio. Writes ``experiments/results/zip_regions.md`` and a
map, ``zip_regions.png`` (zip points coloured by region, and by 3-digit area).

    python experiments/zip_regions_vs_hipaa.py [--shared ../shared/datasets] [--k 20000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from incrowd.algorithms.single_attribute.planar_regions import planar_regions

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
RESULTS = Path(__file__).resolve().parent / "results"


def hipaa(z: pd.DataFrame, k: int) -> dict[str, object]:
    areas = z.groupby(z["zip"].str[:3])["population"].sum()
    kept = areas[areas > k]
    small = areas[areas <= k]
    classes = pd.concat([kept, pd.Series({"000": small.sum()})]) if small.size else kept
    return {
        "classes": int(classes.size),
        "largest": int(classes.max()),
        "median": float(kept.median()),
        "smallest": int(classes.min()),
        "suppressed areas": int(small.size),
        "people suppressed": int(small.sum()),
        "areas": int(areas.size),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--k", type=int, default=20_000)
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args()
    z = pd.read_csv(args.shared / "us_zip_population.csv", dtype={"zip": str})
    points = z[["lon", "lat"]].to_numpy()
    weights = z["population"].to_numpy()
    start = time.perf_counter()
    found = planar_regions(points, weights, args.k)
    seconds = time.perf_counter() - start
    rule = hipaa(z, args.k)
    rows = [
        ("classes published", found.loads.size, rule["classes"]),
        ("largest class (people)", found.largest, rule["largest"]),
        ("median class (people)", f"{np.median(found.loads):.0f}", f"{rule['median']:.0f}"),
        ("smallest class (people)", found.loads.min(), rule["smallest"]),
        ("people in a suppressed class", 0, rule["people suppressed"]),
        (
            "zips per class (median)",
            f"{np.median(np.bincount(found.labels)):.0f}",
            f"{z.groupby(z['zip'].str[:3]).size().median():.0f}",
        ),  # fmt: skip
    ]
    lines = [
        f"# Zip codes, k = {args.k:,} people: connected regions vs HIPAA's 3-digit rule",
        "",
        f"{len(z):,} zips, {weights.sum():,} people (`us_zip_population.csv`, ACS 2022). "
        f"Regions: Delaunay graph of the zip points, spanning tree of degree {found.degree}, "
        f"{seconds:.2f} s (`python experiments/zip_regions_vs_hipaa.py`).",
        "",
        "| | connected regions (Du et al., Thm 3) | HIPAA 3-digit areas |",
        "|---|---|---|",
        *[f"| {name} | {a} | {b} |" for name, a, b in rows],
        "",
        f"HIPAA: {rule['areas']} three-digit areas, {rule['suppressed areas']} of them at or "
        f"under {args.k:,} people, published together as `000`.",
        "",
        f"Regions: largest {found.largest:,}; proven bound κ + d(k − 1) = {found.bound:,}; "
        f"lower bound on any partition into classes of {args.k:,} = {found.lower_bound:,} "
        f"(the largest zip alone); certified ratio {found.certified_ratio:.3f}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "zip_regions.md").write_text(text)
    if not args.no_plot:
        plot(z, found.labels, RESULTS / "zip_regions.png", args.k)


def plot(z: pd.DataFrame, labels: np.ndarray, path: Path, k: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mainland = z["lon"].between(-125, -66) & z["lat"].between(24, 50)
    rng = np.random.default_rng(0)
    fig, axes = plt.subplots(1, 2, figsize=(16, 5.5))
    areas = pd.factorize(z["zip"].str[:3])[0]
    for ax, groups, title in ((axes[0], labels, f"connected regions, k = {k:,}"),
                              (axes[1], areas, "HIPAA 3-digit areas")):  # fmt: skip
        colours = rng.random((int(groups.max()) + 1, 3)) * 0.85
        ax.scatter(z.loc[mainland, "lon"], z.loc[mainland, "lat"], s=0.6,
                   c=colours[groups[mainland.to_numpy()]], linewidths=0)  # fmt: skip
        ax.set_title(f"{title} ({int(groups.max()) + 1} classes)")
        ax.set_xlabel("longitude")
        ax.set_aspect(1.25)
    axes[0].set_ylabel("latitude")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
