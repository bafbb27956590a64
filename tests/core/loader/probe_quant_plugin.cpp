// A quantizer plugin for the core's quantizer tests: it does no arithmetic.
// Its layout comes from options, so one .so covers every layout the core
// must check tensors against, and with option echo its quantize, dequantize
// and gemm fail on purpose (FRUGAL_ERR_CANCELLED) with a message describing
// the views the core handed over, which the tests parse. Written against
// the raw C ABI: the point is what the core passes, not the sdk adapter.
//
// Strategies: "probe_quant" (with gemm) and "probe_quant_nogemm" (gemm NULL).
// Options: dtype (e4m3 | e5m2 | int8), mode (delayed | current | rows | cols
// | block | mx | asym), fault (none | bad_dtype | bad_mode | mx_fp32 |
// tensor_blocks | zp_fp8 | overwrite), echo (bool).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "frugal/plugin.h"
#include "frugal/quantizer_vtable.h"

namespace {

struct Probe {
  const frugal_host_api* host;
  frugal_quant_layout layout;
  bool echo;
  bool overwrite;  // export_state claims more bytes than the buffer holds
};

std::string option_string(const frugal_host_api* host, const frugal_options* options, const char* name,
                          const char* fallback) {
  const char* value = fallback;
  if (frugal_error* e = host->option_get_string(options, name, fallback, &value)) {
    host->error_destroy(e);
    return fallback;
  }
  return value != nullptr ? value : fallback;
}

frugal_quant_layout layout_for(const std::string& dtype, const std::string& mode, const std::string& fault) {
  frugal_quant_layout l{
      sizeof(frugal_quant_layout), FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_SCALING_DELAYED, 0, 0, FRUGAL_DTYPE_FLOAT32, 0};
  if (dtype == "e5m2") l.dtype = FRUGAL_DTYPE_FLOAT8_E5M2;
  if (dtype == "int8") l.dtype = FRUGAL_DTYPE_INT8;
  if (mode == "current") l.scaling_mode = FRUGAL_SCALING_CURRENT;
  if (mode == "rows") l = {l.struct_size, l.dtype, FRUGAL_SCALING_PER_CHANNEL, 1, 0, FRUGAL_DTYPE_FLOAT32, 0};
  if (mode == "cols") l = {l.struct_size, l.dtype, FRUGAL_SCALING_PER_CHANNEL, 0, 1, FRUGAL_DTYPE_FLOAT32, 0};
  if (mode == "block") l = {l.struct_size, l.dtype, FRUGAL_SCALING_BLOCK, 128, 128, FRUGAL_DTYPE_FLOAT32, 0};
  if (mode == "mx") l = {l.struct_size, l.dtype, FRUGAL_SCALING_MX, 1, 32, FRUGAL_DTYPE_FLOAT8_E8M0FNU, 0};
  if (mode == "asym") {
    l = {l.struct_size, FRUGAL_DTYPE_INT8, FRUGAL_SCALING_PER_CHANNEL, 1, 0, FRUGAL_DTYPE_FLOAT32, 0};
    l.flags = FRUGAL_QUANT_LAYOUT_ZERO_POINT;
  }
  if (fault == "bad_dtype") l.dtype = FRUGAL_DTYPE_FLOAT32;
  if (fault == "bad_mode") l.scaling_mode = 9;
  if (fault == "mx_fp32") l = {l.struct_size, l.dtype, FRUGAL_SCALING_MX, 1, 32, FRUGAL_DTYPE_FLOAT32, 0};
  if (fault == "tensor_blocks") l = {l.struct_size, l.dtype, FRUGAL_SCALING_CURRENT, 1, 32, FRUGAL_DTYPE_FLOAT32, 0};
  if (fault == "zp_fp8") l.flags = FRUGAL_QUANT_LAYOUT_ZERO_POINT;
  return l;
}

frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** instance) {
  const std::string fault = option_string(host, options, "fault", "none");
  int32_t echo = 0;
  if (frugal_error* e = host->option_get_bool(options, "echo", 0, &echo)) return e;
  *instance = new Probe{
      host,
      layout_for(option_string(host, options, "dtype", "e4m3"), option_string(host, options, "mode", "delayed"), fault),
      echo != 0, fault == "overwrite"};
  return nullptr;
}

void destroy(void* instance) { delete static_cast<Probe*>(instance); }

frugal_error* layout(void* instance, frugal_quant_layout* out) {
  const auto* p = static_cast<Probe*>(instance);
  std::memcpy(static_cast<void*>(out), &p->layout, sizeof(frugal_quant_layout));
  return nullptr;
}

// "name=rows x cols/stride@address:device" for one view, "name=-" for NULL.
std::string describe(const char* name, const frugal_tensor* t) {
  if (t == nullptr) return std::string(" ") + name + "=-";
  char line[200];
  std::snprintf(line, sizeof line, " %s=%lldx%lld/%lld@%p:%d+%llu", name, static_cast<long long>(t->shape[0]),
                static_cast<long long>(t->shape[1]), static_cast<long long>(t->strides[0]), t->data,
                static_cast<int>(t->device.type), static_cast<unsigned long long>(t->byte_offset));
  std::string out(line);
  if (t->ndim != 2 || t->strides[1] != 1) out += "!bad-view";
  return out;
}

std::string describe_meta(const char* name, const frugal_tensor* t) {
  if (t == nullptr || t->quant == nullptr) return std::string(" ") + name + ".quant=-";
  const frugal_quant_meta* q = t->quant;
  std::string out = describe((std::string(name) + ".scale_inv").c_str(), q->scale_inv);
  out += describe((std::string(name) + ".scale").c_str(), q->scale);
  out += describe((std::string(name) + ".amax").c_str(), q->amax);
  if (q->ext != nullptr && q->ext->type == FRUGAL_EXT_QUANT_ZERO_POINT)
    out += describe((std::string(name) + ".zp").c_str(),
                    reinterpret_cast<const frugal_quant_zero_point_ext*>(q->ext)->zero_point);
  return out;
}

frugal_error* reply(const Probe* p, const std::string& seen) {
  return p->host->error_create(p->echo ? FRUGAL_ERR_CANCELLED : FRUGAL_ERR_UNIMPLEMENTED, ("echo:" + seen).c_str());
}

frugal_error* quantize(void* instance, const frugal_quantize_call* a) {
  std::string seen = describe("input", a->input) + describe("output", a->output) + describe_meta("output", a->output) +
                     describe("output_t", a->output_t) + describe_meta("output_t", a->output_t) +
                     describe("fake", a->fake);
  seen += " flags=" + std::to_string(a->flags);
  return reply(static_cast<Probe*>(instance), seen);
}

frugal_error* dequantize(void* instance, const frugal_dequantize_call* a) {
  return reply(static_cast<Probe*>(instance),
               describe("input", a->input) + describe_meta("input", a->input) + describe("output", a->output));
}

frugal_error* gemm(void* instance, const frugal_quant_gemm_call* a) {
  char alpha[40];
  std::snprintf(alpha, sizeof alpha, " alpha=%g flags=%u", static_cast<double>(a->alpha), a->flags);
  return reply(static_cast<Probe*>(instance), describe("a", a->a) + describe_meta("a", a->a) + describe("b", a->b) +
                                                  describe_meta("b", a->b) + describe("d", a->d) +
                                                  describe_meta("d", a->d) + alpha);
}

// The state is 5 fixed bytes, so the size query and the short-buffer path
// can be tested; "overwrite" lies about how much it wrote.
constexpr unsigned char kState[5] = {'p', 'r', 'o', 'b', 'e'};

frugal_error* export_state(void* instance, void* buffer, size_t capacity, size_t* size) {
  const auto* p = static_cast<Probe*>(instance);
  *size = sizeof kState;
  if (buffer == nullptr) return nullptr;
  if (capacity < sizeof kState) return p->host->error_create(FRUGAL_ERR_OUT_OF_RANGE, "state needs 5 bytes");
  std::memcpy(buffer, kState, sizeof kState);
  if (p->overwrite) *size = capacity + 1;
  return nullptr;
}

frugal_error* import_state(void* instance, const void* data, size_t size) {
  if (size == sizeof kState && std::memcmp(data, kState, size) == 0) return nullptr;
  return static_cast<Probe*>(instance)->host->error_create(FRUGAL_ERR_DATA_CORRUPTED, "not a probe state");
}

constexpr frugal_quantizer_vtable kWithGemm{
    sizeof(frugal_quantizer_vtable), create, destroy, layout, quantize, dequantize, export_state, import_state, gemm};
constexpr frugal_quantizer_vtable kNoGemm{sizeof(frugal_quantizer_vtable),
                                          create,
                                          destroy,
                                          layout,
                                          quantize,
                                          dequantize,
                                          export_state,
                                          import_state,
                                          nullptr};
constexpr frugal_strategy_desc kProbe{sizeof(frugal_strategy_desc),
                                      FRUGAL_KIND_QUANTIZER,
                                      0,
                                      "probe_quant",
                                      "echoes the views the core hands over",
                                      &kWithGemm,
                                      nullptr};
constexpr frugal_strategy_desc kProbeNoGemm{sizeof(frugal_strategy_desc),
                                            FRUGAL_KIND_QUANTIZER,
                                            0,
                                            "probe_quant_nogemm",
                                            "probe_quant without a GEMM",
                                            &kNoGemm,
                                            nullptr};
constexpr const frugal_strategy_desc* kStrategies[] = {&kProbe, &kProbeNoGemm};
constexpr frugal_plugin_desc kPlugin{sizeof(frugal_plugin_desc),
                                     FRUGAL_ABI_VERSION_MAJOR,
                                     FRUGAL_ABI_VERSION_MINOR,
                                     "probe_quant",
                                     "0.0.0",
                                     "frugal tests",
                                     "MIT",
                                     2,
                                     kStrategies,
                                     "quantizer probe for the core's tensor checks",
                                     nullptr,
                                     nullptr};

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v2(const frugal_host_api*,
                                                                    const frugal_plugin_desc** out) {
  *out = &kPlugin;
  return nullptr;
}
