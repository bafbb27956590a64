// comm_nccl's pure pieces, checked without a GPU (plugins/comm_nccl/
// algorithms, library comm_nccl_algorithms: nothing of libnccl or CUDA is
// linked): the unique id's hex form, the dtype / reduction / failure tables
// against nccl.h's enums, and the byte offsets of the point-to-point parts
// all_to_all, all_to_all_v and all_gather_v become.
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "algorithms/nccl_types.hpp"
#include "algorithms/p2p_parts.hpp"
#include "algorithms/unique_id.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/tensor.h"

namespace nccl = frugal::comm_nccl;

namespace {

// The code and message of what `body` throws as sdk::PluginError.
template <typename Body>
std::pair<int32_t, std::string> refusal(Body&& body) {
  try {
    body();
  } catch (const frugal::sdk::PluginError& e) {
    return {e.code(), e.what()};
  }
  FAIL("no PluginError was thrown");
  return {};
}

frugal_comm_call call_of(int32_t op, int32_t dtype, size_t count) {
  frugal_comm_call c{};
  c.struct_size = sizeof(c);
  c.op = op;
  c.dtype = dtype;
  c.count = count;
  c.timeout_ms = 1000;
  return c;
}

}  // namespace

TEST_CASE("unique_id: 256 hex digits are the 128 bytes of an ncclUniqueId, and back") {
  nccl::UniqueIdBytes id{};
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(i * 37 + 11);
  const std::string text = nccl::encode_unique_id(id);
  REQUIRE(text.size() == 256);
  CHECK(text.substr(0, 6) == "0b3055");  // 11, 48, 85
  CHECK(nccl::decode_unique_id(text, "unique_id") == id);
  std::string upper = text;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(nccl::decode_unique_id(upper, "unique_id") == id);  // either case
  CHECK_FALSE(nccl::is_null_id(id));
  CHECK(nccl::is_null_id(nccl::UniqueIdBytes{}));
  CHECK(nccl::decode_unique_id(std::string(256, '0'), "unique_id") == nccl::UniqueIdBytes{});
  CHECK(nccl::decode_unique_id(std::string(256, 'f'), "unique_id")[127] == 0xff);
}

TEST_CASE("unique_id: a wrong length or a character that is not a hex digit is refused, naming the option") {
  SECTION("length") {
    for (const size_t n : {size_t{0}, size_t{10}, size_t{255}, size_t{257}, size_t{512}}) {
      const auto r = refusal([&] { nccl::decode_unique_id(std::string(n, 'a'), "unique_id"); });
      INFO(r.second);
      CHECK(r.first == FRUGAL_ERR_INVALID_ARGUMENT);
      CHECK(r.second.find("option 'unique_id' must be 256 hex digits") != std::string::npos);
      CHECK(r.second.find("got " + std::to_string(n) + " characters") != std::string::npos);
    }
  }
  SECTION("characters") {
    std::string text(256, '0');
    text[17] = 'g';
    auto r = refusal([&] { nccl::decode_unique_id(text, "unique_id"); });
    CHECK(r.first == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(r.second == "option 'unique_id' has 'g' at character 17, not a hex digit (0-9, a-f, A-F)");
    text[17] = '0';
    text[0] = '\n';
    r = refusal([&] { nccl::decode_unique_id(text, "unique_id"); });
    CHECK(r.second.find("has byte 0x0a at character 0") != std::string::npos);
    text[0] = ' ';  // no separators or padding
    r = refusal([&] { nccl::decode_unique_id(text, "unique_id"); });
    CHECK(r.second.find("has ' ' at character 0") != std::string::npos);
  }
}

TEST_CASE("reductions run in NCCL's own type for each dtype the core lets through") {
  // nccl.h's ncclDataType_t, one by one.
  CHECK(nccl::reduce_type(FRUGAL_DTYPE_FLOAT32) == ncclFloat32);
  CHECK(nccl::reduce_type(FRUGAL_DTYPE_FLOAT64) == ncclFloat64);
  CHECK(nccl::reduce_type(FRUGAL_DTYPE_FLOAT16) == ncclFloat16);
  CHECK(nccl::reduce_type(FRUGAL_DTYPE_BFLOAT16) == ncclBfloat16);
  CHECK(nccl::reduce_type(FRUGAL_DTYPE_INT32) == ncclInt32);
  CHECK(nccl::reduce_type(FRUGAL_DTYPE_INT64) == ncclInt64);
  CHECK(nccl::reduce_type(FRUGAL_DTYPE_UINT8) == ncclUint8);  // max and min only (the core refuses sum)
  for (const int32_t none : std::initializer_list<int32_t>{FRUGAL_DTYPE_INT8, FRUGAL_DTYPE_INT16, FRUGAL_DTYPE_BOOL,
                                                           FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_FLOAT8_E5M2,
                                                           FRUGAL_DTYPE_FLOAT8_E8M0FNU, 0, 99}) {
    INFO("dtype " << none);
    CHECK_FALSE(nccl::reduce_type(none).has_value());
  }
  CHECK(nccl::reduce_op(FRUGAL_REDUCE_SUM) == ncclSum);
  CHECK(nccl::reduce_op(FRUGAL_REDUCE_MAX) == ncclMax);
  CHECK(nccl::reduce_op(FRUGAL_REDUCE_MIN) == ncclMin);
  CHECK_FALSE(nccl::reduce_op(0).has_value());
  CHECK_FALSE(nccl::reduce_op(4).has_value());
  CHECK(std::string(nccl::nccl_type_name(ncclBfloat16)) == "ncclBfloat16");
  CHECK(std::string(nccl::nccl_op_name(ncclMin)) == "ncclMin");
}

TEST_CASE("NCCL failures map to frugal codes: peers IO, CUDA DEVICE, refused arguments by phase") {
  using nccl::Phase;
  CHECK(nccl::error_code(ncclRemoteError, Phase::collective) == FRUGAL_ERR_IO);
  CHECK(nccl::error_code(ncclSystemError, Phase::join) == FRUGAL_ERR_IO);
  CHECK(nccl::error_code(ncclUnhandledCudaError, Phase::collective) == FRUGAL_ERR_DEVICE);
  CHECK(nccl::error_code(ncclInvalidUsage, Phase::join) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(nccl::error_code(ncclInvalidArgument, Phase::join) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(nccl::error_code(ncclInvalidArgument, Phase::collective) == FRUGAL_ERR_INTERNAL);
  CHECK(nccl::error_code(ncclInternalError, Phase::join) == FRUGAL_ERR_INTERNAL);
  CHECK(std::string(nccl::nccl_result_name(ncclRemoteError)) == "ncclRemoteError");
  CHECK(std::string(nccl::nccl_result_name(ncclInProgress)) == "ncclInProgress");
}

TEST_CASE("all_to_all: block p of send to rank p, block p of recv from rank p, in bytes") {
  auto c = call_of(FRUGAL_COMM_ALL_TO_ALL, FRUGAL_DTYPE_FLOAT32, 5);
  const auto parts = nccl::p2p_parts(c, 3, 4);
  REQUIRE(parts.size() == 3);
  for (int p = 0; p < 3; ++p) {
    const auto at = static_cast<size_t>(p) * 5 * 4;
    CHECK(parts[static_cast<size_t>(p)] == nccl::P2pPart{p, at, 20, at, 20});
  }
  CHECK(nccl::p2p_parts(call_of(FRUGAL_COMM_ALL_TO_ALL, FRUGAL_DTYPE_INT64, 0), 2, 8) ==
        std::vector<nccl::P2pPart>{{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}});
}

TEST_CASE("all_to_all_v: counts and displacements in elements become byte offsets, zeros send nothing") {
  const size_t send_counts[] = {2, 0, 3};
  const size_t send_displs[] = {7, 0, 1};
  const size_t recv_counts[] = {1, 4, 0};
  const size_t recv_displs[] = {0, 3, 9};
  auto c = call_of(FRUGAL_COMM_ALL_TO_ALL_V, FRUGAL_DTYPE_BFLOAT16, 0);
  c.send_counts = send_counts;
  c.send_displs = send_displs;
  c.recv_counts = recv_counts;
  c.recv_displs = recv_displs;
  CHECK(nccl::p2p_parts(c, 3, 2) == std::vector<nccl::P2pPart>{{0, 14, 4, 0, 2}, {1, 0, 0, 6, 8}, {2, 2, 6, 18, 0}});
}

TEST_CASE("all_gather_v: the whole send to every rank, part p of recv at its displacement") {
  const size_t recv_counts[] = {3, 1, 0, 2};
  const size_t recv_displs[] = {0, 5, 6, 8};
  auto c = call_of(FRUGAL_COMM_ALL_GATHER_V, FRUGAL_DTYPE_FLOAT64, 1);  // this is rank 1: count == recv_counts[1]
  c.recv_counts = recv_counts;
  c.recv_displs = recv_displs;
  CHECK(nccl::p2p_parts(c, 4, 8) ==
        std::vector<nccl::P2pPart>{{0, 0, 8, 0, 24}, {1, 0, 8, 40, 8}, {2, 0, 8, 48, 0}, {3, 0, 8, 64, 16}});
  CHECK(nccl::is_p2p_op(FRUGAL_COMM_ALL_GATHER_V));
  CHECK(nccl::is_p2p_op(FRUGAL_COMM_ALL_TO_ALL));
  CHECK_FALSE(nccl::is_p2p_op(FRUGAL_COMM_ALL_GATHER));
  CHECK(nccl::p2p_parts(call_of(FRUGAL_COMM_BROADCAST, FRUGAL_DTYPE_FLOAT32, 4), 2, 4).empty());
}
