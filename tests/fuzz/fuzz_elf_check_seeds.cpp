// Writes seeds for fuzz_elf_check into the directory given: the built-in
// plugin files this libfrugal discovers (real shared objects, whose
// headers and segments the fuzzer then mutates).
#include <filesystem>
#include <iostream>
#include <string>

#include "fuzz_support.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_elf_check_seeds DIR\n";
    return 2;
  }
  frugal_context* context = frugal::fuzz::plugin_context();
  for (size_t p = 0; p < frugal_context_plugin_count(context); ++p) {
    frugal_plugin_info info{};
    info.struct_size = sizeof info;
    frugal::fuzz::must(frugal_context_plugin_info(context, p, &info), "frugal_context_plugin_info");
    const std::filesystem::path from(info.path);
    std::filesystem::copy_file(from, std::filesystem::path(argv[1]) / from.filename(),
                               std::filesystem::copy_options::overwrite_existing);
  }
  return 0;
}
