// The demo's training text: paragraphs of plain-text files as sequences of
// byte tokens (vocabulary 256), split once into train and held-out eval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace frugal_demo {

struct Corpus {
  std::vector<std::vector<std::int32_t>> train;  // sequences of byte tokens (0..255), each 2..max_len tokens
  std::vector<std::vector<std::int32_t>> eval;   // held-out sequences, same form
  std::string source;                            // what was read, for the report ("N files under DIR, B bytes")
  std::size_t bytes = 0;
};

// Paragraphs (blank-line separated, whitespace-trimmed) of every regular
// file under each path (a file, or a directory read recursively), files in
// sorted path order so every machine sees the same sequence order. UTF-8
// bytes are the tokens. A paragraph longer than max_len is cut into
// max_len chunks (a last chunk shorter than 2 tokens is dropped: it has
// nothing to predict). Every eval_every-th sequence (1-based; 0 = none)
// goes to eval. Throws std::runtime_error naming the path when a path does
// not exist or nothing readable is found; std::invalid_argument when
// max_len < 2.
Corpus load_corpus(const std::vector<std::filesystem::path>& paths, std::size_t max_len, std::size_t eval_every = 20);

// {"/usr/share/common-licenses"}: the license texts of base-files, present
// on every Debian machine (about 240 KB).
std::vector<std::filesystem::path> default_corpus_paths();

}  // namespace frugal_demo
