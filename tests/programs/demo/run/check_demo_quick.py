"""demo.quick: runs `frugal-demo --quick` and checks what it promises.

Usage: check_demo_quick.py FRUGAL_DEMO OUT_DIR

Checks, each with the values it found when it fails:
  - the demo exits 0 and prints the report table;
  - the loss falls in both runs (final eval loss below the first by a margin);
  - the frugal run was preempted at least once, and every resumed attempt
    continued from the step it restored, with bit-identical losses on the
    steps it recomputed (resume.csv present, max difference 0);
  - the frugal run's newest checkpoint carries the trainer's states as the
    engine registered them (each router, each FP8 quantizer, the scheduler,
    the data cursor, the trainer's progress), read with `frugal ckpt
    inspect --json` (the frugal program next to frugal-demo);
  - report.json holds every figure of the report for both plans, and
    report.svg is a complete SVG document.
"""
import csv
import json
import math
import os
import subprocess
import sys
import time

# The eval loss must fall by at least this much (nats) from the first eval
# to the last: a model that does not learn stays near ln(256) = 5.5.
MIN_EVAL_DROP = 0.3

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(value):
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def check_loss_falls(run_dir, name):
    evals = rows(os.path.join(run_dir, "eval.csv"))
    if not check(len(evals) >= 2, f"{name}: eval.csv has {len(evals)} rows, need >= 2"):
        return
    first, final = float(evals[0]["eval_loss"]), float(evals[-1]["eval_loss"])
    check(final < first - MIN_EVAL_DROP,
          f"{name}: eval loss {first:.4f} -> {final:.4f} did not fall by {MIN_EVAL_DROP}")
    print(f"{name}: eval loss {first:.4f} -> {final:.4f} over {len(evals)} evals")


def check_resume(run_dir):
    steps = rows(os.path.join(run_dir, "steps.csv"))
    events = rows(os.path.join(run_dir, "events.csv"))
    kills = [e for e in events if e["event"] == "killed"]
    resumes = [e for e in events if e["event"] == "resume"]
    check(len(kills) >= 1, f"frugal: {len(kills)} preemptions (killed events), need >= 1")
    check(len(resumes) == len(kills), f"frugal: {len(kills)} kills but {len(resumes)} resumes")
    # Every restored step is a step some earlier attempt checkpointed.
    saved = {int(r["step"]) for r in steps if r["checkpoint"]}
    saved |= {int(e["step"]) for e in events if e["event"] == "emergency_save"}
    for resume in resumes:
        attempt, restored = int(resume["attempt"]), int(resume["step"])
        check(restored in saved, f"frugal: attempt {attempt} restored step {restored}, which no checkpoint saved")
        first = next((int(r["step"]) for r in steps if int(r["attempt"]) == attempt), None)
        check(first == restored + 1,
              f"frugal: attempt {attempt} restored step {restored} but its first step was {first}")
    path = os.path.join(run_dir, "resume.csv")
    if not check(os.path.exists(path), "frugal: no resume.csv (no resumed attempt recomputed a step)"):
        return
    replayed = rows(path)
    check(len(replayed) >= 1, "frugal: resume.csv has no rows")
    diffs = [abs(float(r["loss_before"]) - float(r["loss_after"])) for r in replayed]
    check(max(diffs, default=1.0) == 0.0, f"frugal: replayed losses differ, max |diff| {max(diffs, default=None)}")
    for r in replayed:
        check(int(r["replayed_step"]) > int(r["restored_step"]),
              f"frugal: replayed step {r['replayed_step']} is not after restored step {r['restored_step']}")
    print(f"frugal: {len(kills)} preemptions, restored steps {[int(e['step']) for e in resumes]}, "
          f"{len(replayed)} replayed steps, max |loss diff| {max(diffs, default=None)}")


def check_report(out):
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    for name in ("baseline", "frugal"):
        run = report.get(name, {})
        for key in ("tokens_per_s", "padding_waste", "eval_loss_at_equal_time", "stall_total_s", "stall_mean_s"):
            check(number(run.get(key)), f"report.json: {name}.{key} is {run.get(key)!r}, not a number")
        check(number(run.get("dollars", {}).get("total")), f"report.json: {name}.dollars.total missing")
        check(run.get("dollars", {}).get("from_ledger") is True, f"report.json: {name} dollars not from its ledger")
    frugal, baseline = report.get("frugal", {}), report.get("baseline", {})
    for key in ("mean_steps_lost", "mean_seconds_lost"):
        check(number(frugal.get(key)), f"report.json: frugal.{key} (work lost per preemption) is {frugal.get(key)!r}")
    balance = frugal.get("expert_balance", {})
    check(number(balance.get("worst_max_over_mean")) and balance.get("worst_max_over_mean") >= 1.0,
          f"report.json: frugal expert load balance is {balance.get('worst_max_over_mean')!r}")
    check(len(balance.get("layers", [])) == 2, f"report.json: expert balance for {len(balance.get('layers', []))} layers, want 2")
    check(frugal.get("resume", {}).get("exact") is True, "report.json: frugal.resume.exact is not true")
    # Packing must waste less than padding, and spot must cost less.
    if number(frugal.get("padding_waste")) and number(baseline.get("padding_waste")):
        check(frugal["padding_waste"] < baseline["padding_waste"],
              f"padding waste: frugal {frugal['padding_waste']:.3f} not below baseline {baseline['padding_waste']:.3f}")
    fd, bd = frugal.get("dollars", {}).get("total"), baseline.get("dollars", {}).get("total")
    if number(fd) and number(bd):
        check(fd < bd, f"dollars: frugal {fd:.2f} not below baseline {bd:.2f}")
    with open(os.path.join(out, "report.svg")) as f:
        svg = f.read()
    check("<svg" in svg[:400] and svg.rstrip().endswith("</svg>"), "report.svg is not a complete SVG document")


def check_states(demo, run_dir):
    cli = os.path.join(os.path.dirname(os.path.abspath(demo)), "frugal")
    store = os.path.join(run_dir, "store")
    latest = subprocess.run([cli, "ckpt", "latest", store, "--json"], capture_output=True, text=True, timeout=60)
    if not check(latest.returncode == 0, f"frugal ckpt latest {store}: {latest.stderr.strip()}"):
        return
    name = json.loads(latest.stdout)["checkpoint"]["name"]
    inspect = subprocess.run([cli, "ckpt", "inspect", store, name, "--json"], capture_output=True, text=True,
                             timeout=60)
    if not check(inspect.returncode == 0, f"frugal ckpt inspect {name}: {inspect.stderr.strip()}"):
        return
    manifest = json.loads(inspect.stdout)
    states = {s["name"]: s for s in manifest["states"]}
    check(manifest["metadata_bytes"] == 0, f"frugal: {name} carries {manifest['metadata_bytes']} metadata bytes")
    for required in ("router/moe_router.0", "router/moe_router.1", "run/scheduler", "data/cursor", "train/progress"):
        check(required in states, f"frugal: {name} has no state '{required}' (has {sorted(states)})")
    fp8 = [n for n in states if n.startswith("fp8/")]
    check(len(fp8) == 40, f"frugal: {name} has {len(fp8)} fp8 quantizer states, want 40")
    check(all(states[n]["size"] > 0 for n in fp8 + ["run/scheduler", "train/progress"]),
          f"frugal: {name} has an empty strategy state")
    print(f"frugal: checkpoint {name} carries {len(states)} registered states")


def main():
    demo, out = sys.argv[1], sys.argv[2]
    start = time.monotonic()
    result = subprocess.run([demo, "--quick", "--out", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    elapsed = time.monotonic() - start
    print(result.stdout)
    print(f"frugal-demo --quick took {elapsed:.1f} s (exit code {result.returncode})")
    if result.returncode != 0:
        print("FAIL: frugal-demo --quick failed")
        return 1
    check("tokens/s" in result.stdout, "the printed table has no tokens/s row")
    check_loss_falls(os.path.join(out, "baseline"), "baseline")
    check_loss_falls(os.path.join(out, "frugal"), "frugal")
    check_resume(os.path.join(out, "frugal"))
    check_states(demo, os.path.join(out, "frugal"))
    check_report(out)
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
