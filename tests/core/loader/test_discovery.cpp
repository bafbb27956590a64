// Plugin discovery: FRUGAL_PLUGIN_PATH first, then the built-in directory
// next to libfrugal (no environment needed), then the host's directories;
// bad files and missing directories are recorded, never fatal.
#include <catch2/catch.hpp>

#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "test_helpers.hpp"

using namespace frugal;
namespace fs = std::filesystem;

namespace {

// A scratch directory removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "frugal-discovery-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Sets an environment variable for one scope, restoring what was there.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> previous;
  ScopedEnv(std::string variable, const std::string& value) : name(std::move(variable)) {
    if (const char* old = std::getenv(name.c_str())) previous = old;
    REQUIRE(setenv(name.c_str(), value.c_str(), 1) == 0);
  }
  ~ScopedEnv() {
    if (previous)
      setenv(name.c_str(), previous->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

// No system plugin directories: what this machine has installed there must
// not change the counts and orders these tests check.
struct NoSystemDirs : ScopedEnv {
  NoSystemDirs() : ScopedEnv("FRUGAL_SYSTEM_PLUGIN_DIRS", "") {}
};

std::string plugin_name_at(frugal_context* context, size_t index) {
  frugal_plugin_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_context_plugin_info(context, index, &info));
  return info.name;
}

// The *.so files of the built-in plugin directory.
size_t builtin_plugin_count() {
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(FRUGAL_BUILTIN_PLUGIN_DIR))
    if (entry.path().extension() == ".so") ++count;
  return count;
}

std::vector<std::pair<std::string, int>> failures_of(frugal_context* context) {
  std::vector<std::pair<std::string, int>> out;
  for (size_t i = 0; i < frugal_context_load_failure_count(context); ++i) {
    frugal_load_failure_info info{};
    info.struct_size = sizeof(info);
    host::check(frugal_context_load_failure(context, i, &info));
    out.emplace_back(info.message, info.code);
  }
  return out;
}

std::vector<char> file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::vector<char>& bytes, size_t length) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(length));
  REQUIRE(out);
}

// A cut point of a real plugin file and the reason its truncated copy must give.
struct Cut {
  const char* label;
  size_t length;
  const char* reason;
};

// Cut points taken from the plugin's own headers, so each one lands where it
// means the same whatever the toolchain: inside the ELF header, just after
// it, just after the program headers, inside the last PT_LOAD segment (the
// SIGBUS that dlopen used to take), half the file, and one byte short (only
// the section header table is cut: dlopen itself would not notice).
std::vector<Cut> cut_points(const std::vector<char>& image) {
  ElfW(Ehdr) header;
  REQUIRE(image.size() > sizeof(header));
  std::memcpy(&header, image.data(), sizeof(header));
  size_t last_load_offset = 0, last_load_size = 0;
  for (size_t i = 0; i < header.e_phnum; ++i) {
    ElfW(Phdr) segment;
    std::memcpy(&segment, image.data() + header.e_phoff + i * sizeof(segment), sizeof(segment));
    if (segment.p_type == PT_LOAD && segment.p_filesz > 0) {
      last_load_offset = segment.p_offset;
      last_load_size = segment.p_filesz;
    }
  }
  REQUIRE(last_load_size > 1);
  const size_t end_of_program_headers = header.e_phoff + header.e_phnum * sizeof(ElfW(Phdr));
  return {
      {"1_byte", 1, "shorter than an ELF header"},
      {"elf_header", sizeof(header), "program header table"},
      {"program_headers", end_of_program_headers, "PT_LOAD"},
      {"mid_segment", last_load_offset + last_load_size / 2, "PT_LOAD"},
      {"half", image.size() / 2, "past the end of the"},
      {"size_minus_1", image.size() - 1, "section header table"},
  };
}

}  // namespace

TEST_CASE("truncated copies of a plugin are refused before dlopen, naming the file and the cut") {
  TempDir dir;
  const auto image = file_bytes(test::plugin_path("alpha"));
  fs::copy_file(test::plugin_path("alpha"), dir.path / "alpha.so");
  fs::copy_file(test::plugin_path("newer_minor"), dir.path / "newer_minor.so");
  const auto cuts = cut_points(image);
  for (const auto& cut : cuts) write_bytes(dir.path / (std::string("cut_") + cut.label + ".so"), image, cut.length);

  test::CapturingContext c;
  host::check(frugal_context_add_plugin_dir(c.context.get(), dir.path.c_str()));
  size_t loaded = 0;
  REQUIRE(frugal_context_discover_plugins(c.context.get(), FRUGAL_DISCOVER_NO_ENV | FRUGAL_DISCOVER_NO_BUILTIN,
                                          &loaded) == nullptr);
  // The host survived; the good plugins around the broken copies loaded.
  CHECK(loaded == 2);
  REQUIRE(frugal_context_plugin_count(c.context.get()) == 2);
  CHECK(plugin_name_at(c.context.get(), 0) == "alpha");
  CHECK(plugin_name_at(c.context.get(), 1) == "newer");
  CHECK(test::lr_of(c.context.get(), "linear", 8) == Approx(4.0));

  const auto failures = failures_of(c.context.get());
  REQUIRE(failures.size() == cuts.size());
  // Failures come in file-name order: cut_1_byte, cut_elf_header, cut_half, ...
  std::vector<Cut> sorted = cuts;
  std::sort(sorted.begin(), sorted.end(),
            [](const Cut& a, const Cut& b) { return std::string(a.label) < std::string(b.label); });
  for (size_t i = 0; i < sorted.size(); ++i) {
    const std::string file = (dir.path / (std::string("cut_") + sorted[i].label + ".so")).string();
    INFO(sorted[i].label << ": " << failures[i].first);
    CHECK(failures[i].second == FRUGAL_ERR_PLUGIN_INVALID);
    CHECK(failures[i].first.find(file) != std::string::npos);
    CHECK(failures[i].first.find(sorted[i].reason) != std::string::npos);
    if (sorted[i].length > sizeof(ElfW(Ehdr)))
      CHECK(failures[i].first.find(std::to_string(sorted[i].length) + "-byte file") != std::string::npos);
    CHECK_FALSE(test::is_mapped(std::string("cut_") + sorted[i].label + ".so"));
  }
}

TEST_CASE("a dangling link, a FIFO and a directory named *.so are load failures with the reason, never opened") {
  TempDir dir;
  fs::copy_file(test::plugin_path("alpha"), dir.path / "alpha.so");
  fs::create_symlink(dir.path / "gone.so", dir.path / "dangling.so");
  REQUIRE(mkfifo((dir.path / "fifo.so").c_str(), 0600) == 0);  // opened for reading, it would block forever
  fs::create_directory(dir.path / "directory.so");

  test::CapturingContext c;
  host::check(frugal_context_add_plugin_dir(c.context.get(), dir.path.c_str()));
  size_t loaded = 0;
  REQUIRE(frugal_context_discover_plugins(c.context.get(), FRUGAL_DISCOVER_NO_ENV | FRUGAL_DISCOVER_NO_BUILTIN,
                                          &loaded) == nullptr);
  CHECK(loaded == 1);
  CHECK(plugin_name_at(c.context.get(), 0) == "alpha");

  const auto failures = failures_of(c.context.get());
  REQUIRE(failures.size() == 3);  // in file-name order
  CHECK(failures[0].second == FRUGAL_ERR_NOT_FOUND);
  CHECK(failures[0].first.find((dir.path / "dangling.so").string()) != std::string::npos);
  CHECK(failures[0].first.find("dangling symbolic link") != std::string::npos);
  CHECK(failures[0].first.find((dir.path / "gone.so").string()) != std::string::npos);
  CHECK(failures[1].second == FRUGAL_ERR_PLUGIN_INVALID);
  CHECK(failures[1].first.find((dir.path / "directory.so").string()) != std::string::npos);
  CHECK(failures[1].first.find("is a directory, not a regular file") != std::string::npos);
  CHECK(failures[2].second == FRUGAL_ERR_PLUGIN_INVALID);
  CHECK(failures[2].first.find((dir.path / "fifo.so").string()) != std::string::npos);
  CHECK(failures[2].first.find("is a FIFO, not a regular file") != std::string::npos);
  CHECK(c.logged("fifo.so"));

  // Loading the FIFO by name is refused the same way, without blocking.
  const auto direct = test::outcome(frugal_context_load_plugin(c.context.get(), (dir.path / "fifo.so").c_str()));
  CHECK(direct.code == FRUGAL_ERR_PLUGIN_INVALID);
  CHECK(direct.message.find("is a FIFO") != std::string::npos);
}

TEST_CASE("system plugin dirs come after the host's, each directory once, missing ones skipped silently") {
  TempDir env_dir, host_dir, system_a, system_b, links;
  fs::copy_file(test::plugin_path("alpha"), env_dir.path / "alpha.so");
  fs::copy_file(test::plugin_path("newer_minor"), host_dir.path / "newer_minor.so");
  fs::copy_file(test::plugin_path("older_minor"), system_a.path / "older_minor.so");
  std::ofstream(system_a.path / "garbage.so") << "not a shared library";
  std::ofstream(system_b.path / "text.so") << "not a shared library either";
  fs::create_directory_symlink(system_a.path, links.path / "system_a_again");
  // system_a three times (once through a link), the built-in dir again, a missing dir.
  const std::string system_list = system_a.path.string() + ":" + FRUGAL_BUILTIN_PLUGIN_DIR +
                                  "::" + system_b.path.string() + ":" + (links.path / "system_a_again").string() + ":" +
                                  (links.path / "missing").string() + ":" + system_a.path.string() + "/";
  ScopedEnv system("FRUGAL_SYSTEM_PLUGIN_DIRS", system_list);
  ScopedEnv env("FRUGAL_PLUGIN_PATH", env_dir.path.string());

  test::CapturingContext c;
  auto* ctx = c.context.get();
  host::check(frugal_context_add_plugin_dir(ctx, host_dir.path.c_str()));
  const size_t builtins = builtin_plugin_count();
  size_t loaded = 0;
  REQUIRE(frugal_context_discover_plugins(ctx, 0, &loaded) == nullptr);
  CHECK(loaded == builtins + 3);
  REQUIRE(frugal_context_plugin_count(ctx) == builtins + 3);
  CHECK(plugin_name_at(ctx, 0) == "alpha");             // FRUGAL_PLUGIN_PATH
  CHECK(plugin_name_at(ctx, 1) == "comm_local");        // built-in, first by name
  CHECK(plugin_name_at(ctx, builtins + 1) == "newer");  // host
  CHECK(plugin_name_at(ctx, builtins + 2) == "older");  // system

  // system_a was scanned once, before system_b: its bad file is one failure,
  // not three; the missing system dir and the built-in dir again add none.
  const auto failures = failures_of(ctx);
  REQUIRE(failures.size() == 2);
  CHECK(failures[0].second == FRUGAL_ERR_PLUGIN_INVALID);
  CHECK(failures[0].first.find((system_a.path / "garbage.so").string()) != std::string::npos);
  CHECK(failures[1].first.find((system_b.path / "text.so").string()) != std::string::npos);

  // FRUGAL_DISCOVER_NO_BUILTIN skips the system dirs with the built-in one.
  auto hermetic = host::make_context();
  host::check(frugal_context_add_plugin_dir(hermetic.get(), host_dir.path.c_str()));
  REQUIRE(frugal_context_discover_plugins(hermetic.get(), FRUGAL_DISCOVER_NO_BUILTIN, &loaded) == nullptr);
  CHECK(loaded == 2);
  CHECK(frugal_context_load_failure_count(hermetic.get()) == 0);
}

TEST_CASE("discovery scans FRUGAL_PLUGIN_PATH, then the built-in dir, then host dirs, and survives bad files") {
  TempDir env_dir, host_dir;
  fs::copy_file(test::plugin_path("alpha"), env_dir.path / "alpha.so");
  std::ofstream(env_dir.path / "garbage.so") << "not a shared library";
  std::ofstream(env_dir.path / "README.txt") << "ignored: not *.so";
  fs::copy_file(test::plugin_path("newer_minor"), host_dir.path / "newer_minor.so");
  const std::string missing = (env_dir.path / "missing").string();
  REQUIRE(setenv("FRUGAL_PLUGIN_PATH", (env_dir.path.string() + "::" + missing).c_str(), 1) == 0);
  NoSystemDirs no_system_dirs;

  test::CapturingContext c;
  auto* ctx = c.context.get();
  host::check(frugal_context_add_plugin_dir(ctx, host_dir.path.c_str()));
  // Built-in plugins sit between the environment's and the host's.
  const size_t builtins = builtin_plugin_count();
  size_t loaded = 0;
  REQUIRE(frugal_context_discover_plugins(ctx, 0, &loaded) == nullptr);
  CHECK(loaded == builtins + 2);
  REQUIRE(frugal_context_plugin_count(ctx) == builtins + 2);
  CHECK(plugin_name_at(ctx, 0) == "alpha");
  // The built-in directory is scanned in file-name order (comm_mpi is built
  // only where MPI was found, comm_nccl where CUDA and NCCL were).
  std::vector<std::string> expected{"comm_local"};
  if (fs::exists(test::builtin_path("comm_mpi"))) expected.emplace_back("comm_mpi");
  if (fs::exists(test::builtin_path("comm_nccl"))) expected.emplace_back("comm_nccl");
  for (const char* name : {"packer_seq", "policy_cost", "quant_fp8", "router_moe", "schedule_lr"}) {
    expected.emplace_back(name);
  }
  REQUIRE(builtins >= expected.size());
  for (size_t i = 0; i < expected.size(); ++i) CHECK(plugin_name_at(ctx, i + 1) == expected[i]);
  CHECK(plugin_name_at(ctx, builtins + 1) == "newer");

  const auto failures = failures_of(ctx);
  REQUIRE(failures.size() == 2);
  CHECK(failures[0].second == FRUGAL_ERR_PLUGIN_INVALID);
  CHECK(failures[0].first.find("garbage.so") != std::string::npos);
  CHECK(failures[1].second == FRUGAL_ERR_NOT_FOUND);
  CHECK(failures[1].first.find(missing) != std::string::npos);
  CHECK(failures[1].first.find("FRUGAL_PLUGIN_PATH") != std::string::npos);

  // The environment came first, so its plugin owns the shared short name.
  frugal_strategy_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(frugal_context_find_strategy(ctx, FRUGAL_KIND_SCHEDULE, "cosine", &info) == nullptr);
  CHECK(std::string(info.plugin_name) == "alpha");
  REQUIRE(frugal_context_find_strategy(ctx, FRUGAL_KIND_SCHEDULE, "schedule_lr/cosine", &info) == nullptr);
  CHECK(info.shadowed == 1);

  // Discovering again loads nothing new (same canonical paths).
  REQUIRE(frugal_context_discover_plugins(ctx, 0, &loaded) == nullptr);
  CHECK(loaded == 0);
  CHECK(frugal_context_plugin_count(ctx) == builtins + 2);
  unsetenv("FRUGAL_PLUGIN_PATH");
}

TEST_CASE("the built-in plugin dir is found next to libfrugal without any environment") {
  unsetenv("FRUGAL_PLUGIN_PATH");
  NoSystemDirs no_system_dirs;
  auto context = host::make_context();
  size_t loaded = 0;
  REQUIRE(frugal_context_discover_plugins(context.get(), 0, &loaded) == nullptr);
  CHECK(loaded >= 1);
  frugal_plugin_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(frugal_context_plugin_info(context.get(), 0, &info) == nullptr);
  CHECK(std::string(info.path) == fs::canonical(test::builtin_path("comm_local")).string());  // first by name
  CHECK(frugal_context_load_failure_count(context.get()) == 0);
}

TEST_CASE("discovery flags skip the environment and the built-in dir") {
  TempDir env_dir;
  fs::copy_file(test::plugin_path("alpha"), env_dir.path / "alpha.so");
  REQUIRE(setenv("FRUGAL_PLUGIN_PATH", env_dir.path.c_str(), 1) == 0);
  NoSystemDirs no_system_dirs;
  {
    auto context = host::make_context();
    size_t loaded = 99;
    REQUIRE(frugal_context_discover_plugins(context.get(), FRUGAL_DISCOVER_NO_ENV | FRUGAL_DISCOVER_NO_BUILTIN,
                                            &loaded) == nullptr);
    CHECK(loaded == 0);
  }
  {
    auto context = host::make_context();
    REQUIRE(frugal_context_discover_plugins(context.get(), FRUGAL_DISCOVER_NO_BUILTIN, nullptr) == nullptr);
    REQUIRE(frugal_context_plugin_count(context.get()) == 1);
    CHECK(plugin_name_at(context.get(), 0) == "alpha");
  }
  {
    auto context = host::make_context();
    REQUIRE(frugal_context_discover_plugins(context.get(), FRUGAL_DISCOVER_NO_ENV, nullptr) == nullptr);
    std::vector<std::string> names;
    for (size_t i = 0; i < frugal_context_plugin_count(context.get()); ++i)
      names.push_back(plugin_name_at(context.get(), i));
    CHECK(std::find(names.begin(), names.end(), "schedule_lr") != names.end());
    CHECK(std::find(names.begin(), names.end(), "alpha") == names.end());
  }
  unsetenv("FRUGAL_PLUGIN_PATH");
}

TEST_CASE("a host-added directory that does not exist is recorded, not fatal") {
  test::CapturingContext c;
  host::check(frugal_context_add_plugin_dir(c.context.get(), "/nonexistent/frugal/plugins"));
  REQUIRE(frugal_context_discover_plugins(c.context.get(), FRUGAL_DISCOVER_NO_ENV, nullptr) == nullptr);
  const auto failures = failures_of(c.context.get());
  REQUIRE(failures.size() == 1);
  CHECK(failures[0].first.find("/nonexistent/frugal/plugins") != std::string::npos);
  CHECK(failures[0].first.find("from host") != std::string::npos);
  CHECK(c.logged("/nonexistent/frugal/plugins"));
  CHECK(frugal_context_plugin_count(c.context.get()) >= 1);  // the built-in ones still load
}

TEST_CASE("failure strings stay valid while more failures are recorded") {
  test::CapturingContext c;
  const std::string first = (std::filesystem::path(FRUGAL_TEST_PLUGIN_DIR) / "no_entry.so").string();
  CHECK(test::outcome(frugal_context_load_plugin(c.context.get(), first.c_str())).code == FRUGAL_ERR_PLUGIN_INVALID);
  frugal_load_failure_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_context_load_failure(c.context.get(), 0, &info));
  const char* path = info.path;
  for (int i = 0; i < 50; ++i) {
    frugal_error* error =
        frugal_context_load_plugin(c.context.get(), ("/nonexistent/" + std::to_string(i) + ".so").c_str());
    frugal_error_destroy(error);
  }
  CHECK(frugal_context_load_failure_count(c.context.get()) == 51);
  CHECK(std::string(path) == first);
}
