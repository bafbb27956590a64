#include "option_decls.hpp"

#include "frugal/sdk/option_decl.hpp"

namespace frugal::packer_seq {
namespace {

// The names algorithm_from_name accepts (algorithms/types.cpp).
constexpr frugal_option_decl kPackerSeq[] = {
    sdk::string_option("algo", "packing algorithm; best runs the others and keeps the fewest packs")
        .default_value(kDefaultAlgorithm)
        .choices("refined|best|ffd|bfd|spfhp|lpfhp|naive_first_fit"),
};

}  // namespace

const frugal_strategy_options_ext kPackerSeqOptions = sdk::DeclaredOptions<kPackerSeq>::ext;

}  // namespace frugal::packer_seq
