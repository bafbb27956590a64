// Corpus loading: paragraphs, trimming, chunking, the eval split, file
// order, and errors naming the path.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "data_support.hpp"

using demo_data_test::bytes_of;
using demo_data_test::ScratchDir;
using frugal_demo::Corpus;
using frugal_demo::load_corpus;

TEST_CASE("corpus: paragraphs of sorted files, trimmed, chunked, every n-th to eval", "[demo][data]") {
  ScratchDir dir("frugal-demo-corpus");
  // Written out of order: the loader sorts paths (b.txt after a.txt, then sub/).
  dir.write("sub/c.txt", "  tail text \n");
  dir.write("b.txt", "0123456789\n\n\n   \nxyz\n");
  dir.write("a.txt", "  first line\nsecond\n \t \nx\n\nlast para  ");
  const Corpus c = load_corpus({dir.path()}, 4, 3);
  // Sequences in order: "firs" "t li" "ne\ns" "econ" (d: 1 token, dropped)
  //   ["x": 1 token, dropped] "last" " par" (a: dropped) | "0123" "4567" "89" "xyz" | "tail" " tex" (t: dropped)
  // every 3rd (1-based) goes to eval.
  const std::vector<std::string> all = {"firs", "t li", "ne\ns", "econ", "last", " par",
                                        "0123", "4567", "89",    "xyz",  "tail", " tex"};
  std::vector<std::vector<std::int32_t>> want_train, want_eval;
  for (std::size_t i = 0; i < all.size(); ++i) ((i + 1) % 3 == 0 ? want_eval : want_train).push_back(bytes_of(all[i]));
  CHECK(c.train == want_train);
  CHECK(c.eval == want_eval);
  const std::size_t bytes = std::string("  tail text \n").size() + std::string("0123456789\n\n\n   \nxyz\n").size() +
                            std::string("  first line\nsecond\n \t \nx\n\nlast para  ").size();
  CHECK(c.bytes == bytes);
  CHECK(c.source == "3 files under " + dir.path().string() + ", " + std::to_string(bytes) + " bytes");
}

TEST_CASE("corpus: a single file, eval_every 0 keeps everything for training", "[demo][data]") {
  ScratchDir dir("frugal-demo-corpus");
  dir.write("one.txt", "ab\n\ncd");
  const Corpus c = load_corpus({dir.path() / "one.txt"}, 8, 0);
  CHECK(c.train == std::vector<std::vector<std::int32_t>>{bytes_of("ab"), bytes_of("cd")});
  CHECK(c.eval.empty());
  CHECK(c.bytes == 6);
}

TEST_CASE("corpus: UTF-8 text becomes its bytes (0..255)", "[demo][data]") {
  ScratchDir dir("frugal-demo-corpus");
  dir.write("u.txt", "\xc3\xa9t\xc3\xa9");  // "été"
  const Corpus c = load_corpus({dir.path()}, 16, 0);
  CHECK(c.train == std::vector<std::vector<std::int32_t>>{{0xc3, 0xa9, 't', 0xc3, 0xa9}});
}

TEST_CASE("corpus: a missing path or one without text is an error naming it", "[demo][data]") {
  ScratchDir dir("frugal-demo-corpus");
  const auto missing = dir.path() / "no-such-dir";
  CHECK_THROWS_WITH(load_corpus({missing}, 8), Catch::Contains(missing.string()) && Catch::Contains("does not exist"));
  std::filesystem::create_directories(dir.path() / "empty");
  CHECK_THROWS_WITH(load_corpus({dir.path() / "empty"}, 8), Catch::Contains((dir.path() / "empty").string()));
  dir.write("blank/only.txt", "\n  \n\nx\n");  // one 1-byte paragraph: nothing to train on
  CHECK_THROWS_AS(load_corpus({dir.path() / "blank"}, 8), std::runtime_error);
  CHECK_THROWS_WITH(load_corpus({dir.path() / "blank"}, 8), Catch::Contains((dir.path() / "blank").string()));
  CHECK_THROWS_AS(load_corpus({dir.path()}, 1), std::invalid_argument);
}

TEST_CASE("corpus: the default corpus, when present, is license text split into sequences", "[demo][data]") {
  const auto paths = frugal_demo::default_corpus_paths();
  REQUIRE(paths.size() == 1);
  CHECK(paths[0] == "/usr/share/common-licenses");
  if (!std::filesystem::exists(paths[0])) return;  // not a Debian machine
  const Corpus c = load_corpus(paths, 128);
  CHECK(c.bytes > 100000);
  CHECK(c.train.size() > 1000);
  CHECK(c.eval.size() == (c.train.size() + c.eval.size()) / 20);
  for (const auto& s : c.train) {
    REQUIRE(s.size() >= 2);
    REQUIRE(s.size() <= 128);
  }
}
