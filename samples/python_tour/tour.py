#!/usr/bin/env python3
"""The tour of samples/README.md in Python, through the frugal package (sdk/python).

Loads the built-in plugins, then uses every strategy family once (schedule,
packer, router, quantizer, scheduler with a policy, store and checkpoint
engine), checking each result against what the tour expects. Tensors are
numpy arrays shared with frugal through DLPack, without copies; the
checkpoint's weights are a torch tensor when torch is installed. Prints one
line per step; stops with a message and exit status 1 at the first
mismatch.

Runs from anywhere: the package is found relative to this file, and the
package finds the repository's build of libfrugal (or FRUGAL_LIB).
"""

import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sdk", "python"))

try:
    import numpy as np
except ImportError:
    sys.exit("the Python tour shares numpy arrays with frugal: install numpy (Debian: python3-numpy)")

import frugal  # noqa: E402

try:
    import torch
except ImportError:  # the checkpoint step then uses numpy
    torch = None

REQUIRED_PLUGINS = ("packer_seq", "policy_cost", "quant_fp8", "router_moe", "schedule_lr", "store_fs")
COSINE = {"lr": 3e-4, "min_lr": 3e-5, "warmup_steps": 100, "total_steps": 1000}


class Mismatch(Exception):
    """A value the tour computed differs from what it expected."""


def expect(condition, message):
    if not condition:
        raise Mismatch(message)


class Lcg:
    """The tour's 64-bit linear congruential stream, identical in every language."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return self.state >> 33

    def uniform(self):
        """A value in [-1, 1), rounded to float32 as the C tour's stream does."""
        return np.float32(self.next() / 2147483648.0 * 2.0 - 1.0)

    def uniforms(self, count):
        return np.array([self.uniform() for _ in range(count)], dtype=np.float32)


# --- step 1 -------------------------------------------------------------------


def tour_plugins():
    major, minor = frugal.abi_version()
    expect(major == frugal.ABI_MAJOR, f"plugins: the library speaks ABI major {major}, not {frugal.ABI_MAJOR}")
    context = frugal.Context()
    loaded = context.discover_plugins()
    names = context.plugin_names()
    for required in REQUIRED_PLUGINS:
        if required not in names:
            for failure in context.load_failures():
                print(f"  load failure: {failure.path}: {failure.message}", file=sys.stderr)
            raise Mismatch(f"plugins: {required!r} is not loaded ({len(names)} plugins found)")
    print(f"plugins: frugal {frugal.version_string()}, ABI {major}.{minor}, {loaded} loaded, all of "
          f"{' '.join(REQUIRED_PLUGINS)} present")
    return context


# --- step 2 -------------------------------------------------------------------


def cosine_closed_form(step):
    lr, min_lr, warmup, total = COSINE["lr"], COSINE["min_lr"], COSINE["warmup_steps"], COSINE["total_steps"]
    if step < warmup:
        return lr * (step + 1) / warmup
    if step < total:
        return min_lr + (lr - min_lr) * 0.5 * (1.0 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    return min_lr


def tour_schedule(context):
    steps = (0, 99, 100, 550, 999, 1000, 5000)
    with frugal.Schedule(context, "cosine", COSINE) as schedule:
        rates = [schedule.lr(step) for step in steps]
    for step, rate in zip(steps, rates):
        want = cosine_closed_form(step)
        expect(abs(rate - want) <= 1e-12 * abs(want), f"schedule: lr({step}) = {rate!r}, closed form {want!r}")
    print("schedule: cosine lr at steps " + " ".join(map(str, steps)) + " = "
          + " ".join(f"{rate:.6e}" for rate in rates))


# --- step 3 -------------------------------------------------------------------


def tour_pack(context):
    max_len, count = 2048, 256
    stream = Lcg(7)
    lengths = [1 + stream.next() % 1024 for _ in range(count)]
    with frugal.Packer(context, "packer_seq", max_len=max_len) as packer, packer.pack(lengths) as plan:
        seen = sorted(sequence for pack in plan.packs for sequence in pack)
        expect(seen == list(range(count)), "pack: the packs do not hold every sequence id exactly once")
        for index, pack in enumerate(plan.packs):
            tokens = sum(lengths[sequence] for sequence in pack)
            expect(tokens <= max_len, f"pack: pack {index} holds {tokens} tokens, more than {max_len}")
        expect(plan.stats.real_tokens == sum(lengths),
               f"pack: real_tokens {plan.stats.real_tokens}, the lengths sum to {sum(lengths)}")
        expect(plan.stats.efficiency >= 0.95, f"pack: efficiency {plan.stats.efficiency:.4f} is below 0.95")
        cu_seqlens, _ = plan.varlen(0)
        first = plan.packs[0]
        expect(cu_seqlens[0] == 0, f"pack: cu_seqlens of pack 0 starts at {cu_seqlens[0]}, not 0")
        for k, sequence in enumerate(first):
            rise = cu_seqlens[k + 1] - cu_seqlens[k]
            expect(rise == lengths[sequence],
                   f"pack: cu_seqlens of pack 0 rises by {rise} at unit {k}; sequence {sequence} has {lengths[sequence]}")
        expect(cu_seqlens[len(first)] == plan.pack_tokens[0],
               f"pack: cu_seqlens of pack 0 ends at {cu_seqlens[len(first)]}; the pack holds {plan.pack_tokens[0]}")
        print(f"pack: {count} sequences, {plan.stats.real_tokens} tokens in {plan.stats.packs} packs of {max_len} "
              f"(efficiency {plan.stats.efficiency:.4f}, {plan.stats.method}); pack 0: {len(first)} sequences, "
              f"{cu_seqlens[len(first)]} tokens")


# --- step 4 -------------------------------------------------------------------


def tour_route(context):
    tokens, experts, k = 64, 8, 2
    stream = Lcg(11)
    logits = (stream.uniforms(tokens * experts) * np.float32(4.0)).reshape(tokens, experts)
    # samples/README.md counts on renormalized weights "with the default
    # renormalize", but topk_softmax documents renormalize=false (the full
    # softmax's probabilities); the tour asks for it explicitly.
    with frugal.Router(context, "topk_softmax", experts=experts, k=k, capacity_factor=8.0,
                       renormalize=True) as router:
        with router.route(logits) as plan:
            # Views of frugal's plan memory (no copy); they keep it alive.
            expert_ids = np.asarray(plan.expert_ids)
            weights = np.asarray(plan.weights)
            dropped = np.asarray(plan.dropped)
            demand = np.asarray(plan.expert_demand)
            expect(not dropped.any(), f"route: {int(dropped.sum())} assignments dropped")
            for token in range(tokens):
                row = logits[token].astype(np.float64)
                best_two = set(np.argsort(-row, kind="stable")[:k].tolist())
                chosen = set(expert_ids[token].tolist())
                expect(chosen == best_two, f"route: token {token} went to {sorted(chosen)}, its top-2 are {sorted(best_two)}")
                total = float(weights[token].sum())
                expect(abs(total - 1.0) <= 1e-5, f"route: token {token}'s weights sum to {total}")
                chosen_logits = row[expert_ids[token]]
                softmax = np.exp(chosen_logits - chosen_logits.max())
                softmax /= softmax.sum()
                for j in range(k):
                    expect(abs(float(weights[token, j]) - softmax[j]) <= 1e-5,
                           f"route: token {token} weight {j} is {float(weights[token, j])}, softmax gives {softmax[j]}")
            expect(int(demand.sum()) == tokens * k, f"route: expert loads sum to {int(demand.sum())}, not {tokens * k}")
            print(f"route: {tokens} tokens to {experts} experts, top-{k}, none dropped, loads "
                  + " ".join(str(int(load)) for load in demand) + f" (sum {int(demand.sum())})")


# --- step 5 -------------------------------------------------------------------


def tour_quantize(context):
    rows, cols = 32, 64
    stream = Lcg(13)
    x = (stream.uniforms(rows * cols) * np.float32(3.0)).reshape(rows, cols)
    y = np.zeros_like(x)
    with frugal.Quantizer(context, "quant_fp8", format="e4m3", recipe="current") as quantizer:
        with quantizer.quantize(x) as quantized:
            scale = quantized.scale_value()
            quantizer.dequantize(quantized, out=y)  # written in place, through DLPack
    e4m3_max = 448.0
    amax = float(np.abs(x.astype(np.float64)).max())
    expect(abs(amax * scale - e4m3_max) <= 1e-6 * e4m3_max,
           f"quantize: the scale {scale:.9g} maps amax {amax:.9g} to {amax * scale:.9g}, not 448")
    error = np.abs(x.astype(np.float64) - y.astype(np.float64))
    bound = np.abs(x.astype(np.float64)) / 16.0 + amax / e4m3_max * 2.0 ** -10
    bad = np.flatnonzero(error > bound)
    if bad.size:
        i = int(bad[0])
        raise Mismatch(f"quantize: element {i}: {x.flat[i]:.9g} came back as {y.flat[i]:.9g} "
                       f"(error {error.flat[i]:.3g} > bound {bound.flat[i]:.3g})")
    print(f"quantize: e4m3 current scaling of [{rows}, {cols}]: amax {amax:.6f}, scale {scale:.6f}, "
          f"largest round-trip error {float(error.max()):.6f}")


# --- step 6 -------------------------------------------------------------------


def tour_scheduler(context):
    records, nodes, price = 30, 2, 1.10
    heartbeats, last_lr = 0, 0.0
    with frugal.Schedule(context, "cosine", COSINE) as schedule, frugal.Scheduler(
        context,
        schedule="cosine",
        schedule_options=COSINE,
        policies=[("checkpoint_cadence", {"heartbeat_interval_s": 60.0})],
    ) as scheduler:
        for i in range(1, records + 1):
            step = 10 * i
            decision = scheduler.step(frugal.Telemetry(
                step=step,
                wall_time_s=30.0 * i,
                tokens=step * 2048,
                loss=4.0 - 0.05 * i,
                nodes=nodes,
                resource=frugal.ResourceClass.SPOT,
                price_per_node_hour=price,
            ))
            want = schedule.lr(step)
            expect(abs(decision.lr - want) <= 1e-12 * abs(want),
                   f"scheduler: record {i}: lr {decision.lr!r}, the schedule gives {want!r} at step {step}")
            heartbeats += decision.checkpoint == frugal.CheckpointKind.HEARTBEAT
            last_lr = decision.lr
        expect(heartbeats > 0, "scheduler: no decision asked for a heartbeat checkpoint")
        ledger = scheduler.ledger()
    by_use = ledger.productive_dollars + ledger.stall_dollars + ledger.lost_dollars
    by_class = ledger.spot_dollars + ledger.reserved_dollars
    paid = 30.0 * records * nodes * price / 3600.0
    expect(abs(ledger.dollars - by_use) <= 1e-9, f"scheduler: ${ledger.dollars!r} paid, by use ${by_use!r}")
    expect(abs(ledger.dollars - by_class) <= 1e-9, f"scheduler: ${ledger.dollars!r} paid, by class ${by_class!r}")
    expect(abs(ledger.dollars - paid) <= 1e-9, f"scheduler: ${ledger.dollars!r} paid, expected ${paid!r}")
    print(f"scheduler: {records} records, lr {last_lr:.6e} at step {10 * records}, {heartbeats} heartbeat(s) asked, "
          f"${ledger.dollars:.6f} paid = productive {ledger.productive_dollars:.6f} + stall "
          f"{ledger.stall_dollars:.6f} + lost {ledger.lost_dollars:.6f}")


# --- step 7 -------------------------------------------------------------------


def tour_checkpoint(context):
    # The scheduler's state travels in the checkpoint too: registered with the engine, no container of our own.
    scheduler = frugal.Scheduler(context, schedule="cosine", schedule_options=COSINE,
                                 policies=[("checkpoint_cadence", {"heartbeat_interval_s": 60.0})])

    def step_scheduler(first, last):
        for i in range(first, last + 1):
            scheduler.step(frugal.Telemetry(step=10 * i, wall_time_s=30.0 * i, tokens=10 * i * 2048,
                                            loss=4.0 - 0.05 * i, nodes=2, resource=frugal.ResourceClass.SPOT,
                                            price_per_node_hour=1.10))

    metadata = b"step=100"
    stream = Lcg(17)
    expected_weights = stream.uniforms(1024)
    expected_cursor = np.array([1, 2, 3, 4], dtype=np.int64)
    # torch's memory when torch is there, numpy's otherwise; frugal borrows it either way.
    weights = torch.from_numpy(expected_weights.copy()) if torch is not None else expected_weights.copy()
    cursor = expected_cursor.copy()
    root = tempfile.mkdtemp(prefix="frugal-python-tour-")
    try:
        with frugal.Store(context, "fs", root=root) as store, frugal.CheckpointEngine(store) as engine:
            engine.register("weights", weights)
            engine.register("cursor", cursor)
            engine.register_scheduler("scheduler", scheduler)
            step_scheduler(1, 10)
            saved = engine.save(step=100, kind=frugal.CheckpointKind.FULL, metadata=metadata, wait=True)
            saved_ledger = scheduler.ledger()
            weights[:] = 0
            cursor[:] = 0
            step_scheduler(11, 20)  # training went on past the checkpoint
            info, restored_metadata = engine.restore()
            restored_ledger = scheduler.ledger()
    finally:
        scheduler.close()
        shutil.rmtree(root, ignore_errors=True)
    expect(info.name == saved.name, f"checkpoint: restored {info.name!r}, the save wrote {saved.name!r}")
    expect(info.step == 100, f"checkpoint: restored step {info.step}, not 100")
    weights_back = weights.numpy() if torch is not None else weights
    expect(weights_back.tobytes() == expected_weights.tobytes(), "checkpoint: the restored weights differ")
    expect(cursor.tobytes() == expected_cursor.tobytes(), f"checkpoint: the restored cursor is {cursor.tolist()}")
    expect(restored_metadata == metadata, f"checkpoint: the restored metadata is {restored_metadata!r}")
    expect(info.not_restored == (), f"checkpoint: the restore left {info.not_restored} as they were")
    expect(restored_ledger == saved_ledger,
           f"checkpoint: the restored scheduler's ledger is {restored_ledger}, the save had {saved_ledger}")
    tensor_bytes = expected_weights.nbytes + expected_cursor.nbytes
    print(f"checkpoint: saved and restored {info.name}: step {info.step}, {tensor_bytes} tensor bytes back, "
          f"metadata \"{restored_metadata.decode()}\", scheduler back at ${restored_ledger.dollars:.6f} paid")


def main():
    steps = (tour_schedule, tour_pack, tour_route, tour_quantize, tour_scheduler, tour_checkpoint)
    number = 1
    try:
        with tour_plugins() as context:
            for number, step in enumerate(steps, start=2):
                step(context)
    except (Mismatch, frugal.FrugalError) as error:
        print(f"mismatch: {error}" if isinstance(error, Mismatch) else f"error: {error}", file=sys.stderr)
        print(f"tour failed at step {number} of 7", file=sys.stderr)
        return 1
    print("tour: all 7 steps passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
