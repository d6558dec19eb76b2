#!/usr/bin/env python3
"""Turns a benchmark run (tools/bench/run.sh DIR) into Markdown and a plot.

    python3 tools/bench/report.py DIR [--plot docs/perf-diameter.png]
        [--taps-plot docs/perf-taps.png] > table.md

The Markdown replaces the table of record in docs/performance.md when the run
becomes the run of record (with its device, date and commit); tables whose
rows the run lacks are left out (a `cbf-bench --live` run gives the
live-source table alone). The plot shows 4K kernel time against diameter for
us, the generic one-pixel-per-thread kernel and NPP.
"""
import argparse
import json
import os

TARGETS = {  # (format, width, diameter): (target ms, what)
    ("RGBA", 3840, 15): 0.45,
    ("RGBA", 3840, 5): 0.08,
    ("GRAY8", 3840, 15): 0.2,
}


def taps(radius):
    """Taps of the circular window of @radius (dx^2 + dy^2 <= r^2)."""
    return sum(1 for dy in range(-radius, radius + 1)
               for dx in range(-radius, radius + 1) if dx * dx + dy * dy <= radius * radius)


def kernel_table(bench, cv_ms):
    out = []
    out.append("| format | size | d | ours ms | MP/s | generic kernel ms | NPP ms | OpenCV CPU ms | × generic | × NPP | × OpenCV | radius walked (whole window ms) |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in bench["kernels"]:
        key = (r["format"], r["width"], r["diameter"])
        walked = r.get("walk_radius", r["diameter"] // 2)
        mp = r["width"] * r["height"] / 1e6 / (r["ours_ms"] / 1e3)
        npp = r["npp_ms"] if r["npp_ms"] > 0 else None
        c = cv_ms.get(key)
        out.append(f"| {r['format']} | {r['width']}×{r['height']} | {r['diameter']} | **{r['ours_ms']:.3f}** | "
                   f"{mp:,.0f} | {r['generic_ms']:.3f} | {npp:.3f} | " if npp else
                   f"| {r['format']} | {r['width']}×{r['height']} | {r['diameter']} | **{r['ours_ms']:.3f}** | "
                   f"{mp:,.0f} | {r['generic_ms']:.3f} | – | ")
        out[-1] += (f"{c:.1f} | " if c else "– | ") + f"{r['generic_ms'] / r['ours_ms']:.1f} | " + \
            (f"{npp / r['ours_ms']:.1f} | " if npp else "– | ") + (f"{c / r['ours_ms']:.0f} |" if c else "– |")
        out[-1] += (f" {walked} ({r['full_ms']:.3f}) |" if walked < r["diameter"] // 2 else " all |")
    return out


def pipeline_table(bench):
    out = []
    out.append("")
    out.append("Through GStreamer (`appsrc ! … ! fakesink sync=false`, RGBA, d=15): frames/s over the run; "
               "latency from the buffer entering the first element's sink pad to leaving the last one's "
               "source pad (pad probes), median and 99th percentile. \"CUDA memory in and out\": frames "
               "already in CUDA memory of the element's context (uploaded once, outside the timing). "
               "nvh264dec rows: the H.264 clip decoded into CUDA memory, with and without the filter, "
               "frames/s from the first to the last frame at the sink. \"cudaMemcpy up and down\": the frame's bytes "
               "up and down at once with cudaMemcpyAsync alone (pinned memory, two streams), no GStreamer and no "
               "kernel: what the host link itself takes per frame in the same run. CPU and page faults: "
               "the whole process's CPU time (user and system, every thread) and minor page faults over "
               "the timed frames, a frame.\n")
    out.append("| pipeline | size | frames | frames/s | latency median ms | latency p99 ms "
               "| CPU ms a frame | page faults a frame |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in bench["pipelines"]:
        lat = (f"{p['latency_median_ms']:.3f} | {p['latency_p99_ms']:.3f} |" if p["latency_median_ms"] >= 0
               else "– | – |")
        fps = f"{p['fps']:.0f}"
        if p.get("streams", 1) > 1:
            fps += f" (slowest {p['min_stream_fps']:.0f})"
        use = (f" {p['cpu_ms_per_frame']:.3f} | {p['faults_per_frame']:.1f} |"
               if p.get("cpu_ms_per_frame", -1) >= 0 else " – | – |")
        out.append(f"| {p['name']} | {p['width']}×{p['height']} | {p['frames']} | {fps} | " + lat + use)
    return out


def live_table(bench):
    """The live-source rows (cbf-bench --live): a frame's time in the element, what it declares, drops."""
    def ms(v):
        return "∞" if v < 0 else f"{v:.1f}"
    out = [""]
    out.append("Live source, as a camera preview runs: `videotestsrc is-live=true pattern=checkers-8 ! "
               "video/x-raw,format=RGBA,… ! ELEMENT ! fakesink sync=true qos=true max-lateness=20000000` "
               f"(sigma-color {bench['sigma_color']:g}, sigma-space {bench['sigma_space']:g}). In → out: per frame "
               "from the buffer entering the element's sink pad to leaving its source pad (pad probes, monotonic "
               "clock), over the frames after a third of a second of warm-up; identity in the element's place "
               "gives the probes' own cost. At once: the most frames inside the element at the same time (1: "
               "no queueing). Dropped: by the element (its QoS) + by the sink (late by more than 20 ms); late: "
               "frames that reached the sink after their due time (QoS jitter > 0); least margin: how long before "
               "its due time the latest frame reached the sink (the sink's QoS jitter, sign flipped). With no "
               "queue, source, element and sink share one streaming thread that waits in the sink until each "
               "frame is due and draws the next one after that, so the margin is about the frame period less the "
               "source's drawing and the element's time: compare identity at the same size. Latency query: the pipeline's answer (min / "
               "max; it includes the sink's 20 ms processing deadline), and what the element adds to upstream's "
               "answer (its source pad's min minus its sink pad peer's).\n")
    out.append("| element | size | frames/s | frames | in → out median ms | p99 ms | max ms | at once | "
               "dropped | late | least margin ms | pipeline latency ms | element adds ms |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for r in bench["live"]:
        margin = "–" if r["sink_jitter_max_ms"] is None else f"{-r['sink_jitter_max_ms']:.1f}"
        sink = "?" if r["dropped_sink"] < 0 else r["dropped_sink"]
        pipe = (f"{ms(r['pipeline_latency_min_ms'])} / {ms(r['pipeline_latency_max_ms'])}"
                + (" (live)" if r["live"] else ""))
        added = r["element_latency_min_ms"] - r["upstream_latency_min_ms"]
        lat = " | ".join("–" if r[k] < 0 else f"{r[k]:.3f}"
                         for k in ("latency_median_ms", "latency_p99_ms", "latency_max_ms"))
        out.append(f"| {r['name']} | {r['width']}×{r['height']} @ {r['framerate']} | {r['fps']:.1f} | "
                   f"{r['frames']} | {lat} | {r['max_in_flight']} | {r['dropped_element']} + {sink} | "
                   f"{r['late_sink']} | {margin} | {pipe} | {added:.3f} |")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--plot")
    ap.add_argument("--taps-plot", help="4K kernel time against the window's "
                    "taps (linear axes): whether time grows as the taps do")
    args = ap.parse_args()
    bench = json.load(open(os.path.join(args.dir, "bench.json")))
    cv_path = os.path.join(args.dir, "opencv.json")
    cv = json.load(open(cv_path)) if os.path.exists(cv_path) else None
    cv_ms = {}
    if cv:
        for r in cv["rows"]:
            fmt = "RGBA" if r["format"] == "RGB" else r["format"]
            cv_ms[(fmt, r["width"], r["diameter"])] = r["ms"]
    gpu_path = os.path.join(args.dir, "gpu.txt")
    gpu_txt = open(gpu_path).read().strip().splitlines() if os.path.exists(gpu_path) else []

    out = []
    out.append(f"### {bench['gpu']}, {bench['date'][:10]}, commit {bench['commit']}\n")
    out.append(f"Driver {bench['driver']}, CUDA runtime {bench['runtime']}, {bench['sm_count']} SMs, "
               f"max SM clock {bench['max_sm_clock_mhz']} MHz; NPP {bench['npp']}"
               + (f"; OpenCV {cv['opencv']} on {cv['threads']} CPU threads" if cv else "") + ".")
    if len(gpu_txt) > 1:
        out.append(f"nvidia-smi at the start: `{gpu_txt[1].strip()}` ({gpu_txt[0].strip()}).")
    out.append(f"sigma-color {bench['sigma_color']:g}, sigma-space {bench['sigma_space']:g}; "
               f"kernel times: CUDA events, median of {bench['runs']} runs after warm-up, three noised "
               "inputs in rotation. NPP: `nppiFilterBilateralGaussBorder_8u_C3R` for RGBA rows (RGB, "
               "3 bytes a pixel), `_C1R` for GRAY8. OpenCV: `cv::bilateralFilter`, RGB for RGBA rows.\n")
    if bench["kernels"]:
        out += kernel_table(bench, cv_ms)
    if bench.get("frames"):
        out.append("")
        out.append("A whole frame per format: every kernel the element launches for it (YUV: luma, then each "
                   "chroma channel at its resolution with diameter and sigma-space halved), on the element's "
                   "device planes; CUDA events, median. Target for 4:2:0 (NV12, I420): at most 1.6 × GRAY8 "
                   "of the same size.\n")
        out.append("| format | size | d | ms | × GRAY8 | MP/s |")
        out.append("| --- | --- | ---: | ---: | ---: | ---: |")
        # whole frames only: the rows with regions are parts of a frame;
        # the temporal rows have a table of their own
        frames = [r for r in bench["frames"] if r.get("regions", "none") == "none"
                  and r.get("temporal", "off") == "off"]
        gray = {(r["width"], r["diameter"]): r["ms"] for r in frames if r["format"] == "GRAY8"}
        for r in frames:
            g = gray.get((r["width"], r["diameter"]))
            mp = r["width"] * r["height"] / 1e6 / (r["ms"] / 1e3)
            out.append(f"| {r['format']} | {r['width']}×{r['height']} | {r['diameter']} | {r['ms']:.3f} | "
                       + (f"{r['ms'] / g:.2f} | " if g else "– | ") + f"{mp:,.0f} |")
        temporal = [r for r in bench["frames"] if r.get("temporal", "off") != "off"]
        if temporal:
            out.append("")
            out.append("The temporal filter on the same frames (d = 5, strength 0.9, temporal-sigma 12), each "
                       "run prepared as the element prepares a frame, against the spatial filter alone. "
                       "Targets for compensated: at most 0.15 ms more at 3840×2160 (NV12, RGBA), 0.05 ms "
                       "at 1920×1080.\n")
            out.append("| format | size | temporal-motion | ms | + ms over spatial |")
            out.append("| --- | --- | --- | ---: | ---: |")
            spatial = {(r["format"], r["width"], r["diameter"]): r["ms"] for r in frames}
            for r in temporal:
                base = spatial.get((r["format"], r["width"], r["diameter"]))
                out.append(f"| {r['format']} | {r['width']}×{r['height']} | {r['temporal']} | {r['ms']:.3f} | "
                           + (f"{r['ms'] - base:+.3f} |" if base else "– |"))
    if bench["pipelines"]:
        out += pipeline_table(bench)
    if bench.get("live"):
        out += live_table(bench)
    print("\n".join(out))

    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for ax, fmt in zip(axes, ("RGBA", "GRAY8")):
            rows = [r for r in bench["kernels"] if r["format"] == fmt and r["width"] == 3840]
            d = [r["diameter"] for r in rows]
            ax.plot(d, [r["ours_ms"] for r in rows], "o-", label="cudabilateral")
            ax.plot(d, [r["generic_ms"] for r in rows], "s--", label="one pixel per thread, LUTs in shared memory")
            if all(r["npp_ms"] > 0 for r in rows):
                ax.plot(d, [r["npp_ms"] for r in rows], "^:", label="NPP " + ("C3R (RGB)" if fmt == "RGBA" else "C1R"))
            ax.set_yscale("log")
            ax.set_xlabel("diameter")
            ax.set_ylabel("ms per 3840×2160 frame (kernel)")
            ax.set_title(f"{fmt}, {bench['gpu']}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)

    if args.taps_plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for ax, fmt in zip(axes, ("RGBA", "GRAY8")):
            rows = [r for r in bench["kernels"] if r["format"] == fmt and r["width"] == 3840]
            # the kernels' cost a tap: each walking the whole window
            n = [taps(r["diameter"] // 2) for r in rows]
            ax.plot(n, [r.get("full_ms", r["ours_ms"]) for r in rows], "o-", label="cudabilateral")
            ax.plot(n, [r["generic_ms"] for r in rows], "s--", label="one pixel per thread")
            # the line through the origin and d = 15: the specialised kernel's cost per tap
            ref = [r for r in rows if r["diameter"] == 15]
            if ref:
                per_tap = ref[0]["ours_ms"] / taps(7)
                ax.plot([0, max(n)], [0, per_tap * max(n)], ":", color="gray",
                        label=f"{per_tap * 1e3:.2f} µs a tap (d = 15's rate)")
                ax.plot([0, max(n)], [0, 1.15 * per_tap * max(n)], "--", color="silver",
                        label="1.15 × that rate (the target)")
            for r, k in zip(rows, n):
                ax.annotate(f"d={r['diameter']}", (k, r.get("full_ms", r["ours_ms"])), fontsize=7,
                            textcoords="offset points", xytext=(4, -10))
            ax.set_xlabel("taps in the window")
            ax.set_ylabel("ms per 3840×2160 frame (kernel)")
            ax.set_title(f"{fmt}, {bench['gpu']}")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.taps_plot, dpi=110)


if __name__ == "__main__":
    main()
