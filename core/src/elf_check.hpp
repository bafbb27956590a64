// A plugin file checked against its own ELF headers before dlopen. The
// dynamic loader trusts them: a file cut short (half-copied during an
// install) is mapped past its end and the first touch of a missing page
// kills the host with SIGBUS. This reader refuses such a file instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace frugal {

// Copies `length` bytes at `offset` of the image to `out`; false when they
// are not all there (read error, or the image ended first).
using ElfReadAt = std::function<bool(uint64_t offset, void* out, size_t length)>;

// Checks an image of `size` bytes, read only through `read_at` and only
// within [0, size): an ELF shared object of this host's class, byte order
// and machine whose ELF header, program header table, section header table
// and every PT_LOAD and PT_DYNAMIC segment lie inside the image. Returns ""
// when it does, else one sentence saying what is wrong (offsets and sizes
// included). Never throws for any bytes (fuzzed: tests/fuzz/fuzz_elf_check.cpp).
std::string elf_image_problem(uint64_t size, const ElfReadAt& read_at);

// elf_image_problem on the regular file at `path`, read with pread (not
// mmap: a file that shrinks while it is read must give an error, not
// SIGBUS). Returns the reason, or "" for a file that may be handed to dlopen.
std::string elf_file_problem(const std::filesystem::path& path);

}  // namespace frugal
