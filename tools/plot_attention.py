"""Pictures of realmt-analyze's output (run through tools/plot-attention, which installs matplotlib)."""
import json
import os
import sys

import matplotlib.pyplot as plt

COLOURS = {"red": "#d62728", "yellow": "#e6b800", "blue": "#1f77b4"}


def violins(rows, chain, measure, out):
    rows = [r for r in rows if r["chain"] == chain and r["measure"] == measure]
    if not rows:
        return
    layers = sorted({r["layer"] for r in rows}, key=lambda s: int(s.split("-")[0]))
    heads = max(r["head"] for r in rows)
    fig, axes = plt.subplots(len(layers), heads, figsize=(1.3 * heads + 1, 1.0 * len(layers) + 1),
                             sharex=True, sharey=True, squeeze=False)
    for i, layer in enumerate(layers):
        in_layer = sorted((r for r in rows if r["layer"] == layer), key=lambda r: r["median"])
        for j, r in enumerate(in_layer):
            ax = axes[i][j]
            counts = r["histogram"]["counts"]
            lo, hi = r["histogram"]["range"]
            width = (hi - lo) / len(counts)
            total = sum(counts) or 1
            coords = [lo + (k + 0.5) * width for k in range(len(counts))]
            vals = [c / total / width for c in counts]
            stats = [{"coords": coords, "vals": vals, "mean": r["mean"], "median": r["median"],
                      "min": r["min"], "max": r["max"]}]
            if r["count"]:
                parts = ax.violin(stats, orientation="vertical", widths=0.9, showextrema=False)
                for body in parts["bodies"]:
                    body.set_facecolor(COLOURS[r["colour"]])
                    body.set_alpha(0.8)
                ax.vlines(1, r["q1"], r["q3"], color="black", linewidth=3)
                ax.plot([1], [r["median"]], "o", color="white", markersize=3)
            ax.set_xticks([])
            ax.set_title(f"h{r['head']} {r['median']:.2f}", fontsize=6, pad=2)
            ax.tick_params(labelsize=6)
        axes[i][0].set_ylabel(f"layer {layer}", fontsize=7)
    unit = "bits" if measure == "entropy" else "JSD, base 2"
    fig.suptitle(f"{chain} attention: {measure} per query token ({unit}); heads sorted by median", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print(out)


def heatmaps(data, out_dir):
    for chain, layers in data["chains"].items():
        if not layers or not layers[0] or not layers[0][0]:
            continue
        rows = data["source"] if chain == "encoder" else data["target"]
        cols = data["target"] if chain == "decoder" else data["source"]
        heads = len(layers[0])
        size = max(2.0, 0.18 * max(len(rows), len(cols)))
        fig, axes = plt.subplots(len(layers), heads, figsize=(size * heads + 1, size * len(layers) + 1), squeeze=False)
        for i, per_head in enumerate(layers):
            for j, matrix in enumerate(per_head):
                square = [row + [float("nan")] * (len(cols) - len(row)) for row in matrix]
                ax = axes[i][j]
                ax.imshow(square, cmap="viridis", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
                ax.set_title(f"layer {i + 1} head {j + 1}", fontsize=7)
                ax.set_xticks(range(len(cols)))
                ax.set_xticklabels(cols, rotation=90, fontsize=5)
                ax.set_yticks(range(len(rows)))
                ax.set_yticklabels(rows, fontsize=5)
        fig.suptitle(f"{chain} attention, line {data['line']} (rows: queries, columns: keys)", fontsize=9)
        fig.tight_layout()
        out = os.path.join(out_dir, f"heatmap-{chain}.png")
        fig.savefig(out, dpi=110)
        plt.close(fig)
        print(out)


def main(out_dir):
    with open(os.path.join(out_dir, "attention.json"), encoding="utf-8") as f:
        table = json.load(f)
    for chain in ("encoder", "decoder", "cross"):
        for measure in ("entropy", "jsd"):
            violins(table["rows"], chain, measure, os.path.join(out_dir, f"{chain}-{measure}.png"))
    path = os.path.join(out_dir, "heatmap.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            heatmaps(json.load(f), out_dir)


if __name__ == "__main__":
    main(sys.argv[1])
