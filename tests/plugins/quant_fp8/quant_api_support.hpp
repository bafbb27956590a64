// Host tensors for the quantizer C API tests: owned bytes behind a
// frugal_tensor view (rows may be padded), and quantized outputs with every
// scale tensor their quantizer's layout asks for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "frugal/sdk/host.hpp"

namespace frugal::test {

std::size_t element_size(int32_t dtype);

// A tensor over owned bytes. Rows (the last dimension) are `row_pad`
// elements longer than the shape says. Not copyable: view points inside.
struct HostTensor {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> shape, strides;
  frugal_tensor view{};

  HostTensor(int32_t dtype, std::vector<int64_t> dims, int64_t row_pad = 0,
             frugal_device device = {FRUGAL_DEVICE_CPU, 0});
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  int64_t rows() const;  // the product of the leading dimensions
  int64_t cols() const { return shape.back(); }
  int64_t row_stride() const { return shape.size() > 1 ? strides[strides.size() - 2] : cols(); }
  uint8_t* at(int64_t r, int64_t c);
  const uint8_t* at(int64_t r, int64_t c) const;
  // The elements' bytes without the padding, row after row.
  std::vector<uint8_t> payload() const;
};

// A quantized output of `layout`'s dtype over a rows x cols grid of scales,
// with scale_inv, scale (fp32 layouts), amax and, for a zero-point layout,
// the zero points chained on the meta.
struct QuantTensor {
  HostTensor codes;
  HostTensor scale_inv, scale, amax, zero_point;
  frugal_quant_meta meta{};
  frugal_quant_zero_point_ext zero_point_ext{};

  QuantTensor(const frugal_quant_layout& layout, std::vector<int64_t> dims, int64_t grid_rows, int64_t grid_cols,
              int64_t row_pad = 0);
  QuantTensor(const QuantTensor&) = delete;
  QuantTensor& operator=(const QuantTensor&) = delete;

  bool has_scale() const { return meta.scale != nullptr; }
  bool has_zero_point() const { return meta.ext != nullptr; }
};

// Options from (name, value) pairs.
using OptionValue = std::variant<const char*, int64_t, bool, double>;
struct Option {
  const char* name;
  OptionValue value;
};
host::OptionsPtr make_quant_options(const std::vector<Option>& options);

// A context with the built-in quant_fp8 plugin loaded.
host::ContextPtr quant_context();

// frugal_quantizer_layout and frugal_quantizer_scale_shape of q.
frugal_quant_layout layout_of(const frugal_quantizer* q);
std::vector<int64_t> grid_of(const frugal_quantizer* q, int64_t rows, int64_t cols);

}  // namespace frugal::test
