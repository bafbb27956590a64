// Writes seeds for fuzz_state_import into the directory given: the state
// each configuration exports after some use, prefixed with its index.
#include <fstream>
#include <iostream>
#include <string>

#include "fuzz_support.hpp"
#include "state_targets.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_state_import_seeds DIR\n";
    return 2;
  }
  for (size_t i = 0; i < frugal::fuzz::state_target_count(); ++i) {
    auto target = frugal::fuzz::make_state_target(i);
    target->exercise();
    const auto blob = target->export_state();
    // A stateless configuration (current scaling) exports nothing: its seed
    // is the index alone, and the fuzzer still tries blobs on it.
    std::ofstream out(std::string(argv[1]) + "/generated-" + std::to_string(i), std::ios::binary);
    out.put(static_cast<char>(i));
    out.write(reinterpret_cast<const char*>(blob.data()), static_cast<std::streamsize>(blob.size()));
    if (!out) frugal::fuzz::finding("cannot write a seed into " + std::string(argv[1]));
  }
  return 0;
}
