"""What strategies declare about their options (OptionDecl), read back through the context."""

import dataclasses
import os
import unittest

from support import context, frugal

T = frugal.OptionType
SCHEDULE = frugal.StrategyKind.SCHEDULE
# A checkout holds the test plugins' source; a copy of these tests run against an install does not.
SOURCE_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def declared(name, kind, default=None, *, required=False, min=None, max=None, choices=None):
    """An OptionDecl as schedule_lr declares it, doc left out (compared apart)."""
    return frugal.OptionDecl(name=name, type=kind, required=required, default=default, min=min, max=max,
                             choices=choices, directory=False, doc="")


LR = declared("lr", T.DOUBLE, "0.001")
MIN_LR = declared("min_lr", T.DOUBLE, "0", min=0.0)
WARMUP = declared("warmup_steps", T.INT, "0", min=0.0)
TOTAL = declared("total_steps", T.INT, required=True, min=1.0)


def built_test_plugin(name):
    """<build>/tests/plugins/<name>.so of the build whose schedule_lr.so (<build>/lib/frugal/v2/plugins) is loaded."""
    schedule_lr = next(p for p in context().plugins() if p.name == "schedule_lr")
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(schedule_lr.path)))))
    return os.path.join(build, "tests", "plugins", name + ".so")


class OptionDeclTest(unittest.TestCase):
    def assert_declares(self, options, want):
        self.assertEqual([dataclasses.replace(option, doc="") for option in options], want)
        for option in options:
            self.assertIsInstance(option.type, frugal.OptionType, option.name)
            self.assertNotEqual(option.doc.strip(), "", f"{option.name} has no doc")

    def test_cosine_declares_its_four_options(self):
        self.assert_declares(context().strategy_options(SCHEDULE, "cosine"), [LR, MIN_LR, WARMUP, TOTAL])

    def test_sgdr_declares_bounds_and_choices(self):
        self.assert_declares(context().strategy_options(SCHEDULE, "sgdr"), [
            LR, MIN_LR, WARMUP,
            declared("cycle_steps", T.INT, required=True, min=1.0),
            declared("cycle_mult", T.INT, "1", min=1.0, max=1024.0),
            declared("restart_decay", T.DOUBLE, "1", max=1.0),
            declared("shape", T.STRING, "cosine", choices=("cosine", "linear")),
        ])

    def test_the_listing_and_the_lookup_agree(self):
        schedule_lr = next(p for p in context().plugins() if p.name == "schedule_lr")
        listed = {s.name: s.options for s in schedule_lr.strategies}
        self.assertEqual(len(listed["cosine"]), 4)
        for name in ("constant", "cosine", "sgdr", "wsd"):
            self.assertEqual(listed[name], context().find_strategy(SCHEDULE, name).options, name)
            self.assertEqual(listed[name], context().find_strategy(SCHEDULE, "schedule_lr/" + name).options, name)

    def test_a_strategy_declaring_nothing_lists_no_options(self):
        path = built_test_plugin("alpha")
        if not os.path.isfile(path):
            if os.path.isfile(os.path.join(SOURCE_TREE, "tests", "plugins", "test_plugin.cpp")):
                self.fail(f"{path} is missing: build the target test_plugin_alpha")
            self.skipTest(f"no test plugin {path} (tests run outside the source tree)")
        with frugal.Context() as ctx:
            ctx.set_log_callback(None)  # alpha's strategy of an unknown kind is skipped with a warning
            ctx.load_plugin(path)
            (alpha,) = ctx.plugins()
            self.assertIn("linear", [s.name for s in alpha.strategies])
            self.assertEqual([s.options for s in alpha.strategies], [()] * len(alpha.strategies))
            self.assertEqual(ctx.strategy_options(SCHEDULE, "linear"), [])

    def test_an_unknown_strategy_is_not_found(self):
        with self.assertRaises(frugal.FrugalError) as caught:
            context().strategy_options(SCHEDULE, "no_such_schedule")
        self.assertEqual(caught.exception.code, frugal.ErrorCode.NOT_FOUND)
        self.assertIn("no_such_schedule", caught.exception.message)


if __name__ == "__main__":
    unittest.main()
