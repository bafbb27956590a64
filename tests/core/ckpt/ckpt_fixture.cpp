#include "ckpt_fixture.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>

#include "test_helpers.hpp"

namespace frugal::test {

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "frugal-ckpt-XXXXXX").string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  path = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

StorePtr open_fs_store(frugal_context* context, const std::string& root,
                       const std::vector<std::pair<std::string, std::string>>& extra) {
  host::check(frugal_context_load_plugin(context, builtin_path("store_fs").c_str()));
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "root", root.c_str()));
  for (const auto& [name, value] : extra)
    host::check(frugal_options_set_parsed(options.get(), name.c_str(), value.c_str()));
  frugal_store* store = nullptr;
  host::check(frugal_store_create(context, "fs", options.get(), &store));
  return StorePtr(store);
}

EnginePtr make_engine(frugal_store* store, const std::vector<std::pair<std::string, std::string>>& options) {
  auto opts = host::make_options();
  for (const auto& [name, value] : options)
    host::check(frugal_options_set_parsed(opts.get(), name.c_str(), value.c_str()));
  frugal_ckpt_engine* engine = nullptr;
  host::check(frugal_ckpt_engine_create(store, opts.get(), &engine));
  return EnginePtr(engine);
}

HostTensor::HostTensor(std::vector<int64_t> dims) : shape(std::move(dims)) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  data.assign(static_cast<size_t>(n), 0.0f);
  view.struct_size = sizeof(view);
  view.data = data.data();
  view.dtype = FRUGAL_DTYPE_FLOAT32;
  view.ndim = static_cast<int32_t>(shape.size());
  view.device = {FRUGAL_DEVICE_CPU, 0};
  view.shape = shape.data();
}

void HostTensor::fill(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& x : data) x = dist(rng);
}

frugal_ckpt_save_args save_args(int32_t kind, uint64_t step, const std::string& metadata, uint32_t flags) {
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = kind;
  args.flags = flags;
  args.step = step;
  args.metadata = metadata.data();
  args.metadata_size = metadata.size();
  return args;
}

std::string save_and_wait(frugal_ckpt_engine* engine, int32_t kind, uint64_t step, const std::string& metadata) {
  const frugal_ckpt_save_args args = save_args(kind, step, metadata, FRUGAL_CKPT_SAVE_WAIT);
  frugal_ckpt_save_result result{};
  result.struct_size = sizeof(result);
  host::check(frugal_ckpt_save(engine, &args, &result));
  return result.name;
}

std::vector<frugal_ckpt_info> list_all(frugal_ckpt_engine* engine, bool deep) {
  std::vector<frugal_ckpt_info> out;
  host::check(frugal_ckpt_list(
      engine, deep ? FRUGAL_CKPT_LIST_VERIFY_SHARDS : 0,
      [](void* user, const frugal_ckpt_info* info) -> int32_t {
        static_cast<std::vector<frugal_ckpt_info>*>(user)->push_back(*info);
        return 0;
      },
      &out));
  return out;
}

std::vector<std::string> not_restored(frugal_ckpt_engine* engine, const frugal_ckpt_info& info) {
  std::vector<std::string> names;
  char name[FRUGAL_CKPT_TENSOR_NAME_CAPACITY];
  for (uint32_t i = 0; i < info.not_restored_count; ++i) {
    host::check(frugal_ckpt_restore_report(engine, i, name, sizeof(name)));
    names.emplace_back(name);
  }
  CHECK(outcome(frugal_ckpt_restore_report(engine, info.not_restored_count, name, sizeof(name))).code ==
        FRUGAL_ERR_OUT_OF_RANGE);
  return names;
}

}  // namespace frugal::test

namespace frugal::test {

frugal_ckpt_info restore_exact(frugal_ckpt_engine* engine, crash::State& state, const char* name, uint32_t kinds) {
  state.poison();
  std::string metadata(crash::kMetadataCapacity, '\0');
  uint64_t size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(engine, name, kinds, metadata.data(), metadata.size(), &size, &info));
  INFO("restored " << info.name);
  CHECK(info.status == FRUGAL_CKPT_VALID);
  metadata.resize(static_cast<size_t>(size));
  CHECK((metadata == crash::step_metadata(info.step)));  // (no 256 KiB expansion on failure)
  // A heartbeat's full-only state comes from the full checkpoint it names.
  std::optional<uint64_t> full_step;
  if (info.kind == FRUGAL_CKPT_HEARTBEAT && info.full_source[0] != '\0')
    full_step = verify_one(engine, info.full_source).step;
  CHECK(state.mismatch(info.step, info.kind, true, full_step) == "");
  return info;
}

frugal_ckpt_info verify_one(frugal_ckpt_engine* engine, const std::string& name) {
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_verify(engine, name.c_str(), &info));
  return info;
}

DiskUsage disk_usage(const std::filesystem::path& dir) {
  DiskUsage usage;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) {
      ++usage.files;
      usage.bytes += entry.file_size();
    }
  return usage;
}

}  // namespace frugal::test
