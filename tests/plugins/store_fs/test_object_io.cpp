// store_fs's byte mover in process (plugins/store_fs/algorithms/object_io):
// which bytes go with O_DIRECT and which through the page cache, for
// aligned and unaligned buffers, tails, a refused O_DIRECT and a budget
// that ends mid-block, with the file's bytes checked against the source
// every time; and ranged reads that never touch memory outside their span.
//
// Where the test directory's filesystem refuses O_DIRECT, the same cases
// check the fallback instead (every byte through the page cache).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "algorithms/object_io.hpp"
#include "algorithms/write_budget.hpp"
#include "test_seed.hpp"

using namespace frugal::store_fs;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kBlock = kDirectAlign;

struct Freer {
  void operator()(unsigned char* p) const noexcept { std::free(p); }
};
using Aligned = std::unique_ptr<unsigned char, Freer>;

// `bytes` random bytes (plus one spare block) at a 2 MiB boundary, as the
// checkpoint engine's snapshot buffer.
Aligned random_buffer(uint64_t bytes, std::mt19937_64& rng) {
  void* memory = nullptr;
  REQUIRE(posix_memalign(&memory, size_t{2} << 20, bytes + kBlock) == 0);
  auto* p = static_cast<unsigned char*>(memory);
  for (uint64_t i = 0; i < bytes + kBlock; ++i) p[i] = static_cast<unsigned char>(rng());
  return Aligned(p);
}

class ScratchFile {
 public:
  ScratchFile() {
    std::string pattern = (fs::temp_directory_path() / "frugal_object_io.XXXXXX").string();
    const int fd = ::mkstemp(pattern.data());
    REQUIRE(fd >= 0);
    ::close(fd);
    path_ = pattern;
  }
  ~ScratchFile() { ::unlink(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  // A fresh descriptor on the emptied file, as put opens its temp file.
  int open_for_write() const { return ::open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC); }
  int open_for_read() const { return ::open(path_.c_str(), O_RDONLY | O_CLOEXEC); }
  std::vector<unsigned char> contents() const {
    std::vector<unsigned char> bytes(static_cast<size_t>(fs::file_size(path_)));
    const int fd = open_for_read();
    REQUIRE(fd >= 0);
    REQUIRE(::pread(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()));
    ::close(fd);
    return bytes;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Whether the temp directory's filesystem takes O_DIRECT at all: the tests
// then expect the direct path, otherwise the fallback.
bool direct_supported() {
  static const bool supported = [] {
    ScratchFile probe;
    const int fd = probe.open_for_write();
    const int flags = ::fcntl(fd, F_GETFL);
    const bool ok = ::fcntl(fd, F_SETFL, flags | O_DIRECT) == 0;
    ::close(fd);
    return ok;
  }();
  return supported;
}

// Pages of the file resident in the page cache, counted with mincore.
size_t resident_pages(const ScratchFile& file) {
  const int fd = file.open_for_read();
  REQUIRE(fd >= 0);
  const auto size = static_cast<size_t>(fs::file_size(file.path()));
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  REQUIRE(map != MAP_FAILED);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  REQUIRE(::mincore(map, size, resident.data()) == 0);
  ::munmap(map, size);
  return static_cast<size_t>(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }));
}

struct Written {
  WriteReport report;
  std::vector<unsigned char> file;
};

// `resident`: where to count the file's cached pages right after the
// write, before reading it back caches them.
Written write_through(const ScratchFile& file, const unsigned char* data, uint64_t size, const WriteRequest& request,
                      int64_t budget_limit = -1, size_t* resident = nullptr) {
  WriteBudget budget(budget_limit);
  const int fd = file.open_for_write();
  REQUIRE(fd >= 0);
  Written out;
  out.report = write_object(fd, data, size, request, budget);
  REQUIRE(::fsync(fd) == 0);
  REQUIRE(::close(fd) == 0);
  if (resident != nullptr) *resident = resident_pages(file);
  out.file = file.contents();
  return out;
}

bool same_bytes(const std::vector<unsigned char>& file, const unsigned char* data, uint64_t size) {
  return file.size() == size && std::equal(file.begin(), file.end(), data);
}

}  // namespace

TEST_CASE("an aligned buffer goes to the disk with O_DIRECT and its tail through the page cache, bytes exact") {
  const uint64_t seed = frugal_test::test_seed();
  CAPTURE(seed, direct_supported());
  std::mt19937_64 rng(seed);
  ScratchFile file;
  // Below, at and around one block; across a 64 MiB direct piece.
  for (const uint64_t size : {uint64_t{0}, uint64_t{1}, kBlock - 1, kBlock, kBlock + 1, 3 * kBlock + 77,
                              (uint64_t{64} << 20) + 5 * kBlock + 4093, uint64_t{1} << 20}) {
    CAPTURE(size);
    const Aligned data = random_buffer(size, rng);
    const Written w = write_through(file, data.get(), size, WriteRequest{.direct = true});
    REQUIRE(w.report.err == 0);
    CHECK(same_bytes(w.file, data.get(), size));
    const uint64_t whole_blocks = size / kBlock * kBlock;
    if (direct_supported()) {
      CHECK_FALSE(w.report.direct_refused);
      CHECK(w.report.direct_bytes == whole_blocks);
      CHECK(w.report.buffered_bytes == size - whole_blocks);
    } else {
      CHECK(w.report.direct_refused == (size >= kBlock));
      CHECK(w.report.direct_bytes == 0);
      CHECK(w.report.buffered_bytes == size);
    }
  }
}

TEST_CASE("a buffer off the block alignment goes through the page cache, bytes exact") {
  const uint64_t seed = frugal_test::test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  ScratchFile file;
  const uint64_t size = 5 * kBlock + 123;
  const Aligned data = random_buffer(size + 1, rng);
  const Written w = write_through(file, data.get() + 1, size, WriteRequest{.direct = true});
  REQUIRE(w.report.err == 0);
  CHECK(same_bytes(w.file, data.get() + 1, size));
  CHECK(w.report.direct_bytes == 0);
  CHECK(w.report.buffered_bytes == size);
  CHECK_FALSE(w.report.direct_refused);  // not tried: the buffer ruled it out
}

TEST_CASE("a refused O_DIRECT falls back to the page cache, or fails with EOPNOTSUPP when direct is required") {
  const uint64_t seed = frugal_test::test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  ScratchFile file;
  const uint64_t size = 9 * kBlock + 5;
  const Aligned data = random_buffer(size, rng);

  const Written fallback = write_through(file, data.get(), size, WriteRequest{.direct = true, .refuse_direct = true});
  REQUIRE(fallback.report.err == 0);
  CHECK(fallback.report.direct_refused);
  CHECK(fallback.report.direct_bytes == 0);
  CHECK(same_bytes(fallback.file, data.get(), size));

  const Written required = write_through(file, data.get(), size,
                                         WriteRequest{.direct = true, .require_direct = true, .refuse_direct = true});
  CHECK(required.report.err == EOPNOTSUPP);
  CHECK(required.report.direct_refused);
  CHECK(required.file.empty());  // nothing written before the refusal
}

TEST_CASE("a budget that ends mid-block writes exactly up to it, then fails as a full disk") {
  const uint64_t seed = frugal_test::test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  ScratchFile file;
  const uint64_t size = 16 * kBlock;
  const Aligned data = random_buffer(size, rng);
  for (const int64_t limit : {int64_t{0}, int64_t{10000}, int64_t{2 * kBlock}, int64_t{7 * kBlock + 1}}) {
    CAPTURE(limit);
    const Written w = write_through(file, data.get(), size, WriteRequest{.direct = true}, limit);
    CHECK(w.report.err == ENOSPC);
    CHECK(same_bytes(w.file, data.get(), static_cast<uint64_t>(limit)));
    CHECK(w.report.direct_bytes + w.report.buffered_bytes == static_cast<uint64_t>(limit));
    // Whole blocks of the budget go direct where the filesystem allows it.
    if (direct_supported() && limit % static_cast<int64_t>(kBlock) == 0)
      CHECK(w.report.direct_bytes == static_cast<uint64_t>(limit));
  }
}

TEST_CASE("direct and streamed writes leave the page cache empty, plain buffered ones fill it") {
  if (!direct_supported()) {
    WARN("the temp directory's filesystem refuses O_DIRECT: nothing to observe");
    return;
  }
  const uint64_t seed = frugal_test::test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  ScratchFile file;
  const uint64_t size = uint64_t{8} << 20;
  const Aligned data = random_buffer(size, rng);

  size_t resident = 0;
  const Written direct = write_through(file, data.get(), size, WriteRequest{.direct = true}, -1, &resident);
  REQUIRE(direct.report.direct_bytes == size);
  CHECK(resident == 0);
  CHECK(same_bytes(direct.file, data.get(), size));

  // Streamed writeback drops each piece from the cache once it is on disk.
  const Written streamed =
      write_through(file, data.get(), size, WriteRequest{.direct = false, .stream_writeback = true}, -1, &resident);
  REQUIRE(streamed.report.buffered_bytes == size);
  CHECK(resident == 0);
  CHECK(same_bytes(streamed.file, data.get(), size));

  // The control: the same bytes through the page cache without streamed
  // writeback stay cached, so the count above could have been nonzero.
  const Written plain =
      write_through(file, data.get(), size, WriteRequest{.direct = false, .stream_writeback = false}, -1, &resident);
  REQUIRE(plain.report.buffered_bytes == size);
  CHECK(resident > 0);
  CHECK(same_bytes(plain.file, data.get(), size));
}

TEST_CASE("ranged reads return exact bytes, go direct where offset and address allow, never touch outside") {
  const uint64_t seed = frugal_test::test_seed();
  CAPTURE(seed, direct_supported());
  std::mt19937_64 rng(seed);
  ScratchFile file;
  const uint64_t size = (uint64_t{3} << 20) + 123;
  const Aligned data = random_buffer(size, rng);
  REQUIRE(write_through(file, data.get(), size, WriteRequest{.direct = false}).report.err == 0);

  constexpr unsigned char kGuard = 0xa5;
  for (int round = 0; round < 200; ++round) {
    uint64_t offset = rng() % (size + 1);
    uint64_t length = rng() % (size - offset + 1);
    if (round % 4 == 0) offset = offset / kBlock * kBlock;  // block-aligned starts too
    if (round % 8 == 0) length = size - offset;             // and reads to the end
    // The destination sits at the file offset's phase within a block (the
    // middle can go direct) or one byte off it (it cannot), with a block
    // of guard bytes on either side.
    const bool in_phase = round % 2 == 0;
    const uint64_t phase = (offset + (in_phase ? 0 : 1)) % kBlock;
    std::vector<unsigned char> raw(static_cast<size_t>(length + 4 * kBlock), kGuard);
    auto* base = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(raw.data()) + kBlock + kBlock - 1) /
                                                  kBlock * kBlock);
    unsigned char* dst = base + phase;
    CAPTURE(offset, length, in_phase);
    const int fd = file.open_for_read();
    REQUIRE(fd >= 0);
    const ReadReport r = read_range(fd, offset, dst, length, ReadRequest{.direct = true});
    ::close(fd);
    REQUIRE(r.err == 0);
    REQUIRE(std::equal(dst, dst + length, data.get() + offset));
    CHECK(std::all_of(raw.data(), dst, [](unsigned char b) { return b == kGuard; }));
    CHECK(std::all_of(dst + length, raw.data() + raw.size(), [](unsigned char b) { return b == kGuard; }));
    const uint64_t first = (offset + kBlock - 1) / kBlock * kBlock, last = (offset + length) / kBlock * kBlock;
    const uint64_t middle = in_phase && last > first ? last - first : 0;
    CHECK(r.direct_bytes == (direct_supported() ? middle : 0));
  }
}

TEST_CASE("a read past the end of the file reports ENODATA, and a refused O_DIRECT still reads exact bytes") {
  const uint64_t seed = frugal_test::test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  ScratchFile file;
  const uint64_t size = 6 * kBlock;
  const Aligned data = random_buffer(size, rng);
  REQUIRE(write_through(file, data.get(), size, WriteRequest{.direct = true}).report.err == 0);
  const Aligned into = random_buffer(size + kBlock, rng);

  int fd = file.open_for_read();
  const ReadReport past = read_range(fd, 0, into.get(), size + kBlock, ReadRequest{.direct = true});
  ::close(fd);
  CHECK(past.err == ENODATA);

  fd = file.open_for_read();
  const ReadReport refused = read_range(fd, 0, into.get(), size, ReadRequest{.direct = true, .refuse_direct = true});
  ::close(fd);
  REQUIRE(refused.err == 0);
  CHECK(refused.direct_refused);
  CHECK(refused.direct_bytes == 0);
  CHECK(std::equal(into.get(), into.get() + size, data.get()));
}
