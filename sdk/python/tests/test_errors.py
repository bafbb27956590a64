"""Errors from the core arrive as FrugalError with the frugal code, its name and the message."""

import unittest

from support import context, frugal

NOT_FOUND = frugal.ErrorCode.NOT_FOUND
INVALID_ARGUMENT = frugal.ErrorCode.INVALID_ARGUMENT


class UnknownStrategyTest(unittest.TestCase):
    """Every family reports an unknown strategy name as NOT_FOUND naming it."""

    def assert_not_found(self, make):
        with self.assertRaises(frugal.FrugalError) as caught:
            make()
        error = caught.exception
        self.assertEqual(error.code, NOT_FOUND)
        self.assertEqual(error.code, 2)
        self.assertEqual(error.code_name, "NOT_FOUND")
        self.assertIn("no_such_strategy", error.message)
        self.assertEqual(str(error), f"[NOT_FOUND] {error.message}")

    def test_schedule(self):
        self.assert_not_found(lambda: frugal.Schedule(context(), "no_such_strategy"))

    def test_packer(self):
        self.assert_not_found(lambda: frugal.Packer(context(), "no_such_strategy", max_len=16))

    def test_quantizer(self):
        self.assert_not_found(lambda: frugal.Quantizer(context(), "no_such_strategy"))

    def test_router(self):
        self.assert_not_found(lambda: frugal.Router(context(), "no_such_strategy", experts=4))

    def test_store(self):
        self.assert_not_found(lambda: frugal.Store(context(), "no_such_strategy", root="."))

    def test_scheduler_policy(self):
        self.assert_not_found(lambda: frugal.Scheduler(context(), policies=["no_such_strategy"]))

    def test_find_strategy(self):
        self.assert_not_found(lambda: context().find_strategy(frugal.StrategyKind.SCHEDULE, "no_such_strategy"))


class BadOptionTest(unittest.TestCase):
    """Bad option values and names are INVALID_ARGUMENT with a message naming the option."""

    def assert_invalid(self, make, *words):
        with self.assertRaises(frugal.FrugalError) as caught:
            make()
        self.assertEqual(caught.exception.code, INVALID_ARGUMENT, caught.exception)
        self.assertEqual(caught.exception.code_name, "INVALID_ARGUMENT")
        for word in words:
            self.assertIn(word, caught.exception.message)

    def test_schedule_unknown_option(self):
        self.assert_invalid(lambda: frugal.Schedule(context(), "cosine", not_an_option=1), "not_an_option")

    def test_schedule_option_of_wrong_type(self):
        self.assert_invalid(lambda: frugal.Schedule(context(), "cosine", lr="fast"), "lr")

    def test_packer_without_max_len(self):
        self.assert_invalid(lambda: frugal.Packer(context(), "packer_seq"), "max_len")

    def test_quantizer_unknown_format(self):
        self.assert_invalid(lambda: frugal.Quantizer(context(), "quant_fp8", format="e9m9"), "e9m9")

    def test_router_without_experts(self):
        self.assert_invalid(lambda: frugal.Router(context(), "topk_softmax", k=2), "experts")

    def test_store_without_root(self):
        self.assert_invalid(lambda: frugal.Store(context(), "fs"), "root")

    def test_option_name_refused_by_options(self):
        self.assert_invalid(lambda: frugal.Options({"bad name": 1}))

    def test_option_value_of_unsupported_python_type(self):
        with self.assertRaises(TypeError):
            frugal.Options(lr=[1, 2])


class CallErrorTest(unittest.TestCase):
    def test_negative_step_is_out_of_range(self):
        with frugal.Schedule(context(), "constant", lr=0.1) as schedule:
            with self.assertRaises(frugal.FrugalError) as caught:
                schedule.lr(-1)
        self.assertEqual(caught.exception.code_name, "OUT_OF_RANGE")

    def test_empty_pack_is_invalid(self):
        with frugal.Packer(context(), "packer_seq", max_len=16) as packer:
            with self.assertRaises(frugal.FrugalError) as caught:
                packer.pack([])
        self.assertEqual(caught.exception.code, INVALID_ARGUMENT)

    def test_closed_handle_is_failed_precondition(self):
        schedule = frugal.Schedule(context(), "constant", lr=0.1)
        schedule.close()
        schedule.close()  # idempotent
        with self.assertRaises(frugal.FrugalError) as caught:
            schedule.lr(0)
        self.assertEqual(caught.exception.code, frugal.ErrorCode.FAILED_PRECONDITION)

    def test_bad_store_key(self):
        with self.assertRaises(frugal.FrugalError) as caught:
            frugal.check_key("../escape")
        self.assertEqual(caught.exception.code, INVALID_ARGUMENT)


if __name__ == "__main__":
    unittest.main()
