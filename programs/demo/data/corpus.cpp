#include "corpus.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace frugal_demo {
namespace {

namespace fs = std::filesystem;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The regular files a path names, sorted (directory iteration order is
// the file system's, which differs between machines).
std::vector<fs::path> files_under(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw std::runtime_error("corpus path '" + path.string() + "' does not exist");
  std::vector<fs::path> files;
  if (fs::is_regular_file(status)) {
    files.push_back(path);
  } else if (fs::is_directory(status)) {
    for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) files.push_back(it->path());
    }
    if (ec) throw std::runtime_error("corpus path '" + path.string() + "': cannot list: " + ec.message());
    std::sort(files.begin(), files.end());
  }
  return files;
}

// Blank-line separated paragraphs of a text, each trimmed.
std::vector<std::string_view> paragraphs(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;  // first byte of the current paragraph
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    const bool blank = trim(text.substr(at, eol - at)).empty();
    if (blank || eol == text.size()) {
      const std::size_t end = blank ? at : text.size();
      const std::string_view p = trim(text.substr(start, end - start));
      if (!p.empty()) out.push_back(p);
      start = eol + 1;
    }
    at = eol + 1;
  }
  return out;
}

}  // namespace

Corpus load_corpus(const std::vector<fs::path>& paths, std::size_t max_len, std::size_t eval_every) {
  if (max_len < 2) throw std::invalid_argument("load_corpus: max_len must be >= 2, got " + std::to_string(max_len));
  if (paths.empty()) throw std::runtime_error("load_corpus: no corpus path given");
  Corpus corpus;
  std::size_t sequences = 0;
  std::string description;
  for (const fs::path& path : paths) {
    const std::vector<fs::path> files = files_under(path);
    std::size_t files_read = 0;
    std::size_t path_bytes = 0;
    for (const fs::path& file : files) {
      std::ifstream in(file, std::ios::binary);
      if (!in) continue;  // unreadable (permissions): skipped, counted out of the description
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      ++files_read;
      path_bytes += text.size();
      for (const std::string_view paragraph : paragraphs(text)) {
        for (std::size_t begin = 0; begin < paragraph.size(); begin += max_len) {
          const std::size_t length = std::min(max_len, paragraph.size() - begin);
          if (length < 2) continue;
          std::vector<std::int32_t> tokens(length);
          for (std::size_t i = 0; i < length; ++i)
            tokens[i] = static_cast<std::int32_t>(static_cast<unsigned char>(paragraph[begin + i]));
          ++sequences;
          const bool to_eval = eval_every > 0 && sequences % eval_every == 0;
          (to_eval ? corpus.eval : corpus.train).push_back(std::move(tokens));
        }
      }
    }
    if (files_read == 0) throw std::runtime_error("corpus path '" + path.string() + "': no readable file");
    corpus.bytes += path_bytes;
    if (!description.empty()) description += ", ";
    description += std::to_string(files_read) + (files_read == 1 ? " file" : " files") + " under " + path.string();
  }
  if (corpus.train.empty()) {
    std::string names;
    for (const fs::path& path : paths) names += (names.empty() ? "'" : ", '") + path.string() + "'";
    throw std::runtime_error("corpus " + names + ": no paragraph of 2 or more bytes to train on");
  }
  corpus.source = description + ", " + std::to_string(corpus.bytes) + " bytes";
  return corpus;
}

std::vector<fs::path> default_corpus_paths() { return {"/usr/share/common-licenses"}; }

}  // namespace frugal_demo
