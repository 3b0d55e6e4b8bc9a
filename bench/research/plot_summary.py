"""Summary pictures of bench/research/run.sh across variants and seeds (matplotlib; run by run.sh
with the virtual environment tools/plot-attention installs).

Usage: plot_summary.py OUT "SEEDS" NAME...
Writes OUT/summary-quality.png (test BLEU and chrF2 per variant: one dot per seed, a bar at the
mean) and OUT/summary-entropy.png, OUT/summary-jsd.png (per chain, the median over heads of
each head's median per layer: one line per variant, the mean over seeds, error bars from the
lowest to the highest seed).
"""
import os
import statistics
import sys

import matplotlib.pyplot as plt

from aggregate import layer_medians, run_scores

CHAINS = ("encoder", "decoder", "cross")


def quality(out, seeds, names):
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, metric in zip(axes, ("BLEU", "chrF2")):
        for x, name in enumerate(names):
            per_seed = [run_scores(os.path.join(out, "runs", f"{name}-s{seed}"), "test") for seed in seeds]
            values = [scores[metric] for scores in per_seed if metric in scores]
            if values:
                ax.bar(x, statistics.mean(values), color="#c6dbef", edgecolor="#08519c")
                ax.plot([x] * len(values), values, "o", color="#08519c", markersize=4)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, fontsize=8)
        ax.set_title(f"test {metric} (dots: seeds, bar: mean)", fontsize=9)
    fig.tight_layout()
    path = os.path.join(out, "summary-quality.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(path)


def per_layer(out, seeds, names, measure):
    fig, axes = plt.subplots(1, len(CHAINS), figsize=(12, 3.4), squeeze=False)
    for ax, chain in zip(axes[0], CHAINS):
        for name in names:
            per = layer_medians(out, seeds, name, measure)
            layers = sorted(l for c, l in per if c == chain)
            if not layers:
                continue
            means = [statistics.mean(per[(chain, l)]) for l in layers]
            low = [m - min(per[(chain, l)]) for m, l in zip(means, layers)]
            high = [max(per[(chain, l)]) - m for m, l in zip(means, layers)]
            # deep models have 12 layers, the shallow 3: plot against relative depth
            xs = [l / len(layers) for l in layers] if len(layers) > 1 else layers
            ax.errorbar(xs, means, yerr=[low, high], marker="o", markersize=3, capsize=2, label=name)
        ax.set_title(f"{chain}", fontsize=9)
        ax.set_xlabel("layer / number of layers", fontsize=8)
        ax.tick_params(labelsize=7)
    unit = "bits" if measure == "entropy" else "JSD to the next layer, base 2"
    axes[0][0].set_ylabel(f"{measure} ({unit})", fontsize=8)
    axes[0][-1].legend(fontsize=7)
    fig.suptitle(f"attention {measure} per layer: median over heads of each head's median "
                 f"(mean over seeds, bars: seed range)", fontsize=9)
    fig.tight_layout()
    path = os.path.join(out, f"summary-{measure}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(path)


def main(out, seeds, names):
    quality(out, seeds, names)
    for measure in ("entropy", "jsd"):
        per_layer(out, seeds, names, measure)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2].split(), sys.argv[3:])
