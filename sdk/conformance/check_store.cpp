// Stores (store_vtable.h): put/size/read/list/remove round trip, keys that
// could leave the root refused, the documented error codes, and concurrent
// use on different keys (every open store allows it).
#include <string>
#include <vector>

#include "frugal/store.h"
#include "frugal/store_vtable.h"
#include "strategy_checks.hpp"

namespace frugal::conformance {

namespace {

const std::string kPayload = "frugal conformance payload\n";

int32_t collect_key(void* user_data, const char* key, uint64_t) {
  static_cast<std::vector<std::string>*>(user_data)->push_back(key);
  return 0;
}

}  // namespace

void check_store_core(Checks& c) {
  c.begin("core");
  const Options options(c.user_options());
  frugal_store* store = nullptr;
  const Error e(frugal_store_create(c.s.context, c.s.label.c_str(), options.p, &store));
  if (e) return c.fail("core", "frugal_store_create: " + e.describe());
  const Error put(frugal_store_put(store, "core/object", kPayload.data(), kPayload.size()));
  std::string back(kPayload.size(), '\0');
  const Error read(put ? nullptr : frugal_store_read(store, "core/object", 0, back.data(), back.size()));
  const Error removed(frugal_store_remove(store, "core/object"));
  frugal_store_destroy(store);
  const bool ok = !put && !read && !removed && back == kPayload;
  c.check(ok, "core",
          ok ? "put, read and remove through frugal_store_* round trip"
             : "through frugal_store_*: put " + put.describe() + ", read " + read.describe() + ", remove " +
                   removed.describe());
}

void check_store(Checks& c) {
  const auto* vt = static_cast<const frugal_store_vtable*>(c.s.vtable);
  Instance store = c.create();
  if (!store) return;
  void* st = store.get();

  c.begin("round-trip");
  if (c.expect_ok("round-trip", "put(\"a/b\")", vt->put(st, "a/b", kPayload.data(), kPayload.size()))) {
    uint64_t size = 0;
    const Error se(vt->size(st, "a/b", &size));
    std::string back(kPayload.size(), '\0');
    const Error re(vt->read(st, "a/b", 0, back.data(), back.size()));
    c.check(!se && !re && size == kPayload.size() && back == kPayload, "round-trip",
            "size and read give back what put wrote (size " + se.describe() + ", read " + re.describe() + ")");
    c.begin("out-of-range");
    char byte = 0;
    c.expect_error("out-of-range", "read past the end (store_vtable.h: FRUGAL_ERR_OUT_OF_RANGE)",
                   vt->read(st, "a/b", kPayload.size(), &byte, 1), FRUGAL_ERR_OUT_OF_RANGE);
    c.begin("list");
    vt->put(st, "a/a", "x", 1);
    std::vector<std::string> keys;
    const Error le(vt->list(st, "a/", &collect_key, &keys));
    c.check(!le && keys == std::vector<std::string>{"a/a", "a/b"}, "list",
            "list(\"a/\") gives every object in key order (store_vtable.h) -> " + le.describe());
    c.begin("remove");
    const Error r1(vt->remove(st, "a/b"));
    const Error r2(vt->remove(st, "a/b"));
    vt->remove(st, "a/a");
    uint64_t gone = 0;
    const Error ge(vt->size(st, "a/b", &gone));
    c.check(!r1 && !r2 && ge.code() == FRUGAL_ERR_NOT_FOUND, "remove",
            "remove, remove of an absent key succeeds, size of it is NOT_FOUND (store_vtable.h) -> " + ge.describe());
  }
  c.begin("invalid-arguments");
  for (const char* key : {"../escape", "/absolute", "a/../../b", ".hidden", ""}) {
    c.expect_error("invalid-arguments",
                   std::string("put(key \"") + key + "\") (store_vtable.h: a backend validates keys again)",
                   vt->put(st, key, "x", 1));
  }
  c.begin("null-arguments");
  uint64_t size = 0;
  c.expect_error("null-arguments", "put(key NULL)", vt->put(st, nullptr, "x", 1));
  c.expect_error("null-arguments", "size(out NULL)", vt->size(st, "a/b", nullptr));

  c.begin("thread-safety");
  constexpr int kThreads = 4;
  std::vector<std::string> errors(kThreads);
  run_concurrently(kThreads, [&](int t) {
    for (int i = 0; i < 20 && errors[t].empty(); ++i) {
      const std::string key = "threads/t" + std::to_string(t) + "/k" + std::to_string(i);
      const std::string value = key + kPayload;
      std::string back(value.size(), '\0');
      const Error pe(vt->put(st, key.c_str(), value.data(), value.size()));
      const Error re(pe ? nullptr : vt->read(st, key.c_str(), 0, back.data(), back.size()));
      const Error de(vt->remove(st, key.c_str()));
      if (pe || re || de || back != value) errors[t] = key + ": put " + pe.describe() + ", read " + re.describe();
    }
  });
  std::string first;
  for (const auto& e : errors)
    if (first.empty()) first = e;
  c.check(first.empty(), "thread-safety",
          first.empty() ? "4 threads on different keys of one store (store_vtable.h: an open store may be used "
                          "from several threads at once)"
                        : "concurrent use on different keys failed: " + first);
  (void)size;
}

}  // namespace frugal::conformance
