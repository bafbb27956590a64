// Writes seeds for fuzz_policy_state into the directory given: per
// strategy, the state it exports after a short run (the strategy's index,
// then the blob), and for each one the state of a run whose times lie a
// hair past 0, so the fuzzer's first record (at time 0) is older than the
// state: the case where spot_phase must refuse, not crash.
#include <cmath>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "policy_state_targets.hpp"

namespace {

void write_seed(const std::string& path, std::size_t which, const std::vector<std::byte>& blob) {
  std::ofstream out(path, std::ios::binary);
  out.put(static_cast<char>(which));
  out.write(reinterpret_cast<const char*>(blob.data()), static_cast<std::streamsize>(blob.size()));
  if (!out) frugal::fuzz::finding("cannot write the seed " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_policy_state_seeds DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  for (std::size_t i = 0; i < frugal::fuzz::policy_count; ++i) {
    // Start times: a long run from 0 s, and one a few ulps past 0.
    const double starts[] = {0.0, std::nextafter(0.0, 1.0)};
    for (std::size_t s = 0; s < std::size(starts); ++s) {
      frugal::fuzz::with_policy(i, [&](auto& policy) {
        for (int64_t step = 1; step <= 64; ++step) {
          frugal_decision d{};
          d.struct_size = sizeof(d);
          const double t = s == 0 ? 60.0 * static_cast<double>(step) : starts[s] * static_cast<double>(step);
          const uint32_t flags = step % 16 == 0 ? FRUGAL_TELEMETRY_RESTARTED : 0u;
          policy.decide(frugal::fuzz::policy_record(t, step, 4.0 / static_cast<double>(step), flags), d);
        }
        write_seed(dir + "/generated-" + std::to_string(i) + "-" + std::to_string(s), i, policy.export_state());
      });
    }
  }
  return 0;
}
