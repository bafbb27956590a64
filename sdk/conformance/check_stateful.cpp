// The state rules shared by policies, quantizers and routers, and the
// quantizer and router checks that need no tensors (layout out-structs of
// every size, NULL and undersized argument structs), which then hand over to
// the tensor checks (check_quantizer.cpp, check_router.cpp) before the state
// round trips.
#include <cstring>
#include <vector>

#include "frugal/quantizer.h"
#include "frugal/quantizer_vtable.h"
#include "frugal/router.h"
#include "frugal/router_vtable.h"
#include "quantizer_checks.hpp"
#include "router_checks.hpp"
#include "strategy_checks.hpp"

namespace frugal::conformance {

std::vector<unsigned char> export_blob(Checks& c, const StateSlots& slots, void* from) {
  size_t size = 0;
  const Error query(slots.export_state(from, nullptr, 0, &size));
  if (query) {
    c.fail("state", "export_state(buffer NULL) size query -> " + query.describe());
    return {};
  }
  std::vector<unsigned char> blob(size);
  size_t written = 0;
  const Error e(slots.export_state(from, blob.data(), blob.size(), &written));
  if (e || written != size) {
    c.fail("state", "export_state into " + std::to_string(size) + " bytes -> " + e.describe());
    return {};
  }
  return blob;
}

void check_state(Checks& c, const StateSlots& slots, void* from, Instance fresh,
                 const std::function<std::vector<unsigned char>(void*)>& after) {
  if (!fresh) return;
  c.begin("state");
  size_t size = 0;
  c.expect_error("null-arguments", "export_state(size NULL)", slots.export_state(from, nullptr, 0, nullptr));
  const std::vector<unsigned char> blob = export_blob(c, slots, from);
  if (blob.empty() && c.failures() > 0) return;
  if (!blob.empty()) {
    std::vector<unsigned char> small(blob.size() - 1);
    size = 0;
    const Error e(slots.export_state(from, small.data(), small.size(), &size));
    c.check(e.code() == FRUGAL_ERR_OUT_OF_RANGE && size == blob.size(), "state",
            "export_state with a buffer 1 byte short -> " + e.describe() + ", size " + std::to_string(size) +
                " (header: set size and return FRUGAL_ERR_OUT_OF_RANGE)");
  }
  if (!c.expect_ok("state", "import_state of an exported blob",
                   slots.import_state(fresh.get(), blob.data(), blob.size())))
    return;
  if (!blob.empty()) {
    c.begin("state-corrupt");
    std::vector<unsigned char> corrupt = blob;
    corrupt[corrupt.size() / 2] ^= 0x5A;
    c.expect_error("state-corrupt",
                   "import_state of a blob with one byte flipped (header: the blob is "
                   "self-checking; a corrupt one is an error)",
                   slots.import_state(fresh.get(), corrupt.data(), corrupt.size()));
    c.expect_error("state-corrupt", "import_state of a truncated blob",
                   slots.import_state(fresh.get(), blob.data(), blob.size() - 1));
  }
  c.begin("state-restore");
  const std::vector<unsigned char> expected = after(from);
  const std::vector<unsigned char> got = after(fresh.get());
  c.check(expected == got, "state-restore",
          expected == got ? "an instance that imported the blob (after refusing corrupt ones) answers later calls "
                            "as the exporter does"
                          : "after import_state the instance answers later calls differently from the exporter "
                            "(header: restores exactly; a refused blob leaves the instance unchanged)");
}

namespace {

// Layout out-structs: the v2.0 size, a larger one whose tail the plugin
// must not touch, and one holding struct_size alone (filled "up to it").
template <typename Layout, typename Fn>
void check_layout(Checks& c, void* instance, Fn layout) {
  c.begin("struct-size");
  struct Larger {
    Layout layout;
    unsigned char tail[32];
  };
  Larger big;
  std::memset(&big, 0xAB, sizeof big);
  big.layout.struct_size = sizeof big;
  Layout plain{};
  plain.struct_size = sizeof plain;
  const Error e1(layout(instance, &plain));
  const Error e2(layout(instance, &big.layout));
  bool tail_kept = true;
  for (unsigned char b : big.tail) tail_kept = tail_kept && b == 0xAB;
  const bool same =
      !e1 && !e2 &&
      std::memcmp(reinterpret_cast<const char*>(&plain) + sizeof(size_t),
                  reinterpret_cast<const char*>(&big.layout) + sizeof(size_t), sizeof(Layout) - sizeof(size_t)) == 0;
  c.check(same && tail_kept, "struct-size",
          "layout into struct_size " + std::to_string(sizeof(Layout)) + " and " + std::to_string(sizeof(Larger)) +
              ": same fields, tail untouched (" + e1.describe() + ", " + e2.describe() + ")");
  struct Guarded {
    size_t struct_size;
    unsigned char guard[sizeof(Layout)];
  } tiny;
  std::memset(&tiny, 0xCD, sizeof tiny);
  tiny.struct_size = sizeof(size_t);
  const Error e3(layout(instance, reinterpret_cast<Layout*>(&tiny)));
  bool untouched = tiny.struct_size == sizeof(size_t);
  for (unsigned char b : tiny.guard) untouched = untouched && b == 0xCD;
  c.check(
      !e3 && untouched, "struct-size",
      "layout into a struct_size of 8 writes nothing past it (header: the callee fills up to it) -> " + e3.describe());
  c.begin("null-arguments");
  c.expect_error("null-arguments", "layout(out NULL)", layout(instance, nullptr));
}

// An argument struct whose struct_size stops before its required fields.
template <typename Args>
Args undersized() {
  Args args{};
  args.struct_size = sizeof(size_t);
  return args;
}

}  // namespace

void check_quantizer_core(Checks& c) {
  c.begin("core");
  const Options options(c.user_options());
  frugal_quantizer* q = nullptr;
  const Error e(frugal_quantizer_create(c.s.context, c.s.label.c_str(), options.p, &q));
  if (e) return c.fail("core", "frugal_quantizer_create: " + e.describe());
  frugal_quant_layout layout{};
  layout.struct_size = sizeof layout;
  const Error le(frugal_quantizer_layout(q, &layout));
  int64_t shape[2] = {0, 0};
  const Error se(le ? nullptr : frugal_quantizer_scale_shape(q, 16, 64, shape));
  std::string qe;
  if (!le && !se) c.core_result = core_quantize_result(q, qe);
  frugal_quantizer_destroy(q);
  c.check(!le && !se && qe.empty(), "core",
          "frugal_quantizer_create accepts the layout (" + le.describe() + "), scale grid " + std::to_string(shape[0]) +
              "x" + std::to_string(shape[1]) + " (" + se.describe() + "), quantize " +
              (qe.empty() ? "accepted" : "refused: " + qe));
}

void check_quantizer(Checks& c) {
  const auto* vt = static_cast<const frugal_quantizer_vtable*>(c.s.vtable);
  Instance a = c.create();
  if (!a) return;
  check_layout<frugal_quant_layout>(c, a.get(), vt->layout);
  c.expect_error("null-arguments", "quantize(args NULL)", vt->quantize(a.get(), nullptr));
  c.expect_error("null-arguments", "dequantize(args NULL)", vt->dequantize(a.get(), nullptr));
  c.begin("struct-size");
  const auto q = undersized<frugal_quantize_call>();
  c.expect_error("struct-size", "quantize(args struct_size 8, below the required fields)", vt->quantize(a.get(), &q),
                 FRUGAL_ERR_ABI_MISMATCH);
  const auto d = undersized<frugal_dequantize_call>();
  c.expect_error("struct-size", "dequantize(args struct_size 8)", vt->dequantize(a.get(), &d), FRUGAL_ERR_ABI_MISMATCH);
  // Leaves `a` with recorded state (a delayed recipe's amax history).
  check_quantizer_tensors(c, a.get());
  // An importer must quantize later inputs exactly as the exporter does.
  check_state(c, StateSlots{vt->export_state, vt->import_state}, a.get(), c.create("state"),
              [&](void* instance) { return quantize_result(vt, instance); });
}

void check_router_core(Checks& c) {
  c.begin("core");
  const Options options(c.user_options());
  frugal_router* r = nullptr;
  const Error e(frugal_router_create(c.s.context, c.s.label.c_str(), options.p, &r));
  if (e) return c.fail("core", "frugal_router_create: " + e.describe());
  frugal_route_shape shape{};
  shape.struct_size = sizeof shape;
  const Error se(frugal_router_plan_shape(r, 32, &shape));
  frugal_route_layout layout{};
  layout.struct_size = sizeof layout;
  const Error le(frugal_router_layout(r, &layout));
  std::string re;
  if (!se && !le)
    c.core_result = route_plan_bytes(
        layout,
        [&](const frugal_tensor* x, const frugal_route_plan* plan) {
          const frugal_route_args args{sizeof args, x, plan, nullptr};
          return frugal_router_route(r, &args);
        },
        re);
  frugal_router_destroy(r);
  c.check(!se && !le && re.empty(), "core",
          "frugal_router_create accepts the layout (" + le.describe() +
              "); plan for 32 tokens: " + std::to_string(shape.max_rows) + " rows (" + se.describe() +
              "); frugal_router_route " + (re.empty() ? "accepts the plugin's plan" : "refused: " + re));
}

void check_router(Checks& c) {
  const auto* vt = static_cast<const frugal_router_vtable*>(c.s.vtable);
  Instance a = c.create();
  if (!a) return;
  check_layout<frugal_route_layout>(c, a.get(), vt->layout);
  c.expect_error("null-arguments", "route(args NULL)", vt->route(a.get(), nullptr));
  c.expect_error("null-arguments", "permute(args NULL)", vt->permute(a.get(), nullptr));
  c.expect_error("null-arguments", "combine(args NULL)", vt->combine(a.get(), nullptr));
  c.expect_error("null-arguments", "update(args NULL)", vt->update(a.get(), nullptr));
  c.begin("struct-size");
  const auto r = undersized<frugal_route_call>();
  c.expect_error("struct-size", "route(args struct_size 8, below the required fields)", vt->route(a.get(), &r),
                 FRUGAL_ERR_ABI_MISMATCH);
  const auto u = undersized<frugal_router_update_call>();
  c.expect_error("struct-size", "update(args struct_size 8)", vt->update(a.get(), &u), FRUGAL_ERR_ABI_MISMATCH);
  // Leaves `a` with moved state (a bias router's bias).
  check_router_tensors(c, a.get());
  // An importer must route and move later inputs exactly as the exporter does.
  check_state(c, StateSlots{vt->export_state, vt->import_state}, a.get(), c.create("state"),
              [&](void* instance) { return route_result(vt, instance); });
}

}  // namespace frugal::conformance
