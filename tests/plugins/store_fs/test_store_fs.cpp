// The store_fs plugin ("fs"), loaded from disk and driven through the
// public C API: byte-exact round trips, listing order and filtering,
// removal, keys that try to leave the root, symbolic links, an injected
// full disk, option errors and concurrent use. Each test works in its own
// mkdtemp directory and checks the files on disk as well as the API.
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "frugal/checkpoint.h"
#include "frugal/store_vtable.h"
#include "test_helpers.hpp"
#include "test_seed.hpp"

using namespace frugal;
using frugal::test::outcome;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<unsigned char>;

// A fresh directory for one test, removed with everything in it afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "frugal_store_fs.XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct StoreCloser {
  void operator()(frugal_store* s) const noexcept { frugal_store_destroy(s); }
};
using StorePtr = std::unique_ptr<frugal_store, StoreCloser>;

// A context with store_fs loaded, and a store opened on it.
struct OpenStore {
  host::ContextPtr context;
  StorePtr store;
  frugal_store* get() const { return store.get(); }
};

host::ContextPtr fs_context() {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), test::builtin_path("store_fs").c_str()));
  return context;
}

// Opens "fs" on `root`; fsync stays on (the default) unless a test says otherwise.
OpenStore open_store(const fs::path& root, std::initializer_list<std::pair<const char*, int64_t>> ints = {}) {
  OpenStore s{fs_context(), nullptr};
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
  for (const auto& [name, value] : ints) host::check(frugal_options_set_int(options.get(), name, value));
  frugal_store* store = nullptr;
  host::check(frugal_store_create(s.context.get(), "fs", options.get(), &store));
  s.store.reset(store);
  return s;
}

Bytes random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes bytes(n);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  return bytes;
}

void put(frugal_store* store, const std::string& key, const Bytes& bytes) {
  host::check(frugal_store_put(store, key.c_str(), bytes.data(), bytes.size()));
}

Bytes get(frugal_store* store, const std::string& key) {
  uint64_t size = 0;
  host::check(frugal_store_size(store, key.c_str(), &size));
  Bytes bytes(size);
  host::check(frugal_store_read(store, key.c_str(), 0, bytes.data(), size));
  return bytes;
}

Bytes file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

struct Listed {
  std::string key;
  uint64_t size;
  bool operator==(const Listed&) const = default;
};

// Everything `list` yields for `prefix`; stops after `limit` keys.
std::vector<Listed> list_keys(frugal_store* store, const std::string& prefix, size_t limit = SIZE_MAX) {
  struct State {
    std::vector<Listed> seen;
    size_t limit;
  } state{{}, limit};
  host::check(frugal_store_list(
      store, prefix.c_str(),
      [](void* user_data, const char* key, uint64_t size) -> int32_t {
        auto* s = static_cast<State*>(user_data);
        s->seen.push_back({key, size});
        return s->seen.size() >= s->limit ? 1 : 0;
      },
      &state));
  return state.seen;
}

std::vector<std::string> keys_of(const std::vector<Listed>& listed) {
  std::vector<std::string> keys;
  for (const auto& l : listed) keys.push_back(l.key);
  return keys;
}

// Every name in `dir`, dot files included, sorted.
std::vector<std::string> entries_of(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Every path below `dir`, recursively, relative to it, sorted.
std::vector<std::string> tree_of(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) names.push_back(fs::relative(e.path(), dir).string());
  std::sort(names.begin(), names.end());
  return names;
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("round trip of random bytes, from empty to multi-MiB objects") {
  TempDir tmp;
  auto s = open_store(tmp.path() / "root");
  const size_t size =
      GENERATE(size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{(1 << 20) + 7}, size_t{(9 << 20) + 3});
  const std::string key = "ckpt-1/rank-0/shard-" + std::to_string(size);
  const Bytes data = random_bytes(size, static_cast<uint32_t>(size));
  INFO("size " << size);
  put(s.get(), key, data);

  uint64_t stored = 0;
  host::check(frugal_store_size(s.get(), key.c_str(), &stored));
  CHECK(stored == size);
  CHECK(get(s.get(), key) == data);
  // The object is a plain file at root/key: tools and people can find it.
  CHECK(file_bytes(tmp.path() / "root" / key) == data);

  if (size >= 3) {  // a slice from the middle
    const uint64_t offset = size / 3, length = size / 3;
    Bytes slice(length);
    host::check(frugal_store_read(s.get(), key.c_str(), offset, slice.data(), length));
    CHECK(slice == Bytes(data.begin() + static_cast<std::ptrdiff_t>(offset),
                         data.begin() + static_cast<std::ptrdiff_t>(offset + length)));
  }
  // No temp file is left next to the object.
  CHECK(entries_of(tmp.path() / "root" / "ckpt-1" / "rank-0") ==
        std::vector<std::string>{"shard-" + std::to_string(size)});
}

TEST_CASE("fsync=false stores the same bytes (for throwaway data)") {
  TempDir tmp;
  auto s = fs_context();
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "root", (tmp.path() / "r").c_str()));
  host::check(frugal_options_set_bool(options.get(), "fsync", 0));
  frugal_store* raw = nullptr;
  host::check(frugal_store_create(s.get(), "fs", options.get(), &raw));
  StorePtr store(raw);
  const Bytes data = random_bytes(100000, 7);
  put(store.get(), "a/b", data);
  CHECK(get(store.get(), "a/b") == data);
}

TEST_CASE("a component of 255 bytes, the longest allowed, round-trips") {
  TempDir tmp;
  auto s = open_store(tmp.path() / "root");
  const std::string longest(255, 'x');
  const std::string key = longest + "/" + longest;
  const Bytes data = random_bytes(5000, 3);
  put(s.get(), key, data);  // its temp name must still fit in NAME_MAX
  CHECK(get(s.get(), key) == data);
  CHECK(keys_of(list_keys(s.get(), "")) == std::vector<std::string>{key});
}

TEST_CASE("put replaces an existing object completely") {
  TempDir tmp;
  auto s = open_store(tmp.path() / "root");
  const Bytes first = random_bytes(100000, 1), second = random_bytes(10, 2);
  put(s.get(), "manifest", first);
  put(s.get(), "manifest", second);
  CHECK(get(s.get(), "manifest") == second);
  put(s.get(), "manifest", Bytes{});
  CHECK(get(s.get(), "manifest").empty());
  CHECK(entries_of(tmp.path() / "root") == std::vector<std::string>{"manifest"});
}

TEST_CASE("size and read: NOT_FOUND when absent, OUT_OF_RANGE past the end") {
  TempDir tmp;
  auto s = open_store(tmp.path() / "root");
  const Bytes data = random_bytes(100, 9);
  put(s.get(), "dir/obj", data);

  uint64_t size = 12345;
  Bytes buffer(200, 0xAB);
  for (const char* absent : {"nope", "dir/nope", "nodir/obj", "dir/obj/deeper", "dir"}) {
    INFO(absent);
    auto r = outcome(frugal_store_size(s.get(), absent, &size));
    CHECK(r.code == FRUGAL_ERR_NOT_FOUND);
    CHECK(contains(r.message, "store 'fs': size '" + std::string(absent) + "'"));
    r = outcome(frugal_store_read(s.get(), absent, 0, buffer.data(), 1));
    CHECK(r.code == FRUGAL_ERR_NOT_FOUND);
    CHECK(contains(r.message, "read '" + std::string(absent) + "'"));
  }
  CHECK(size == 12345);  // out-params untouched on failure

  // Exactly to the end is fine, including an empty read at the end.
  host::check(frugal_store_read(s.get(), "dir/obj", 90, buffer.data(), 10));
  CHECK(Bytes(buffer.begin(), buffer.begin() + 10) == Bytes(data.begin() + 90, data.end()));
  host::check(frugal_store_read(s.get(), "dir/obj", 100, buffer.data(), 0));

  struct Case {
    uint64_t offset, length;
  };
  for (const Case c : {Case{0, 101}, Case{91, 10}, Case{101, 0}, Case{UINT64_MAX, 1}, Case{1, UINT64_MAX}}) {
    INFO("offset " << c.offset << " length " << c.length);
    std::fill(buffer.begin(), buffer.end(), 0xAB);
    const auto r = outcome(frugal_store_read(s.get(), "dir/obj", c.offset, buffer.data(), c.length));
    CHECK(r.code == FRUGAL_ERR_OUT_OF_RANGE);
    CHECK(contains(r.message, "read 'dir/obj'"));
    CHECK(contains(r.message, "100 bytes"));
  }
}

TEST_CASE("list yields keys in byte order with sizes, filtered by a plain string prefix") {
  TempDir tmp;
  auto s = open_store(tmp.path() / "root");
  // '-' and '.' sort before '/', '0' after it: a directory's keys sit
  // between its siblings by "name/", not by "name".
  const std::vector<std::string> keys = {
      "b",        "a/x",      "a-c", "a0", "a.d", "a/y/z", "ckpt-1/shard-0", "ckpt-1/shard-1", "ckpt-10/shard-0",
      "ckpt-2/m", "ckpt-1-x", "a/y-"};
  for (size_t i = 0; i < keys.size(); ++i) put(s.get(), keys[i], random_bytes(i * 3, static_cast<uint32_t>(i)));

  auto sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  const auto all = list_keys(s.get(), "");
  CHECK(keys_of(all) == sorted);
  for (const auto& l : all) {
    const auto at = std::find(keys.begin(), keys.end(), l.key) - keys.begin();
    CHECK(l.size == static_cast<uint64_t>(at) * 3);
  }

  using V = std::vector<std::string>;
  // A prefix may end mid-component.
  CHECK(keys_of(list_keys(s.get(), "ckpt-1")) == V{"ckpt-1-x", "ckpt-1/shard-0", "ckpt-1/shard-1", "ckpt-10/shard-0"});
  CHECK(keys_of(list_keys(s.get(), "ckpt-1/")) == V{"ckpt-1/shard-0", "ckpt-1/shard-1"});
  CHECK(keys_of(list_keys(s.get(), "ckpt-1/shard-1")) == V{"ckpt-1/shard-1"});
  CHECK(keys_of(list_keys(s.get(), "ckpt-1/sh")) == V{"ckpt-1/shard-0", "ckpt-1/shard-1"});
  CHECK(keys_of(list_keys(s.get(), "a/y")) == V{"a/y-", "a/y/z"});
  CHECK(keys_of(list_keys(s.get(), "a/y/")) == V{"a/y/z"});
  CHECK(keys_of(list_keys(s.get(), "a")) == V{"a-c", "a.d", "a/x", "a/y-", "a/y/z", "a0"});
  CHECK(list_keys(s.get(), "ckpt-3").empty());
  CHECK(list_keys(s.get(), "b/").empty());   // "b" is an object, not a directory
  CHECK(list_keys(s.get(), "../").empty());  // a prefix is matched, never resolved as a path
  CHECK(list_keys(s.get(), "/").empty());
}

TEST_CASE("list stops as soon as the callback returns nonzero") {
  TempDir tmp;
  auto s = open_store(tmp.path() / "root");
  for (int i = 0; i < 10; ++i) put(s.get(), "d" + std::to_string(i % 3) + "/k" + std::to_string(i), Bytes{1});
  const auto all = keys_of(list_keys(s.get(), ""));
  REQUIRE(all.size() == 10);
  for (size_t limit : {size_t{1}, size_t{3}, size_t{4}, size_t{9}}) {
    const auto first = keys_of(list_keys(s.get(), "", limit));
    CHECK(first == std::vector<std::string>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(limit)));
  }
}

TEST_CASE("list handles thousands of keys and prunes by prefix") {
  TempDir tmp;
  auto s = fs_context();
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "root", (tmp.path() / "r").c_str()));
  host::check(frugal_options_set_bool(options.get(), "fsync", 0));  // throwaway data: keep the test fast
  frugal_store* raw = nullptr;
  host::check(frugal_store_create(s.get(), "fs", options.get(), &raw));
  StorePtr store(raw);
  std::vector<std::string> keys;
  for (int c = 0; c < 40; ++c)
    for (int k = 0; k < 50; ++k) keys.push_back("ckpt-" + std::to_string(c) + "/shard-" + std::to_string(k));
  for (const auto& key : keys) put(store.get(), key, Bytes{static_cast<unsigned char>(key.size())});
  std::sort(keys.begin(), keys.end());
  CHECK(keys_of(list_keys(store.get(), "")) == keys);
  std::vector<std::string> ckpt7;
  std::copy_if(keys.begin(), keys.end(), std::back_inserter(ckpt7),
               [](const std::string& k) { return k.rfind("ckpt-7/", 0) == 0; });
  CHECK(ckpt7.size() == 50);
  CHECK(keys_of(list_keys(store.get(), "ckpt-7/")) == ckpt7);
}

// A deep unrelated tree under a store root (a root pointed at /usr/share,
// say), with every directory open in it counted through inotify.
class WatchedDeepTree {
 public:
  explicit WatchedDeepTree(const fs::path& top) : watcher_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    REQUIRE(watcher_ >= 0);
    fs::path deep = top;
    for (int level = 0; level < kLevels; ++level) {
      fs::create_directories(deep / "sibling");
      write_file(deep / "file", "x");
      REQUIRE(::inotify_add_watch(watcher_, deep.c_str(), IN_OPEN) >= 0);
      deep /= "d" + std::to_string(level);
    }
    (void)directory_opens();
  }
  ~WatchedDeepTree() { ::close(watcher_); }
  WatchedDeepTree(const WatchedDeepTree&) = delete;
  WatchedDeepTree& operator=(const WatchedDeepTree&) = delete;

  static constexpr int kLevels = 40;

  // Directory opens since the last call.
  int directory_opens() {
    int opens = 0;
    alignas(inotify_event) char buffer[64 * 1024];
    for (ssize_t n; (n = ::read(watcher_, buffer, sizeof buffer)) > 0;)
      for (char* at = buffer; at < buffer + n; at += sizeof(inotify_event) + reinterpret_cast<inotify_event*>(at)->len)
        if ((reinterpret_cast<inotify_event*>(at)->mask & IN_ISDIR) != 0) ++opens;
    return opens;
  }

 private:
  int watcher_;
};

TEST_CASE("list with a name prefix opens no directory outside it, however big the tree beside it") {
  // What a one-level listing of checkpoints relies on: a store root that
  // also holds a deep unrelated tree is listed by name prefix ("hb-",
  // "full-") without opening a single directory of that tree.
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root);
  put(s.get(), "hb-000000000001-00000001/manifest", Bytes{1});
  put(s.get(), "full-000000000002-00000002/shard-00000", Bytes{2});
  WatchedDeepTree tree(root / "usr");

  CHECK(keys_of(list_keys(s.get(), "hb-")) == std::vector<std::string>{"hb-000000000001-00000001/manifest"});
  CHECK(keys_of(list_keys(s.get(), "full-")) == std::vector<std::string>{"full-000000000002-00000002/shard-00000"});
  CHECK(tree.directory_opens() == 0);
  // The watch sees opens: a listing of everything walks the whole tree.
  CHECK(list_keys(s.get(), "").size() == 2 + WatchedDeepTree::kLevels);
  CHECK(tree.directory_opens() >= WatchedDeepTree::kLevels);
}

TEST_CASE("the checkpoint engine lists its checkpoints without walking a tree beside them") {
  // `frugal ckpt ls DIR` on a directory that holds other things (it walked
  // 26,000 directories of /usr/share): the engine lists by checkpoint name.
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root);
  put(s.get(), "hb-000000000001-00000001/manifest", Bytes{1});
  put(s.get(), "full-000000000002-00000002/manifest", Bytes{2});
  WatchedDeepTree tree(root / "usr");
  frugal_ckpt_engine* engine = nullptr;
  host::check(frugal_ckpt_engine_create(s.get(), nullptr, &engine));
  std::vector<std::string> names;
  host::check(frugal_ckpt_list(
      engine, 0,
      [](void* user, const frugal_ckpt_info* info) -> int32_t {
        static_cast<std::vector<std::string>*>(user)->push_back(info->name);
        return 0;
      },
      &names));
  frugal_ckpt_engine_destroy(engine);
  CHECK(names == std::vector<std::string>{"full-000000000002-00000002", "hb-000000000001-00000001"});
  CHECK(tree.directory_opens() == 0);
}

TEST_CASE("temp files, links and names no key could have are never listed") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root);
  put(s.get(), "a/obj", Bytes{1, 2, 3});
  put(s.get(), "top", Bytes{4});
  write_file(root / ".tmp.x", "stray temp file");
  write_file(root / "a" / ".tmp.obj.123.0", "stray temp file");
  fs::create_directories(root / ".hidden-dir");
  write_file(root / ".hidden-dir" / "inside", "not a key");
  fs::create_directories(root / "with space");
  write_file(root / "with space" / "file", "no key can name this");
  write_file(root / "bad name", "no key can name this");
  fs::create_symlink(root / "top", root / "link-to-file");
  fs::create_directory_symlink(root / "a", root / "link-to-dir");
  REQUIRE(::mkfifo((root / "fifo").c_str(), 0600) == 0);

  const auto all = list_keys(s.get(), "");
  CHECK(all == std::vector<Listed>{{"a/obj", 3}, {"top", 1}});
  // Neither can a temp file be named through the API.
  uint64_t size = 0;
  CHECK(outcome(frugal_store_size(s.get(), ".tmp.x", &size)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  // A FIFO under a key is not an object, and reading it must not hang.
  unsigned char byte = 0;
  CHECK(outcome(frugal_store_size(s.get(), "fifo", &size)).code == FRUGAL_ERR_NOT_FOUND);
  CHECK(outcome(frugal_store_read(s.get(), "fifo", 0, &byte, 1)).code == FRUGAL_ERR_NOT_FOUND);
}

TEST_CASE("remove deletes the object and the directories it leaves empty, never the root") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root);
  put(s.get(), "a/b/c/d", Bytes{1});
  put(s.get(), "a/keep", Bytes{2});

  host::check(frugal_store_remove(s.get(), "a/b/c/d"));
  uint64_t size = 0;
  CHECK(outcome(frugal_store_size(s.get(), "a/b/c/d", &size)).code == FRUGAL_ERR_NOT_FOUND);
  CHECK(tree_of(root) == std::vector<std::string>{"a", "a/keep"});
  CHECK(get(s.get(), "a/keep") == Bytes{2});

  host::check(frugal_store_remove(s.get(), "a/keep"));
  CHECK(fs::is_directory(root));
  CHECK(entries_of(root).empty());
  CHECK(list_keys(s.get(), "").empty());

  // Absent keys, absent directories, a directory's name: all succeed, touch nothing.
  put(s.get(), "x/y", Bytes{3});
  host::check(frugal_store_remove(s.get(), "a/keep"));
  host::check(frugal_store_remove(s.get(), "nodir/deeper/key"));
  host::check(frugal_store_remove(s.get(), "x"));
  host::check(frugal_store_remove(s.get(), "x/y/z"));
  CHECK(tree_of(root) == std::vector<std::string>{"x", "x/y"});

  // A single-component key: the root stays.
  put(s.get(), "solo", Bytes{4});
  host::check(frugal_store_remove(s.get(), "solo"));
  CHECK(fs::is_directory(root));
  CHECK(entries_of(root) == std::vector<std::string>{"x"});
}

TEST_CASE("temp files of dead writers are reclaimed when their directory empties, live writers' never") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root);
  for (const char* key : {"ckpt-1/a", "ckpt-2/a", "ckpt-3/a", "ckpt-4/a", "solo"}) put(s.get(), key, Bytes{1, 2});
  // 4194305 is above Linux's PID_MAX_LIMIT: no process has that pid.
  write_file(root / "ckpt-1" / ".tmp.a.4194305.0", std::string(4096, 'x'));
  const std::string live = ".tmp.a." + std::to_string(::getpid()) + ".7";
  write_file(root / "ckpt-2" / live, "a put of this process in progress");
  write_file(root / "ckpt-3" / ".tmp.a.4194305.1", "a writer on another host, holding its lock");
  write_file(root / "ckpt-4" / ".keep", "not the store's");
  write_file(root / "ckpt-4" / ".tmp.a.4194305.2", "dead, but its directory stays anyway");
  write_file(root / ".tmp.solo.4194305.3", "the root is never tidied");

  // Held on a separate open file, like a writer elsewhere (OFD locks conflict even within a process).
  const int locked = ::open((root / "ckpt-3" / ".tmp.a.4194305.1").c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(locked >= 0);
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  REQUIRE(::fcntl(locked, F_OFD_SETLK, &lock) == 0);

  for (const char* key : {"ckpt-1/a", "ckpt-2/a", "ckpt-3/a", "ckpt-4/a", "solo"})
    host::check(frugal_store_remove(s.get(), key));
  CHECK(!fs::exists(root / "ckpt-1"));
  CHECK(entries_of(root / "ckpt-2") == std::vector<std::string>{live});
  CHECK(entries_of(root / "ckpt-3") == std::vector<std::string>{".tmp.a.4194305.1"});
  CHECK(entries_of(root / "ckpt-4") == std::vector<std::string>{".keep", ".tmp.a.4194305.2"});
  CHECK(entries_of(root) == std::vector<std::string>{".tmp.solo.4194305.3", "ckpt-2", "ckpt-3", "ckpt-4"});

  // Once that writer is gone, removing any key of the directory reclaims it.
  ::close(locked);
  host::check(frugal_store_remove(s.get(), "ckpt-3/a"));
  CHECK(!fs::exists(root / "ckpt-3"));
}

TEST_CASE("list reclaims a directory abandoned by a dead writer, and nothing a live one or a person left") {
  // A save killed in its first put leaves a directory holding just a temp
  // file: no key names it, so only listing can ever find it.
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root);
  put(s.get(), "ckpt-1/shard", Bytes{7});
  fs::create_directories(root / "ckpt-2");
  write_file(root / "ckpt-2" / ".tmp.shard.4194305.0", std::string(65536, 'x'));
  const std::string live = ".tmp.shard." + std::to_string(::getpid()) + ".0";
  fs::create_directories(root / "ckpt-3");
  write_file(root / "ckpt-3" / live, "being written");
  fs::create_directories(root / "ckpt-4");
  write_file(root / "ckpt-4" / ".tmp.shard.4194305.0", "dead");
  write_file(root / "ckpt-4" / "notes.txt", "a person's file");
  fs::create_directories(root / "empty");

  CHECK(keys_of(list_keys(s.get(), "ckpt-")) == std::vector<std::string>{"ckpt-1/shard", "ckpt-4/notes.txt"});
  CHECK(entries_of(root) == std::vector<std::string>{"ckpt-1", "ckpt-3", "ckpt-4", "empty"});
  CHECK(entries_of(root / "ckpt-3") == std::vector<std::string>{live});
  CHECK(entries_of(root / "ckpt-4") == std::vector<std::string>{".tmp.shard.4194305.0", "notes.txt"});
  CHECK(get(s.get(), "ckpt-1/shard") == Bytes{7});
}

TEST_CASE("keys that could leave the root or break the rules are refused, nothing is created") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root);
  const std::string too_long(256, 'a');
  const std::vector<std::string> bad = {"../x", "a/../../b", "/abs",   ".hidden", "a//b",  "a/",
                                        "",     too_long,    "a b",    "./x",     "a/./b", "a/.",
                                        "..",   "a\\b",      "x/../y", "k\n",     "é",     std::string(1025, 'k')};
  const Bytes data{1, 2, 3};
  for (const auto& key : bad) {
    INFO("key '" << key << "'");
    auto r = outcome(frugal_store_put(s.get(), key.c_str(), data.data(), data.size()));
    CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
    uint64_t size = 0;
    unsigned char byte = 0;
    CHECK(outcome(frugal_store_size(s.get(), key.c_str(), &size)).code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(outcome(frugal_store_read(s.get(), key.c_str(), 0, &byte, 1)).code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(outcome(frugal_store_remove(s.get(), key.c_str())).code == FRUGAL_ERR_INVALID_ARGUMENT);
  }
  CHECK(entries_of(tmp.path()) == std::vector<std::string>{"root"});
  CHECK(entries_of(root).empty());
  CHECK(!fs::exists("/abs"));
}

namespace {

// The plugin's own vtable, reached without the core, over a minimal host
// table built from libfrugal's public functions: shows that the plugin
// validates keys itself instead of trusting its caller.
struct DirectPlugin {
  void* library = nullptr;
  frugal_host_api host{};
  const frugal_store_vtable* vtable = nullptr;

  DirectPlugin() {
    library = ::dlopen(test::builtin_path("store_fs").c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(library != nullptr);
    auto init = reinterpret_cast<frugal_plugin_init_fn>(::dlsym(library, "frugal_plugin_init_v2"));
    REQUIRE(init != nullptr);
    host.struct_size = sizeof host;
    host.abi_major = FRUGAL_ABI_VERSION_MAJOR;
    host.abi_minor = FRUGAL_ABI_VERSION_MINOR;
    host.log = [](const frugal_host_api*, int32_t, const char*) {};
    host.alloc = [](const frugal_host_api*, size_t, size_t) -> void* { return nullptr; };
    host.free = [](const frugal_host_api*, void*) {};
    host.error_create = &frugal_error_create;
    host.option_get_int = &frugal_options_get_int;
    host.option_get_double = &frugal_options_get_double;
    host.option_get_bool = &frugal_options_get_bool;
    host.option_get_string = &frugal_options_get_string;
    host.options_check_known = [](const frugal_options*, const char* const*, size_t, const char*) -> frugal_error* {
      return nullptr;
    };
    host.option_type = &frugal_options_type;
    host.error_destroy = &frugal_error_destroy;
    const frugal_plugin_desc* desc = nullptr;
    host::check(init(&host, &desc));
    REQUIRE(desc->strategy_count == 1);
    REQUIRE(desc->strategies[0]->kind == FRUGAL_KIND_STORE);
    vtable = static_cast<const frugal_store_vtable*>(desc->strategies[0]->vtable);
  }
  ~DirectPlugin() { ::dlclose(library); }
  DirectPlugin(const DirectPlugin&) = delete;
  DirectPlugin& operator=(const DirectPlugin&) = delete;
};

}  // namespace

TEST_CASE("the plugin itself refuses bad keys when called directly, bypassing the core's check") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  DirectPlugin plugin;
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
  void* store = nullptr;
  host::check(plugin.vtable->create(&plugin.host, options.get(), &store));
  REQUIRE(store != nullptr);

  const Bytes data{9};
  for (const std::string& key : std::vector<std::string>{"../escaped", "a/../../escaped", "/tmp/escaped", ".hidden",
                                                         "a//b", "a/", "", "a b", "..", std::string(256, 'z')}) {
    INFO("key '" << key << "'");
    auto r = outcome(plugin.vtable->put(store, key.c_str(), data.data(), data.size()));
    CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(contains(r.message, "put '" + key + "'"));
    uint64_t size = 0;
    unsigned char byte = 0;
    CHECK(outcome(plugin.vtable->size(store, key.c_str(), &size)).code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(outcome(plugin.vtable->read(store, key.c_str(), 0, &byte, 1)).code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(outcome(plugin.vtable->remove(store, key.c_str())).code == FRUGAL_ERR_INVALID_ARGUMENT);
  }
  CHECK(outcome(plugin.vtable->put(store, nullptr, data.data(), 1)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(plugin.vtable->put(store, "k", nullptr, 1)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(entries_of(tmp.path()) == std::vector<std::string>{"root"});
  CHECK(entries_of(root).empty());
  CHECK(!fs::exists("/tmp/escaped"));

  // And the same store works for good keys.
  host::check(plugin.vtable->put(store, "ok/key", data.data(), data.size()));
  CHECK(file_bytes(root / "ok" / "key") == data);
  plugin.vtable->destroy(store);
}

TEST_CASE("the plugin itself refuses inject_enospc_after_bytes below its declared -1 with OUT_OF_RANGE") {
  TempDir tmp;
  DirectPlugin plugin;
  for (const int64_t limit : {int64_t{-2}, int64_t{-1}}) {
    INFO("inject_enospc_after_bytes " << limit);
    auto options = host::make_options();
    host::check(frugal_options_set_string(options.get(), "root", (tmp.path() / "root").c_str()));
    host::check(frugal_options_set_int(options.get(), "inject_enospc_after_bytes", limit));
    void* store = nullptr;
    const auto r = outcome(plugin.vtable->create(&plugin.host, options.get(), &store));
    if (limit < -1) {
      CHECK(r.code == FRUGAL_ERR_OUT_OF_RANGE);
      CHECK(contains(r.message, "option 'inject_enospc_after_bytes' must be -1 (off) or >= 0, got -2"));
      CHECK(store == nullptr);
    } else {
      CHECK(r.code == FRUGAL_OK);
      REQUIRE(store != nullptr);
      plugin.vtable->destroy(store);
    }
  }
}

TEST_CASE("a symbolic link inside the root is never followed, on put, read, size, list or remove") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root", outside = tmp.path() / "outside";
  fs::create_directories(outside);
  write_file(outside / "secret", "outside the store");
  auto s = open_store(root);
  fs::create_directory_symlink(outside, root / "evil");
  fs::create_symlink(outside / "secret", root / "lnk");

  const Bytes data{1, 2, 3};
  // Through a linked directory: refused, naming the key and the link.
  auto r = outcome(frugal_store_put(s.get(), "evil/x", data.data(), data.size()));
  CHECK(r.code == FRUGAL_ERR_IO);
  CHECK(contains(r.message, "put 'evil/x'"));
  CHECK(contains(r.message, "symbolic link"));
  r = outcome(frugal_store_put(s.get(), "evil/deeper/x", data.data(), data.size()));
  CHECK(r.code == FRUGAL_ERR_IO);

  uint64_t size = 777;
  Bytes buffer(17, 0);
  r = outcome(frugal_store_size(s.get(), "evil/secret", &size));
  CHECK(r.code == FRUGAL_ERR_IO);
  CHECK(contains(r.message, "symbolic link"));
  CHECK(size == 777);
  r = outcome(frugal_store_read(s.get(), "evil/secret", 0, buffer.data(), buffer.size()));
  CHECK(r.code == FRUGAL_ERR_IO);
  CHECK(buffer == Bytes(17, 0));
  CHECK(outcome(frugal_store_remove(s.get(), "evil/secret")).code == FRUGAL_ERR_IO);

  // A link under the object's own name is not an object.
  CHECK(outcome(frugal_store_size(s.get(), "lnk", &size)).code == FRUGAL_ERR_NOT_FOUND);
  CHECK(outcome(frugal_store_read(s.get(), "lnk", 0, buffer.data(), 1)).code == FRUGAL_ERR_NOT_FOUND);
  CHECK(buffer == Bytes(17, 0));
  CHECK(list_keys(s.get(), "").empty());

  // put on it replaces the link itself; the target is untouched.
  put(s.get(), "lnk", data);
  CHECK(!fs::is_symlink(root / "lnk"));
  CHECK(get(s.get(), "lnk") == data);

  CHECK(entries_of(outside) == std::vector<std::string>{"secret"});
  std::ifstream in(outside / "secret");
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == "outside the store");
}

TEST_CASE("a file where a directory should be, or a directory where the object should be, fails cleanly") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root);
  const Bytes data{5};
  put(s.get(), "a", data);
  auto r = outcome(frugal_store_put(s.get(), "a/b", data.data(), data.size()));
  CHECK(r.code == FRUGAL_ERR_IO);
  CHECK(contains(r.message, "put 'a/b'"));
  CHECK(contains(r.message, "'a' is not a directory"));

  put(s.get(), "d/e", data);
  r = outcome(frugal_store_put(s.get(), "d", data.data(), data.size()));
  CHECK(r.code == FRUGAL_ERR_IO);
  CHECK(contains(r.message, "put 'd'"));
  CHECK(tree_of(root) == std::vector<std::string>{"a", "d", "d/e"});  // no temp file left
}

TEST_CASE("an injected full disk fails the put, keeps the previous object byte for byte, leaves no temp file") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root, {{"inject_enospc_after_bytes", 1500}});
  const Bytes first = random_bytes(1000, 11), second = random_bytes(1000, 12);
  put(s.get(), "ckpt-1/shard-0", first);

  const auto r = outcome(frugal_store_put(s.get(), "ckpt-1/shard-0", second.data(), second.size()));
  CHECK(r.code == FRUGAL_ERR_IO);
  CHECK(contains(r.message, "store 'fs': put 'ckpt-1/shard-0': write failed: No space left on device"));
  CHECK(get(s.get(), "ckpt-1/shard-0") == first);
  CHECK(entries_of(root / "ckpt-1") == std::vector<std::string>{"shard-0"});

  // The disk stays full: a new key fails too and does not appear.
  const auto r2 = outcome(frugal_store_put(s.get(), "ckpt-1/shard-1", second.data(), 1));
  CHECK(r2.code == FRUGAL_ERR_IO);
  CHECK(contains(r2.message, "No space left on device"));
  uint64_t size = 0;
  CHECK(outcome(frugal_store_size(s.get(), "ckpt-1/shard-1", &size)).code == FRUGAL_ERR_NOT_FOUND);
  CHECK(entries_of(root / "ckpt-1") == std::vector<std::string>{"shard-0"});
  // An empty object needs no data blocks and still succeeds.
  put(s.get(), "ckpt-1/empty", Bytes{});
  CHECK(get(s.get(), "ckpt-1/empty").empty());
}

TEST_CASE("a failed put leaves the directory tree as it was: the directories it created are gone") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root, {{"inject_enospc_after_bytes", 4}});
  put(s.get(), "job/keep", Bytes{1, 2});
  fs::create_directories(root / "job" / "by-hand");
  write_file(root / "job" / "by-hand" / "notes", "a person's file");  // not the store's: stays
  const auto before = tree_of(root);
  const Bytes data(100, 7);

  // A new checkpoint directory, and one two levels deep, on a full disk.
  for (const char* key : {"ckpt-1/shard-0", "job/ckpt-2/part/shard-0", "job/by-hand/new/shard-0"}) {
    INFO(key);
    const auto r = outcome(frugal_store_put(s.get(), key, data.data(), data.size()));
    CHECK(r.code == FRUGAL_ERR_IO);
    CHECK(contains(r.message, "No space left on device"));
    CHECK(tree_of(root) == before);
  }
  // A directory that already held an object keeps it.
  CHECK(outcome(frugal_store_put(s.get(), "job/second", data.data(), data.size())).code == FRUGAL_ERR_IO);
  CHECK(tree_of(root) == before);
  CHECK(get(s.get(), "job/keep") == (Bytes{1, 2}));
  // An empty directory on the key's path goes, as a remove of the key would
  // take it: the last of two puts failing in one new directory did not
  // create it, yet must not leave it behind.
  fs::create_directories(root / "empty");
  CHECK(outcome(frugal_store_put(s.get(), "empty/ckpt/shard", data.data(), data.size())).code == FRUGAL_ERR_IO);
  CHECK(tree_of(root) == before);
}

TEST_CASE("a checkpoint save that fails on a full disk leaves no directory behind") {
  // The engine takes back the keys it wrote; the directories it never got
  // to write a key into are the store's to take back.
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  for (const int64_t budget : {int64_t{0}, int64_t{10000}}) {  // nothing lands; one shard lands
    INFO("budget " << budget);
    auto s = open_store(root, {{"inject_enospc_after_bytes", budget}});
    const auto before = tree_of(root);
    auto engine_options = host::make_options();
    host::check(frugal_options_set_int(engine_options.get(), "shard_bytes", 4096));
    host::check(frugal_options_set_string(engine_options.get(), "prefix", "job"));
    frugal_ckpt_engine* engine = nullptr;
    host::check(frugal_ckpt_engine_create(s.get(), engine_options.get(), &engine));
    std::vector<unsigned char> a(8192, 1), b(8192, 2);
    int64_t shape[1] = {8192};
    for (auto* memory : {&a, &b}) {
      frugal_tensor view{};
      view.struct_size = sizeof(view);
      view.data = memory->data();
      view.dtype = FRUGAL_DTYPE_UINT8;
      view.ndim = 1;
      view.device = {FRUGAL_DEVICE_CPU, 0};
      view.shape = shape;
      host::check(frugal_ckpt_register(engine, memory == &a ? "a" : "b", &view, 0));
    }
    frugal_ckpt_save_args args{};
    args.struct_size = sizeof(args);
    args.kind = FRUGAL_CKPT_FULL;
    args.flags = FRUGAL_CKPT_SAVE_WAIT;
    args.step = 1;
    const auto r = outcome(frugal_ckpt_save(engine, &args, nullptr));
    frugal_ckpt_engine_destroy(engine);
    CHECK(r.code == FRUGAL_ERR_IO);
    CHECK(contains(r.message, "No space left on device"));
    // The engine's writer claim (frugal/checkpoint.h) is meant to outlive a
    // failed save, when it could be written: it fences older writers.
    auto after = tree_of(root);
    std::erase_if(after, [](const std::string& e) { return e == "job" || e.starts_with("job/writer-claims"); });
    CHECK(after == before);
    CHECK((!fs::exists(root / "job") || fs::exists(root / "job" / "writer-claims")));
  }
}

TEST_CASE("the injected budget counts bytes across puts, exactly") {
  TempDir tmp;
  auto s = open_store(tmp.path() / "root", {{"inject_enospc_after_bytes", 300}});
  put(s.get(), "a", random_bytes(100, 1));
  put(s.get(), "b", random_bytes(200, 2));  // exactly at the limit: still fine
  const Bytes one{1};
  CHECK(outcome(frugal_store_put(s.get(), "c", one.data(), 1)).code == FRUGAL_ERR_IO);
  CHECK(keys_of(list_keys(s.get(), "")) == std::vector<std::string>{"a", "b"});
}

namespace {

// Opens "fs" on `root` with string and bool options besides the root.
StorePtr open_store_with(const host::ContextPtr& context, const fs::path& root,
                         std::initializer_list<std::pair<const char*, const char*>> options_text) {
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
  for (const auto& [name, text] : options_text) host::check(frugal_options_set_parsed(options.get(), name, text));
  frugal_store* store = nullptr;
  host::check(frugal_store_create(context.get(), "fs", options.get(), &store));
  return StorePtr(store);
}

struct LogLine {
  int32_t level;
  std::string source, message;
};

// A copy of `bytes` at a 4 KiB boundary, where direct I/O can take it (a
// vector's own storage is only 16-byte aligned).
class AlignedCopy {
 public:
  explicit AlignedCopy(const Bytes& bytes) : storage_(bytes.size() + 4096) {
    const auto at = reinterpret_cast<uintptr_t>(storage_.data());
    data_ = storage_.data() + ((4096 - at % 4096) % 4096);
    std::copy(bytes.begin(), bytes.end(), data_);
  }
  const unsigned char* data() const { return data_; }

 private:
  Bytes storage_;
  unsigned char* data_;
};

}  // namespace

TEST_CASE("every io mode stores and reads back the same bytes, objects large and small") {
  TempDir tmp;
  const uint32_t seed = frugal_test::test_seed32();
  CAPTURE(seed);
  auto context = fs_context();
  // Sizes around the 4 KiB block, and some MiB (test_object_io crosses a
  // 64 MiB direct piece; here the store's own paths are the point).
  const std::vector<size_t> sizes = {0, 1, 4095, 4096, 4097, 3 * 4096 + 17, (size_t{3} << 20) + 12345};
  for (const char* io : {"auto", "direct", "buffered"}) {
    for (const char* fsync : {"true", "false"}) {
      INFO("io=" << io << " fsync=" << fsync);
      auto store = open_store_with(context, tmp.path() / io / fsync, {{"io", io}, {"fsync", fsync}});
      for (size_t i = 0; i < sizes.size(); ++i) {
        const Bytes bytes = random_bytes(sizes[i], seed + static_cast<uint32_t>(i));
        const std::string key = "k/" + std::to_string(i);
        // From a block boundary (direct I/O can take it) and from a vector's
        // own storage (the page cache must), alternately.
        const AlignedCopy aligned(bytes);
        host::check(
            frugal_store_put(store.get(), key.c_str(), i % 2 == 0 ? aligned.data() : bytes.data(), bytes.size()));
        CHECK(get(store.get(), key) == bytes);
        CHECK(file_bytes(tmp.path() / io / fsync / "k" / std::to_string(i)) == bytes);
        if (bytes.size() > 9000) {  // a ranged read across block edges
          Bytes part(bytes.size() - 9000);
          host::check(frugal_store_read(store.get(), key.c_str(), 4500, part.data(), part.size()));
          CHECK(std::equal(part.begin(), part.end(), bytes.begin() + 4500));
        }
      }
    }
  }
}

TEST_CASE("a filesystem that refuses O_DIRECT: io=auto falls back and says so once, io=direct fails cleanly") {
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto context = fs_context();
  std::vector<LogLine> lines;
  host::check(frugal_context_set_log_callback(
      context.get(),
      [](void* user_data, int32_t level, const char* source, const char* message) {
        static_cast<std::vector<LogLine>*>(user_data)->push_back({level, source, message});
      },
      &lines, FRUGAL_LOG_DEBUG));
  const Bytes first = random_bytes(3 * 4096 + 5, 21), second = random_bytes(5 * 4096, 22);

  const AlignedCopy first_aligned(first), second_aligned(second);

  auto fallback = open_store_with(context, root, {{"inject_direct_io_refused", "true"}});
  host::check(frugal_store_put(fallback.get(), "ckpt/shard-0", first_aligned.data(), first.size()));
  host::check(frugal_store_put(fallback.get(), "ckpt/shard-1", second_aligned.data(), second.size()));
  CHECK(get(fallback.get(), "ckpt/shard-0") == first);
  CHECK(get(fallback.get(), "ckpt/shard-1") == second);
  const auto notes = std::count_if(lines.begin(), lines.end(), [&](const LogLine& l) {
    return contains(l.message, "refuses direct I/O (O_DIRECT)") && contains(l.message, root.string());
  });
  CHECK(notes == 1);  // once per store, not once per put
  for (const auto& l : lines)
    if (contains(l.message, "O_DIRECT")) {
      CHECK(l.level == FRUGAL_LOG_INFO);
      CHECK(l.source == "store_fs");
    }

  auto required = open_store_with(context, root, {{"io", "direct"}, {"inject_direct_io_refused", "true"}});
  const auto r = outcome(frugal_store_put(required.get(), "ckpt/shard-0", second_aligned.data(), second.size()));
  CHECK(r.code == FRUGAL_ERR_UNSUPPORTED);
  CHECK(contains(r.message, "put 'ckpt/shard-0'"));
  CHECK(contains(r.message, "io=direct"));
  CHECK(get(fallback.get(), "ckpt/shard-0") == first);  // the previous object, byte for byte
  CHECK(entries_of(root / "ckpt") == std::vector<std::string>{"shard-0", "shard-1"});  // no temp file left
  // Reads need no direct I/O: a required-direct store still reads.
  CHECK(get(required.get(), "ckpt/shard-1") == second);
}

TEST_CASE("option errors name the option") {
  TempDir tmp;
  auto context = fs_context();
  const auto open_with = [&](const frugal_options* options) {
    frugal_store* store = nullptr;
    auto r = outcome(frugal_store_create(context.get(), "fs", options, &store));
    CHECK(store == nullptr);
    return r;
  };
  const std::string root = (tmp.path() / "r").string();

  SECTION("root missing") {
    for (const bool null_options : {true, false}) {
      auto options = host::make_options();
      const auto r = open_with(null_options ? nullptr : options.get());
      CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
      CHECK(contains(r.message, "store 'fs'"));
      CHECK(contains(r.message, "option 'root' is required"));
    }
  }
  SECTION("root empty") {
    auto options = host::make_options();
    host::check(frugal_options_set_string(options.get(), "root", ""));
    const auto r = open_with(options.get());
    CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(contains(r.message, "option 'root' must not be empty"));
  }
  SECTION("unknown option") {
    auto options = host::make_options();
    host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
    host::check(frugal_options_set_bool(options.get(), "fsynk", 0));
    const auto r = open_with(options.get());
    CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(contains(r.message, "unknown option 'fsynk'"));
    CHECK(contains(r.message, "inject_enospc_after_bytes"));  // lists what is accepted
    CHECK(!fs::exists(root));                                 // refused before touching the disk
  }
  SECTION("wrong types") {
    struct Case {
      const char* name;
      const char* text;
    };
    for (const Case c : {Case{"root", "42"}, Case{"fsync", "yes"}, Case{"inject_enospc_after_bytes", "lots"}}) {
      INFO(c.name);
      auto options = host::make_options();
      if (std::string(c.name) != "root") host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
      host::check(frugal_options_set_parsed(options.get(), c.name, c.text));
      const auto r = open_with(options.get());
      CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
      CHECK(contains(r.message, "option '" + std::string(c.name) + "'"));
    }
  }
  SECTION("inject_enospc_after_bytes below -1") {
    auto options = host::make_options();
    host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
    host::check(frugal_options_set_int(options.get(), "inject_enospc_after_bytes", -2));
    const auto r = open_with(options.get());
    CHECK(r.code == FRUGAL_ERR_OUT_OF_RANGE);
    CHECK(contains(r.message, "option 'inject_enospc_after_bytes' = -2 is out of range: must be >= -1"));
    CHECK(!fs::exists(root));
  }
  SECTION("io outside its choices") {
    auto options = host::make_options();
    host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
    host::check(frugal_options_set_string(options.get(), "io", "fast"));
    const auto r = open_with(options.get());
    CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(contains(r.message, "option 'io'"));
    CHECK(contains(r.message, "'auto', 'direct', 'buffered'"));
    CHECK(!fs::exists(root));
  }
  SECTION("root is a file") {
    write_file(root, "not a directory");
    auto options = host::make_options();
    host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
    const auto r = open_with(options.get());
    CHECK(r.code == FRUGAL_ERR_IO);
    CHECK(contains(r.message, root));
  }
}

TEST_CASE("open creates a missing root with its parents, mode 0755") {
  TempDir tmp;
  const fs::path root = tmp.path() / "a" / "b" / "c";
  const mode_t mask = ::umask(022);
  ::umask(mask);
  {
    auto s = open_store(root);
    put(s.get(), "k", Bytes{1});
  }
  for (const fs::path& dir : {tmp.path() / "a", tmp.path() / "a" / "b", root}) {
    struct stat st {};
    REQUIRE(::stat(dir.c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 07777) == (0755 & ~mask));
  }
  // Reopening an existing root keeps its objects.
  auto again = open_store(root.string() + "/");
  CHECK(get(again.get(), "k") == Bytes{1});
}

TEST_CASE("a failed open removes exactly the directories it created") {
  TempDir tmp;
  auto context = fs_context();
  const auto open_at = [&](const std::string& root) {
    auto options = host::make_options();
    host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
    frugal_store* store = nullptr;
    auto r = outcome(frugal_store_create(context.get(), "fs", options.get(), &store));
    CHECK(store == nullptr);
    return r;
  };
  fs::create_directories(tmp.path() / "existing");
  const auto before = tree_of(tmp.path());

  SECTION("a root too long for the system: hundreds of nested directories, none left") {
    std::string root = (tmp.path() / "existing").string();
    while (root.size() < 2 * PATH_MAX) root += "/d123456789";
    const auto r = open_at(root);
    CHECK(r.code == FRUGAL_ERR_IO);
    CHECK(contains(r.message, "cannot create root directory"));
    CHECK(contains(r.message, "File name too long"));
    CHECK(tree_of(tmp.path()) == before);
  }
  SECTION("a root below a file") {
    write_file(tmp.path() / "existing" / "file", "x");
    const auto with_file = tree_of(tmp.path());
    const auto r = open_at((tmp.path() / "existing" / "file" / "a" / "b").string());
    CHECK(r.code == FRUGAL_ERR_IO);
    CHECK(contains(r.message, "existing/file"));
    CHECK(tree_of(tmp.path()) == with_file);
  }
  SECTION("new directories, then a file in the way: the new ones are taken back") {
    // Creating fails only after open has made two new directories.
    write_file(tmp.path() / "file", "x");
    const auto with_file = tree_of(tmp.path());
    const auto r = open_at((tmp.path() / "existing" / "n1" / "n2" / ".." / ".." / ".." / "file" / "root").string());
    CHECK(r.code == FRUGAL_ERR_IO);
    CHECK(tree_of(tmp.path()) == with_file);
  }
  SECTION("a root below a read-only directory") {
    if (::geteuid() == 0) {
      WARN("skipped: root ignores directory permissions");
      return;
    }
    fs::permissions(tmp.path() / "existing", fs::perms::owner_read | fs::perms::owner_exec);
    const auto r = open_at((tmp.path() / "existing" / "a" / "b").string());
    fs::permissions(tmp.path() / "existing", fs::perms::owner_all);
    CHECK(r.code == FRUGAL_ERR_IO);
    CHECK(contains(r.message, "Permission denied"));
    CHECK(tree_of(tmp.path()) == before);
  }
}

TEST_CASE("concurrent puts of different keys from 4 threads are all readable afterwards") {
  TempDir tmp;
  auto s = open_store(tmp.path() / "root");
  constexpr int kThreads = 4, kPerThread = 40;
  const auto key_of = [](int t, int i) {
    // Half share one directory (created concurrently), half per thread.
    return (i % 2 == 0 ? "shared/" : "t" + std::to_string(t) + "/") + "k-" + std::to_string(t) + "-" +
           std::to_string(i);
  };
  const auto data_of = [](int t, int i) { return random_bytes(size_t(1000 + 37 * i), uint32_t(t * 1000 + i)); };
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const Bytes data = data_of(t, i);
        const std::string key = key_of(t, i);
        if (frugal_error* e = frugal_store_put(s.get(), key.c_str(), data.data(), data.size())) {
          frugal_error_destroy(e);
          ++failures;
        }
      }
    });
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kPerThread; ++i) {
      INFO(key_of(t, i));
      CHECK(get(s.get(), key_of(t, i)) == data_of(t, i));
    }
  CHECK(list_keys(s.get(), "").size() == size_t(kThreads * kPerThread));
}

TEST_CASE("puts racing removes and listings that empty their shared directory never fail") {
  // remove tidies a directory the moment it is empty, and list reclaims
  // directories holding only temp files of dead writers; a put of another
  // key into that directory must then recreate it rather than fail, and a
  // listing must never take a live put's temp file.
  TempDir tmp;
  const fs::path root = tmp.path() / "root";
  auto s = open_store(root);
  constexpr int kRounds = 150;
  std::atomic<int> failures{0};
  std::mutex mutex;  // Catch2 macros are not thread-safe: collect, then report
  std::vector<std::string> messages;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const std::string key = "d/sub/key-" + std::to_string(t);
      const Bytes data = random_bytes(64, uint32_t(t));
      for (int i = 0; i < kRounds; ++i) {
        frugal_error* e = frugal_store_put(s.get(), key.c_str(), data.data(), data.size());
        if (e == nullptr) {
          Bytes back(data.size());
          e = frugal_store_read(s.get(), key.c_str(), 0, back.data(), back.size());
          if (e == nullptr && back != data) ++failures;
        }
        if (e == nullptr) e = frugal_store_remove(s.get(), key.c_str());
        if (e != nullptr) {
          const std::lock_guard<std::mutex> lock(mutex);
          messages.push_back(frugal_error_message(e));
          frugal_error_destroy(e);
          ++failures;
        }
      }
    });
  std::atomic<bool> done{false};
  std::atomic<int> listings{0};
  std::thread lister([&] {
    while (!done) {
      try {
        for (const auto& l : list_keys(s.get(), ""))
          if (l.size != 64) ++failures;  // never a half-written object
        ++listings;
      } catch (const host::Exception& e) {
        const std::lock_guard<std::mutex> lock(mutex);
        messages.push_back(e.what());
        ++failures;
      }
    }
  });
  for (auto& th : threads) th.join();
  done = true;
  lister.join();
  for (const auto& m : messages) UNSCOPED_INFO(m);
  CHECK(failures == 0);
  CHECK(listings > 0);
  CHECK(entries_of(root).empty());
}
