#include "quant_api_support.hpp"

#include <type_traits>

#include "test_helpers.hpp"

namespace frugal::test {

std::size_t element_size(int32_t dtype) { return static_cast<std::size_t>(frugal_dtype_bits(dtype) / 8); }

HostTensor::HostTensor(int32_t dtype, std::vector<int64_t> dims, int64_t row_pad, frugal_device device)
    : shape(std::move(dims)), strides(shape.size()) {
  int64_t step = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= i + 1 == shape.size() ? shape[i] + row_pad : shape[i];
  }
  bytes.assign(static_cast<std::size_t>(step) * element_size(dtype), 0xA5);
  view.struct_size = sizeof(frugal_tensor);
  view.data = bytes.data();
  view.dtype = dtype;
  view.ndim = static_cast<int32_t>(shape.size());
  view.device = device;
  view.shape = shape.data();
  view.strides = strides.data();
}

int64_t HostTensor::rows() const {
  int64_t r = 1;
  for (std::size_t i = 0; i + 1 < shape.size(); ++i) r *= shape[i];
  return r;
}

uint8_t* HostTensor::at(int64_t r, int64_t c) {
  return bytes.data() + static_cast<std::size_t>(r * row_stride() + c) * element_size(view.dtype);
}

const uint8_t* HostTensor::at(int64_t r, int64_t c) const {
  return bytes.data() + static_cast<std::size_t>(r * row_stride() + c) * element_size(view.dtype);
}

std::vector<uint8_t> HostTensor::payload() const {
  std::vector<uint8_t> out;
  for (int64_t r = 0; r < rows(); ++r) out.insert(out.end(), at(r, 0), at(r, 0) + cols() * element_size(view.dtype));
  return out;
}

QuantTensor::QuantTensor(const frugal_quant_layout& layout, std::vector<int64_t> dims, int64_t grid_rows,
                         int64_t grid_cols, int64_t row_pad)
    : codes(layout.dtype, std::move(dims), row_pad),
      scale_inv(layout.scale_dtype, {grid_rows, grid_cols}),
      scale(FRUGAL_DTYPE_FLOAT32, {grid_rows, grid_cols}),
      amax(FRUGAL_DTYPE_FLOAT32, {1}),
      zero_point(FRUGAL_DTYPE_INT8, {grid_rows, grid_cols}) {
  const bool fp32_scales = layout.scale_dtype == FRUGAL_DTYPE_FLOAT32;
  meta = {sizeof(frugal_quant_meta),
          layout.scaling_mode,
          layout.block_rows,
          layout.block_cols,
          0,
          fp32_scales ? &scale.view : nullptr,
          &scale_inv.view,
          &amax.view,
          nullptr};
  if ((layout.flags & FRUGAL_QUANT_LAYOUT_ZERO_POINT) != 0) {
    zero_point_ext.header = {sizeof(frugal_quant_zero_point_ext), FRUGAL_EXT_QUANT_ZERO_POINT, 0, nullptr};
    zero_point_ext.zero_point = &zero_point.view;
    meta.ext = &zero_point_ext.header;
  }
  codes.view.quant = &meta;
}

host::OptionsPtr make_quant_options(const std::vector<Option>& options) {
  auto out = host::make_options();
  for (const Option& o : options) {
    std::visit(
        [&](auto v) {
          using V = decltype(v);
          if constexpr (std::is_same_v<V, const char*>) {
            host::check(frugal_options_set_string(out.get(), o.name, v));
          } else if constexpr (std::is_same_v<V, bool>) {
            host::check(frugal_options_set_bool(out.get(), o.name, v ? 1 : 0));
          } else if constexpr (std::is_same_v<V, double>) {
            host::check(frugal_options_set_double(out.get(), o.name, v));
          } else {
            host::check(frugal_options_set_int(out.get(), o.name, v));
          }
        },
        o.value);
  }
  return out;
}

host::ContextPtr quant_context() {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), builtin_path("quant_fp8").c_str()));
  return context;
}

frugal_quant_layout layout_of(const frugal_quantizer* q) {
  frugal_quant_layout layout{};
  layout.struct_size = sizeof(layout);
  host::check(frugal_quantizer_layout(q, &layout));
  return layout;
}

std::vector<int64_t> grid_of(const frugal_quantizer* q, int64_t rows, int64_t cols) {
  std::vector<int64_t> grid(2, -1);
  host::check(frugal_quantizer_scale_shape(q, rows, cols, grid.data()));
  return grid;
}

}  // namespace frugal::test
