// libFuzzer target: the ELF header check that runs on every plugin file
// before dlopen (core/src/elf_check.cpp). Its input is a file from disk,
// i.e. outside bytes: whatever they are, it must return (a reason or "")
// without reading outside them. Build with clang -fsanitize=fuzzer,address,
// undefined and core/src/elf_check.cpp; seed with any built plugin (*.so).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "elf_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const frugal::ElfReadAt read_at = [data, size](uint64_t offset, void* out, size_t length) {
    if (offset > size || length > size - offset) return false;
    std::memcpy(out, data + offset, length);
    return true;
  };
  (void)frugal::elf_image_problem(size, read_at);
  return 0;
}
