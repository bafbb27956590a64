// Packers (packer_vtable.h): a valid assignment, NULL arguments refused, a
// larger request struct read like the v2.0 one, determinism per seed and
// thread safety as flagged.
#include <algorithm>
#include <vector>

#include "frugal/packer.h"
#include "frugal/packer_vtable.h"
#include "strategy_checks.hpp"

namespace frugal::conformance {

namespace {

constexpr int64_t kMaxLen = 64;

std::vector<int64_t> lengths() {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < 200; ++i) out.push_back(1 + (i * 37 + 11) % kMaxLen);
  return out;
}

struct Assignment {
  std::vector<int64_t> units, offsets;
  size_t packs = 0;
  std::string error;  // empty when the call succeeded
};

// A request struct followed by a zeroed tail, as a newer core would build.
struct LargerRequest {
  frugal_pack_request request;
  unsigned char tail[64];
};

Assignment pack(const frugal_packer_vtable* vt, void* instance, const frugal_pack_request& request) {
  Assignment a;
  a.units.assign(request.count, -1);
  a.offsets.assign(request.count + 1, -1);
  frugal_pack_assignment out{sizeof(frugal_pack_assignment), a.units.data(), a.offsets.data(), 0, nullptr};
  const Error e(vt->pack(instance, &request, &out));
  if (e) a.error = e.describe();
  a.packs = out.pack_count;
  return a;
}

// What the core's assignment check would say, or "".
std::string validate(const Assignment& a, const std::vector<int64_t>& len) {
  if (!a.error.empty()) return "pack failed: " + a.error;
  if (a.packs < 1 || a.packs > len.size()) return "pack_count " + std::to_string(a.packs) + " outside [1, count]";
  if (a.offsets[0] != 0 || a.offsets[a.packs] != static_cast<int64_t>(len.size())) return "bad pack_offsets";
  std::vector<int> seen(len.size(), 0);
  for (size_t p = 0; p < a.packs; ++p) {
    int64_t tokens = 0;
    if (a.offsets[p + 1] <= a.offsets[p]) return "pack " + std::to_string(p) + " is empty or offsets decrease";
    for (int64_t i = a.offsets[p]; i < a.offsets[p + 1]; ++i) {
      const int64_t u = a.units[i];
      if (u < 0 || u >= static_cast<int64_t>(len.size()) || seen[u]++) return "unit placed twice or out of range";
      tokens += len[u];
    }
    if (tokens > kMaxLen) return "pack " + std::to_string(p) + " holds more than max_len tokens";
  }
  return "";
}

bool same(const Assignment& a, const Assignment& b) {
  return a.error == b.error && a.packs == b.packs && a.units == b.units && a.offsets == b.offsets;
}

}  // namespace

void check_packer_core(Checks& c) {
  c.begin("core");
  const Options options(c.user_options());
  if (const Error set(frugal_options_set_int(options.p, "max_len", kMaxLen)); set)
    return c.fail("core", "max_len: " + set.describe());
  frugal_packer* packer = nullptr;
  const Error e(frugal_packer_create(c.s.context, c.s.label.c_str(), options.p, &packer));
  if (e) return c.fail("core", "frugal_packer_create: " + e.describe());
  const std::vector<int64_t> len = lengths();
  frugal_pack_plan* plan = nullptr;
  const Error pe(frugal_packer_pack(packer, len.data(), len.size(), &plan));
  frugal_pack_plan_destroy(plan);
  frugal_packer_destroy(packer);
  c.check(!pe, "core",
          pe ? "frugal_packer_pack refused the plugin's assignment: " + pe.describe()
             : "frugal_packer_pack accepts the plugin's assignment");
}

void check_packer(Checks& c) {
  const auto* vt = static_cast<const frugal_packer_vtable*>(c.s.vtable);
  Instance a = c.create();
  if (!a) return;
  const std::vector<int64_t> len = lengths();
  const frugal_pack_request request{sizeof(frugal_pack_request), len.data(), len.size(), kMaxLen, 0, 7};

  c.begin("assignment");
  const Assignment reference = pack(vt, a.get(), request);
  const std::string bad = validate(reference, len);
  c.check(bad.empty(), "assignment",
          bad.empty() ? "every unit exactly once, no pack over max_len (packer_vtable.h)" : bad);

  c.begin("null-arguments");
  std::vector<int64_t> units(len.size()), offsets(len.size() + 1);
  frugal_pack_assignment out{sizeof(frugal_pack_assignment), units.data(), offsets.data(), 0, nullptr};
  c.expect_error("null-arguments", "pack(request NULL)", vt->pack(a.get(), nullptr, &out));
  c.expect_error("null-arguments", "pack(out NULL)", vt->pack(a.get(), &request, nullptr));

  c.begin("struct-size");
  LargerRequest larger{};
  larger.request = request;
  larger.request.struct_size = sizeof(LargerRequest);
  c.check(same(pack(vt, a.get(), larger.request), reference), "struct-size",
          "a request with struct_size " + std::to_string(sizeof(LargerRequest)) +
              " (zeroed tail) packs like the v2.0 size (plugin.h: receivers read only fields they know)");

  if (c.s.flags & FRUGAL_STRATEGY_DETERMINISTIC) {
    c.begin("determinism");
    Instance b = c.create("determinism");
    if (b)
      c.check(same(pack(vt, b.get(), request), reference), "determinism",
              "two instances pack one request and seed identically (packer_vtable.h: the same request and seed "
              "must give the same assignment; FRUGAL_STRATEGY_DETERMINISTIC)");
  }
  if (c.s.flags & FRUGAL_STRATEGY_THREAD_SAFE) {
    c.begin("thread-safety");
    constexpr int kThreads = 4;
    std::vector<int> ok(kThreads, 1);
    run_concurrently(kThreads, [&](int t) {
      for (int round = 0; round < 20; ++round) ok[t] = ok[t] && same(pack(vt, a.get(), request), reference);
    });
    const bool all = std::all_of(ok.begin(), ok.end(), [](int v) { return v != 0; });
    c.check(all, "thread-safety",
            all ? "4 threads on one instance pack as sequential calls do (FRUGAL_STRATEGY_THREAD_SAFE)"
                : "concurrent calls on one instance give other assignments than sequential calls despite "
                  "FRUGAL_STRATEGY_THREAD_SAFE");
  }
}

}  // namespace frugal::conformance
