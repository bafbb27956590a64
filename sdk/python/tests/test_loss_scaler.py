"""The loss scaler: growth, back-off, floor and ceiling, state round trips, bad states and bad options."""

import math
import struct
import unittest

from support import frugal

OPTIONS = {"init_scale": 1024.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 5,
           "min_scale": 16.0, "max_scale": 4096.0}


class LossScalerTest(unittest.TestCase):
    def test_defaults_are_the_headers(self):
        with frugal.LossScaler() as scaler:
            self.assertEqual(scaler.scale, 65536.0)
            self.assertEqual(scaler.status(), frugal.LossScalerStatus(scale=65536.0, clean_steps=0, skipped_steps=0))
            for _ in range(1999):
                self.assertTrue(scaler.update(False))
            self.assertEqual(scaler.scale, 65536.0)
            self.assertTrue(scaler.update(False))  # the 2000th clean step grows by 2
            self.assertEqual(scaler.scale, 131072.0)
            self.assertFalse(scaler.update(True))  # backs off by 0.5
            self.assertEqual(scaler.scale, 65536.0)

    def test_growth_after_growth_interval_clean_steps(self):
        with frugal.LossScaler(OPTIONS) as scaler:
            for step in range(1, 5):
                self.assertTrue(scaler.update(False))
                self.assertEqual(scaler.scale, 1024.0)
                self.assertEqual(scaler.status().clean_steps, step)
            self.assertTrue(scaler.update(False))
            self.assertEqual(scaler.scale, 1024.0 * 3.0)  # initial * growth_factor
            self.assertEqual(scaler.status(), frugal.LossScalerStatus(scale=3072.0, clean_steps=0, skipped_steps=0))
            for _ in range(5):
                scaler.update(False)
            self.assertEqual(scaler.scale, 4096.0)  # min(3072 * 3, max_scale)

    def test_found_inf_backs_off_reports_a_skip_and_resets_the_counter(self):
        with frugal.LossScaler(OPTIONS) as scaler:
            scaler.update(False)
            scaler.update(False)
            self.assertFalse(scaler.update(True))
            self.assertEqual(scaler.status(), frugal.LossScalerStatus(scale=256.0, clean_steps=0, skipped_steps=1))
            self.assertFalse(scaler.update(True))
            self.assertFalse(scaler.update(True))  # 256 * 0.25^2 = 16, the floor
            self.assertFalse(scaler.update(True))
            self.assertEqual(scaler.status(), frugal.LossScalerStatus(scale=16.0, clean_steps=0, skipped_steps=4))
            # The counter restarted: growth needs five new clean steps.
            for _ in range(4):
                self.assertTrue(scaler.update(False))
            self.assertEqual(scaler.scale, 16.0)
            self.assertTrue(scaler.update(False))
            self.assertEqual(scaler.scale, 48.0)

    def test_options_object_and_keywords_merge(self):
        with frugal.Options(init_scale=64.0, max_scale=128.0) as options:
            with frugal.LossScaler(options, growth_interval=1) as scaler:
                scaler.update(False)
                self.assertEqual(scaler.scale, 128.0)
                scaler.update(False)
                self.assertEqual(scaler.scale, 128.0)  # the ceiling

    def test_state_round_trips_into_a_fresh_scaler(self):
        steps = [False, True, False, False, False]  # leaves clean_steps = 3 of 5
        later = [False, False, True, False, False, False, False]
        with frugal.LossScaler(OPTIONS) as first:
            for found_inf in steps:
                first.update(found_inf)
            state = first.status()
            self.assertEqual(state, frugal.LossScalerStatus(scale=256.0, clean_steps=3, skipped_steps=1))
            blob = first.export_state()
            # The core's framed blob: magic, format, then the fields and a checksum.
            self.assertEqual(blob[:4], b"FRLS")
            self.assertIn(struct.pack("<dqq", 256.0, 3, 1), blob)
            with frugal.LossScaler(OPTIONS) as second, frugal.LossScaler(OPTIONS) as third:
                second.import_state(blob)
                third.set_status(state)
                self.assertEqual(second.status(), state)
                self.assertEqual(third.status(), state)
                for found_inf in later:
                    want = first.update(found_inf)
                    self.assertEqual(second.update(found_inf), want)
                    self.assertEqual(third.update(found_inf), want)
                    self.assertEqual(second.scale, first.scale)
                    self.assertEqual(third.scale, first.scale)
                # The carried clean_steps mattered: the restored scalers grew after two steps (256 -> 768),
                # then backed off (192).
                self.assertEqual(second.status(), frugal.LossScalerStatus(scale=192.0, clean_steps=4, skipped_steps=2))

    def test_corrupt_blobs_are_data_corrupted_and_change_nothing(self):
        with frugal.LossScaler(OPTIONS) as scaler:
            scaler.update(True)
            before = scaler.status()
            blob = scaler.export_state()
            flipped = bytearray(blob)
            flipped[-9] ^= 1  # a byte of the fields: the checksum no longer matches
            cases = [(blob[:-1], "loss scaler state"), (bytes(flipped), "checksum"), (b"FRRS" + blob[4:], "magic 'FRRS' is not 'FRLS'")]
            for bad, message in cases:
                with self.subTest(message=message):
                    with self.assertRaises(frugal.FrugalError) as caught:
                        scaler.import_state(bad)
                    self.assertEqual(caught.exception.code, frugal.ErrorCode.DATA_CORRUPTED)
                    self.assertEqual(caught.exception.code_name, "DATA_CORRUPTED")
                    self.assertIn(message, caught.exception.message)
                    self.assertEqual(scaler.status(), before)

    def test_states_outside_the_configuration_are_refused_and_change_nothing(self):
        wide = dict(OPTIONS, min_scale=1.0, max_scale=65536.0, growth_interval=50)
        with frugal.LossScaler(OPTIONS) as scaler, frugal.LossScaler(wide) as source:
            scaler.update(False)
            before = scaler.status()
            cases = [
                # The message names the field and the value.
                (frugal.LossScalerStatus(scale=8192.0, clean_steps=0, skipped_steps=0), "scale"),
                (frugal.LossScalerStatus(scale=64.0, clean_steps=7, skipped_steps=0), "clean_steps"),
            ]
            for state, field in cases:
                with self.subTest(field=field):
                    source.set_status(state)
                    with self.assertRaises(frugal.FrugalError) as caught:
                        scaler.import_state(source.export_state())
                    self.assertEqual(caught.exception.code, frugal.ErrorCode.DATA_CORRUPTED)
                    self.assertIn(field, caught.exception.message)
                    self.assertEqual(scaler.status(), before)
            for state, message in [
                (frugal.LossScalerStatus(scale=8192.0, clean_steps=0, skipped_steps=0),
                 "restored scale 8192 must be in [16, 4096]"),
                (frugal.LossScalerStatus(scale=math.nan, clean_steps=0, skipped_steps=0),
                 "restored scale nan must be in [16, 4096]"),
                (frugal.LossScalerStatus(scale=64.0, clean_steps=5, skipped_steps=0), "restored clean_steps 5 must be in [0, "),
                (frugal.LossScalerStatus(scale=64.0, clean_steps=0, skipped_steps=-1),
                 "restored skipped_steps -1 must be >= 0"),
            ]:
                with self.subTest(message=message):
                    with self.assertRaises(frugal.FrugalError) as caught:
                        scaler.set_status(state)
                    self.assertEqual(caught.exception.code_name, "INVALID_ARGUMENT")
                    self.assertIn(message, caught.exception.message)
                    self.assertEqual(scaler.status(), before)
            with self.assertRaises(TypeError):
                scaler.set_status((64.0, 0, 0))

    def test_bad_options_are_invalid_argument_naming_them(self):
        cases = [
            ({"growth_factor": 1.0}, "growth_factor must be finite and > 1"),
            ({"backoff_factor": 1.0}, "backoff_factor must be in (0, 1)"),
            ({"growth_interval": 0}, "growth_interval must be >= 1"),
            ({"min_scale": 0.0}, "min_scale must be > 0"),
            ({"max_scale": math.inf}, "max_scale must be finite and >= min_scale"),
            ({"init_scale": 0.5}, "init_scale must be in [min_scale, max_scale]"),
            ({"growth_interval": 2.5}, "option 'growth_interval' has type double; expected int"),
            ({"init_scale": "big"}, "option 'init_scale' has type string; expected double"),
            ({"bogus": 1}, "unknown option 'bogus'"),
        ]
        for options, message in cases:
            with self.subTest(options=options):
                with self.assertRaises(frugal.FrugalError) as caught:
                    frugal.LossScaler(options)
                self.assertEqual(caught.exception.code, frugal.ErrorCode.INVALID_ARGUMENT)
                self.assertEqual(caught.exception.code_name, "INVALID_ARGUMENT")
                self.assertIn(message, caught.exception.message)
        # An integer init_scale is an INT option, which the core reads as a double.
        with frugal.LossScaler(init_scale=32, min_scale=2) as scaler:
            self.assertEqual(scaler.scale, 32.0)

    def test_closed_scaler_is_failed_precondition(self):
        scaler = frugal.LossScaler()
        scaler.close()
        scaler.close()  # idempotent
        for call in (lambda: scaler.scale, lambda: scaler.update(False), scaler.status, scaler.export_state):
            with self.assertRaises(frugal.FrugalError) as caught:
                call()
            self.assertEqual(caught.exception.code_name, "FAILED_PRECONDITION")
            self.assertIn("loss scaler is closed", caught.exception.message)


if __name__ == "__main__":
    unittest.main()
