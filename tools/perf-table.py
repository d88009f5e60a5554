#!/usr/bin/env python3
"""Prints README's performance table rows from a gpueig_bench --json file.

usage: tools/perf-table.py bench.json
"""
import json
import sys


def fmt(v):
    if v is None or v < 0:
        return "-"
    return f"{v:.2g}" if v < 0.01 else f"{v:.3g}"


def main():
    data = json.load(open(sys.argv[1]))
    modes = {"device": "device-resident", "host": "host call"}
    print(f"device: {data['device']}; copy {data['copy_gbps']:.0f} GB/s")
    print("| routine | problem | mode | n | ran on | libgpueig ms | anchor | anchor ms | speedup "
          "| acc (ours / anchor) | GB/s | GFLOP/s (ours / anchor) |")
    print("| --- | --- | --- | ---: | --- | ---: | --- | ---: | ---: | --- | ---: | ---: |")
    for r in data["rows"]:
        gbps = f"{r['gbps']:.0f}" if r.get("gbps", 0) > 0 and r["mode"] == "device" else ""
        flops = (f"{r['ours_gflops']:.0f} / {r['anchor_gflops']:.0f}"
                 if r.get("ours_gflops", 0) > 0 else "")
        print(f"| {r['routine']} | {r['problem']} | {modes.get(r['mode'], r['mode'])} | {r['n']} "
              f"| {r['backend']} | {r['ours_ms']:.3f} | {r['anchor']} | {r['anchor_ms']:.3f} "
              f"| {r['speedup']:.2f}x | {fmt(r['ours_ratio'])} / {fmt(r['anchor_ratio'])} | {gbps} "
              f"| {flops} |")


if __name__ == "__main__":
    main()
