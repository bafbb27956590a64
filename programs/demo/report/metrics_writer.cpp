// Appending CSV lines that survive the process being killed.
#include "metrics_writer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace frugal_demo {
namespace {

[[noreturn]] void throw_io(const std::filesystem::path& file, const char* what) {
  throw std::runtime_error(fmt::format("{}: {}: {}", file.string(), what, std::strerror(errno)));
}

// A process killed in the middle of a write leaves a last line without its
// newline; appending after it would glue two records into one malformed
// line, so the torn tail is cut back to the last complete line.
void cut_torn_tail(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec || size == 0) return;
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.empty() || text.back() == '\n') return;
  const auto last_newline = text.rfind('\n');
  std::filesystem::resize_file(file, last_newline == std::string::npos ? 0 : last_newline + 1);
}

}  // namespace

std::string_view csv_header(const char* file_name) {
  const std::string_view name = file_name;
  if (name == kStepsFile)
    return "attempt,step,clock_s,real_tokens,slots,loss,aux_loss,lr,resource,price_per_node_hour,nodes,dollars,"
           "checkpoint,stall_s";
  if (name == kEvalFile) return "attempt,step,clock_s,eval_loss";
  if (name == kEventsFile) return "clock_s,attempt,event,step,detail";
  if (name == kExpertsFile) return "step,layer,expert,load";
  if (name == kLedgerFile) return "key,value";
  if (name == kResumeFile) return "attempt,restored_step,replayed_step,loss_before,loss_after";
  if (name == kRunInfoFile) return "key,value";
  throw std::invalid_argument(fmt::format("no metrics file is named '{}'", name));
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string csv_double(double value) { return fmt::format("{:.17g}", value); }
std::string csv_loss(double value) { return fmt::format("{:.9g}", value); }

AppendedCsv::AppendedCsv(std::filesystem::path file, std::string header) : file_(std::move(file)) {
  cut_torn_tail(file_);
  fd_ = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_io(file_, "cannot open for appending");
  const off_t size = ::lseek(fd_, 0, SEEK_END);
  if (size == 0) append_line(header);
}

AppendedCsv::~AppendedCsv() {
  if (fd_ >= 0) ::close(fd_);
}

AppendedCsv::AppendedCsv(AppendedCsv&& other) noexcept : file_(std::move(other.file_)), fd_(other.fd_) {
  other.fd_ = -1;
}

void AppendedCsv::append_line(std::string_view line) {
  std::string text(line);
  text += '\n';
  // One write per line: the kernel has it once write returns, whatever
  // happens to this process afterwards. A short write (full disk) is an
  // error rather than a torn line to be found later.
  const ssize_t written = ::write(fd_, text.data(), text.size());
  if (written != static_cast<ssize_t>(text.size())) throw_io(file_, "cannot append a line");
}

MetricsWriter::MetricsWriter(std::filesystem::path run_dir, int attempt) : dir_(std::move(run_dir)), attempt_(attempt) {
  std::filesystem::create_directories(dir_);
}

AppendedCsv& MetricsWriter::file(const char* name) {
  auto it = files_.find(name);
  if (it == files_.end()) it = files_.emplace(name, AppendedCsv(dir_ / name, std::string(csv_header(name)))).first;
  return it->second;
}

void MetricsWriter::step(const StepRecord& r) {
  file(kStepsFile)
      .append_line(fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}", attempt_, r.step, csv_double(r.clock_s),
                               r.real_tokens, r.slots, csv_loss(r.loss), csv_loss(r.aux_loss), csv_double(r.lr),
                               csv_field(r.resource), csv_double(r.price_per_node_hour), r.nodes, csv_double(r.dollars),
                               csv_field(r.checkpoint), csv_double(r.stall_s)));
}

void MetricsWriter::eval(std::int64_t step, double clock_s, double eval_loss) {
  file(kEvalFile).append_line(fmt::format("{},{},{},{}", attempt_, step, csv_double(clock_s), csv_loss(eval_loss)));
}

void MetricsWriter::event(double clock_s, std::string_view event, std::int64_t step, std::string_view detail) {
  file(kEventsFile)
      .append_line(
          fmt::format("{},{},{},{},{}", csv_double(clock_s), attempt_, csv_field(event), step, csv_field(detail)));
}

void MetricsWriter::expert_load(std::int64_t step, int layer, int expert, double load) {
  file(kExpertsFile).append_line(fmt::format("{},{},{},{}", step, layer, expert, csv_double(load)));
}

void MetricsWriter::resume(std::int64_t restored_step, std::int64_t replayed_step, double loss_before,
                           double loss_after) {
  file(kResumeFile)
      .append_line(fmt::format("{},{},{},{},{}", attempt_, restored_step, replayed_step, csv_loss(loss_before),
                               csv_loss(loss_after)));
}

void MetricsWriter::run_info(std::string_view key, std::string_view value) {
  file(kRunInfoFile).append_line(fmt::format("{},{}", csv_field(key), csv_field(value)));
}

void MetricsWriter::ledger(const LedgerTotals& t, const std::map<std::string, double>& extra) {
  std::string text = std::string(csv_header(kLedgerFile)) + '\n';
  const auto add = [&](std::string_view key, double value) {
    text += fmt::format("{},{}\n", csv_field(key), csv_double(value));
  };
  add("dollars", t.dollars);
  add("spot_dollars", t.spot_dollars);
  add("reserved_dollars", t.reserved_dollars);
  add("productive_dollars", t.productive_dollars);
  add("stall_dollars", t.stall_dollars);
  add("lost_dollars", t.lost_dollars);
  add("wall_s", t.wall_s);
  add("productive_s", t.productive_s);
  add("stall_s", t.stall_s);
  add("lost_s", t.lost_s);
  add("restarts", static_cast<double>(t.restarts));
  add("checkpoints_full", static_cast<double>(t.checkpoints_full));
  add("checkpoints_heartbeat", static_cast<double>(t.checkpoints_heartbeat));
  for (const auto& [key, value] : extra) add(key, value);
  // Whole or not at all: a reader never sees half a ledger.
  const auto final_path = dir_ / kLedgerFile;
  auto tmp = final_path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write the ledger", tmp.string()));
  }
  std::filesystem::rename(tmp, final_path);
}

}  // namespace frugal_demo
