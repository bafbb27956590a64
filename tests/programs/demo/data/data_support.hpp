// Shared helpers of the data tests: a scratch directory, hand-made corpora
// and the checks every batch must pass.
#pragma once

#include <catch2/catch.hpp>

#include <stdlib.h>  // mkdtemp (POSIX)

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch.hpp"
#include "corpus.hpp"

namespace demo_data_test {

// A fresh directory under the system temp dir, removed on scope exit.
// mkdtemp makes the name unique across processes: ctest runs each test case
// in its own process, two at a time, and a name derived from the test alone
// was shared by concurrent cases (one saw the other's files).
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    std::string pattern = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }
  void write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }

 private:
  std::filesystem::path path_;
};

inline std::vector<std::int32_t> bytes_of(const std::string& s) {
  std::vector<std::int32_t> out;
  for (const char c : s) out.push_back(static_cast<std::int32_t>(static_cast<unsigned char>(c)));
  return out;
}

// `count` train sequences of lengths 2..max_len (a fixed, varied pattern),
// sequence i filled with tokens (i * 7 + j) % 256 so each is recognisable.
inline frugal_demo::Corpus varied_corpus(std::size_t count, std::size_t max_len) {
  frugal_demo::Corpus c;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t length = 2 + (i * 37 + i * i * 11) % (max_len - 1);
    std::vector<std::int32_t> s(length);
    for (std::size_t j = 0; j < length; ++j) s[j] = static_cast<std::int32_t>((i * 7 + j) % 256);
    c.train.push_back(std::move(s));
  }
  c.eval = {bytes_of("held out"), bytes_of("xy")};
  c.source = "test corpus";
  return c;
}

// Checks every row of `batch` is its sequences back to back (ids from
// `sequences`, consumed in row order), then padding; returns how many
// sequences the batch held.
inline std::size_t check_rows(const frugal_demo::Batch& batch, const frugal_demo::Corpus& corpus,
                              const std::vector<std::size_t>& sequences) {
  REQUIRE(batch.tokens.size() == batch.rows * batch.seq);
  REQUIRE(batch.labels.size() == batch.tokens.size());
  REQUIRE(batch.positions.size() == batch.tokens.size());
  REQUIRE(batch.segments.size() == batch.tokens.size());
  std::size_t next = 0;
  for (std::size_t row = 0; row < batch.rows; ++row) {
    std::size_t col = 0;
    std::int32_t segment = 0;
    while (col < batch.seq && batch.segments[row * batch.seq + col] >= 0) {
      REQUIRE(next < sequences.size());
      const std::vector<std::int32_t>& s = corpus.train.at(sequences[next++]);
      REQUIRE(col + s.size() <= batch.seq);
      for (std::size_t j = 0; j < s.size(); ++j) {
        const std::size_t at = row * batch.seq + col + j;
        CHECK(batch.tokens[at] == s[j]);
        CHECK(batch.positions[at] == static_cast<std::int32_t>(j));
        CHECK(batch.segments[at] == segment);
        // The label is the next token of the same sequence, never the
        // first token of the sequence after it.
        CHECK(batch.labels[at] == (j + 1 < s.size() ? s[j + 1] : -100));
      }
      col += s.size();
      ++segment;
    }
    for (; col < batch.seq; ++col) {
      const std::size_t at = row * batch.seq + col;
      CHECK(batch.segments[at] == -1);
      CHECK(batch.labels[at] == -100);
    }
  }
  CHECK(next == sequences.size());
  return next;
}

}  // namespace demo_data_test
