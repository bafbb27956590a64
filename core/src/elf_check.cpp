#include "elf_check.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

namespace frugal {
namespace {

using Header = ElfW(Ehdr);
using Segment = ElfW(Phdr);
using Section = ElfW(Shdr);

constexpr unsigned char kHostClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
constexpr unsigned char kHostData = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

// The e_machine this core was built for; 0 where this list does not know
// the architecture (then the loader's own check is the only one).
constexpr uint16_t host_machine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__i386__)
  return EM_386;
#elif defined(__arm__)
  return EM_ARM;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__s390x__)
  return EM_S390;
#elif defined(__riscv)
  return EM_RISCV;
#else
  return 0;
#endif
}

// [offset, offset + count * entry) within `size`, without overflowing.
bool table_fits(uint64_t offset, uint64_t count, uint64_t entry, uint64_t size) {
  if (offset > size) return false;
  if (count != 0 && entry > (size - offset) / count) return false;
  return true;
}

// The sentence for a table or segment that ends past the file's end.
std::string past_end(const std::string& what, uint64_t offset, uint64_t length, uint64_t size) {
  return fmt::format(
      "{}, {} bytes at offset {}, ends past the end of the {}-byte file (truncated, or only partly "
      "copied?)",
      what, length, offset, size);
}

// e_phnum == PN_XNUM and e_shnum == 0 move the real counts into section 0;
// no shared object needs that many program headers, so PN_XNUM is refused,
// and the section count is read from section 0 only when e_shnum is 0.
std::string check_sections(const Header& header, uint64_t size, const ElfReadAt& read_at) {
  if (header.e_shoff == 0) return header.e_shnum == 0 ? "" : "e_shnum is nonzero but e_shoff is 0";
  if (header.e_shentsize != sizeof(Section))
    return fmt::format("section header entry size is {} bytes, not {}", header.e_shentsize, sizeof(Section));
  uint64_t count = header.e_shnum;
  if (count == 0) {
    if (!table_fits(header.e_shoff, 1, sizeof(Section), size))
      return past_end("the section header table", header.e_shoff, sizeof(Section), size);
    Section first{};
    if (!read_at(header.e_shoff, &first, sizeof(first))) return "section header 0 cannot be read";
    count = first.sh_size;
  }
  if (!table_fits(header.e_shoff, count, sizeof(Section), size))
    return past_end(fmt::format("the section header table of {} entries", count), header.e_shoff,
                    count * sizeof(Section), size);
  return "";
}

std::string check_segments(const Header& header, uint64_t size, const ElfReadAt& read_at) {
  if (header.e_phnum == PN_XNUM) return "e_phnum is PN_XNUM (extended numbering), which no plugin needs";
  if (header.e_phnum == 0) return "the file has no program headers, so nothing of it can be loaded";
  if (header.e_phentsize != sizeof(Segment))
    return fmt::format("program header entry size is {} bytes, not {}", header.e_phentsize, sizeof(Segment));
  if (!table_fits(header.e_phoff, header.e_phnum, sizeof(Segment), size))
    return past_end(fmt::format("the program header table of {} entries", header.e_phnum), header.e_phoff,
                    uint64_t{header.e_phnum} * sizeof(Segment), size);
  bool has_load = false, has_dynamic = false;
  for (uint64_t i = 0; i < header.e_phnum; ++i) {
    Segment segment{};
    if (!read_at(header.e_phoff + i * sizeof(Segment), &segment, sizeof(segment)))
      return fmt::format("program header {} cannot be read", i);
    if (segment.p_type != PT_LOAD && segment.p_type != PT_DYNAMIC) continue;
    const char* type = segment.p_type == PT_LOAD ? "PT_LOAD" : "PT_DYNAMIC";
    if (!table_fits(segment.p_offset, 1, segment.p_filesz, size))
      return past_end(fmt::format("segment {} ({})", i, type), segment.p_offset, segment.p_filesz, size);
    has_load |= segment.p_type == PT_LOAD;
    has_dynamic |= segment.p_type == PT_DYNAMIC;
  }
  if (!has_load) return "the file has no PT_LOAD segment, so nothing of it can be loaded";
  if (!has_dynamic) return "the file has no dynamic section (no PT_DYNAMIC segment): not a shared library";
  return "";
}

}  // namespace

std::string elf_image_problem(uint64_t size, const ElfReadAt& read_at) {
  unsigned char magic[SELFMAG] = {};
  if (size >= SELFMAG && (!read_at(0, magic, SELFMAG) || std::memcmp(magic, ELFMAG, SELFMAG) != 0))
    return "not an ELF file (it does not start with the ELF magic bytes)";
  if (size < sizeof(Header))
    return fmt::format(
        "the file is {} bytes, shorter than an ELF header ({} bytes): truncated, or only partly "
        "copied?",
        size, sizeof(Header));
  Header header{};
  if (!read_at(0, &header, sizeof(header))) return "the ELF header cannot be read";
  if (header.e_ident[EI_CLASS] != kHostClass)
    return fmt::format("ELF class {} is not this host's ({}-bit)", header.e_ident[EI_CLASS], sizeof(void*) * 8);
  if (header.e_ident[EI_DATA] != kHostData)
    return fmt::format("ELF byte order {} is not this host's ({})", header.e_ident[EI_DATA],
                       kHostData == ELFDATA2LSB ? "little-endian" : "big-endian");
  if (host_machine() != 0 && header.e_machine != host_machine())
    return fmt::format("built for ELF machine {}; this host is machine {}", header.e_machine, host_machine());
  if (header.e_type != ET_DYN)
    return fmt::format("ELF type is {}, not a shared object (ET_DYN = {})", header.e_type, ET_DYN);
  if (std::string problem = check_segments(header, size, read_at); !problem.empty()) return problem;
  return check_sections(header, size, read_at);
}

std::string elf_file_problem(const std::filesystem::path& path) {
  // O_NONBLOCK: should the file have become a FIFO since the caller's stat,
  // opening it returns at once instead of waiting for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fmt::format("it cannot be opened for reading: {}", std::strerror(errno));
  struct stat status {};
  std::string problem;
  if (::fstat(fd, &status) != 0) {
    problem = fmt::format("it cannot be examined: {}", std::strerror(errno));
  } else if (!S_ISREG(status.st_mode)) {
    problem = "it is not a regular file";
  } else {
    const ElfReadAt read_at = [fd](uint64_t offset, void* out, size_t length) {
      auto* bytes = static_cast<char*>(out);
      while (length > 0) {
        const ssize_t got = ::pread(fd, bytes, length, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        bytes += got;
        offset += static_cast<uint64_t>(got);
        length -= static_cast<size_t>(got);
      }
      return true;
    };
    problem = elf_image_problem(static_cast<uint64_t>(status.st_size), read_at);
  }
  ::close(fd);
  return problem;
}

}  // namespace frugal
