"""Schedules against their closed form; packing invariants; context and options basics."""

import math
import unittest

from support import COSINE, Lcg, context, frugal


def cosine(step):
    lr, min_lr, warmup, total = COSINE["lr"], COSINE["min_lr"], COSINE["warmup_steps"], COSINE["total_steps"]
    if step < warmup:
        return lr * (step + 1) / warmup
    if step < total:
        return min_lr + (lr - min_lr) * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    return min_lr


class ContextTest(unittest.TestCase):
    def test_versions(self):
        self.assertEqual(frugal.abi_version()[0], frugal.ABI_MAJOR)
        self.assertRegex(frugal.version_string(), r"^\d+\.\d+\.\d+$")

    def test_builtin_plugins_and_strategies(self):
        plugins = {plugin.name: plugin for plugin in context().plugins()}
        for name in ("packer_seq", "policy_cost", "quant_fp8", "router_moe", "schedule_lr", "store_fs"):
            self.assertIn(name, plugins)
            self.assertEqual(plugins[name].abi_major, frugal.ABI_MAJOR)
        schedules = {s.name for s in plugins["schedule_lr"].strategies}
        self.assertTrue({"constant", "cosine", "wsd"} <= schedules)
        found = context().find_strategy(frugal.StrategyKind.ROUTER, "topk_softmax")
        self.assertEqual((found.plugin_name, found.kind_name), ("router_moe", "router"))

    def test_options_keep_their_python_types(self):
        with frugal.Options(flag=True, count=3, rate=0.5, name="ffd") as options:
            self.assertEqual(options.to_dict(), {"flag": True, "count": 3, "rate": 0.5, "name": "ffd"})
            self.assertEqual(options.type_of("flag"), frugal.OptionType.BOOL)
            self.assertEqual(options.type_of("count"), frugal.OptionType.INT)
            options.set_parsed("count", "1e3")
            self.assertEqual(options.type_of("count"), frugal.OptionType.DOUBLE)
            self.assertEqual(options["count"], 1000.0)
            self.assertIsNone(options.type_of("absent"))


class ScheduleTest(unittest.TestCase):
    def test_cosine_matches_the_closed_form(self):
        with frugal.Schedule(context(), "cosine", COSINE) as schedule:
            for step in (0, 1, 50, 99, 100, 101, 325, 550, 999, 1000, 5000):
                want = cosine(step)
                self.assertLessEqual(abs(schedule.lr(step) - want), 1e-12 * want, step)

    def test_options_object_and_keywords_merge(self):
        with frugal.Options(lr=1.0) as options, frugal.Schedule(context(), "linear_warmup", options,
                                                                warmup_steps=4) as schedule:
            self.assertEqual([schedule.lr(s) for s in range(6)], [0.25, 0.5, 0.75, 1.0, 1.0, 1.0])


class PackerTest(unittest.TestCase):
    def setUp(self):
        stream = Lcg(7)
        self.lengths = [1 + stream.next() % 1024 for _ in range(256)]

    def test_invariants(self):
        with frugal.Packer(context(), "packer_seq", max_len=2048) as packer, packer.pack(self.lengths) as plan:
            ids = sorted(i for pack in plan.packs for i in pack)
            self.assertEqual(ids, list(range(256)))
            for pack, tokens in zip(plan.packs, plan.pack_tokens):
                self.assertEqual(sum(self.lengths[i] for i in pack), tokens)
                self.assertLessEqual(tokens, 2048)
            stats = plan.stats
            self.assertEqual(stats.real_tokens, sum(self.lengths))
            self.assertEqual(stats.packs, plan.pack_count)
            self.assertEqual(stats.lower_bound, math.ceil(sum(self.lengths) / 2048))
            self.assertGreaterEqual(stats.packs, stats.lower_bound_tight)
            self.assertAlmostEqual(stats.efficiency, stats.real_tokens / (stats.packs * 2048), places=12)
            self.assertGreaterEqual(stats.efficiency, 0.95)

    def test_varlen_positions_and_segments_of_a_pack(self):
        with frugal.Packer(context(), "packer_seq", max_len=2048) as packer, packer.pack(self.lengths) as plan:
            units = plan.pack_unit_lengths(0)
            cu_seqlens, max_seqlen = plan.varlen(0)
            running = [0]
            for length in units:
                running.append(running[-1] + length)
            self.assertEqual(list(cu_seqlens), running)
            self.assertEqual(max_seqlen, max(units))
            positions = plan.position_ids(0, 2048)
            segments = plan.segment_ids(0, 2048)
            want_positions = [p for length in units for p in range(length)]
            want_segments = [k + 1 for k, length in enumerate(units) for _ in range(length)]
            padding = 2048 - len(want_positions)
            self.assertEqual(list(positions), want_positions + [0] * padding)
            self.assertEqual(list(segments), want_segments + [0] * padding)

    def test_gather_masks_each_first_label(self):
        with frugal.Packer(context(), "packer_seq", max_len=8) as packer, packer.pack([3, 4]) as plan:
            self.assertEqual(plan.pack_count, 1)
            tokens, labels = plan.gather(0, [10, 11, 12, 20, 21, 22, 23], [0, 3, 7], out_length=8, pad_token=-1)
            order = plan.packs[0]
            rows = {0: [10, 11, 12], 1: [20, 21, 22, 23]}
            want = [tok for seq in order for tok in rows[seq]]
            self.assertEqual(list(tokens), want + [-1])
            want_labels = [lab for seq in order for lab in [-100] + rows[seq][1:]]
            self.assertEqual(list(labels), want_labels + [-100])

    def test_stream_hands_out_every_sequence(self):
        with frugal.Packer(context(), "packer_seq", max_len=2048) as packer, packer.stream(window=64) as stream:
            for sequence, length in enumerate(self.lengths):
                stream.push(sequence, length)
            stream.flush()
            with stream.pop() as plan:
                self.assertEqual(sorted(plan.sequence_ids), list(range(256)))
            self.assertEqual(stream.pending(), (0, 0))

    def test_overlong_sequence_is_refused(self):
        with frugal.Packer(context(), "packer_seq", max_len=16) as packer:
            with self.assertRaises(frugal.FrugalError) as caught:
                packer.pack([4, 17])
        self.assertEqual(caught.exception.code, frugal.ErrorCode.INVALID_ARGUMENT)


if __name__ == "__main__":
    unittest.main()
