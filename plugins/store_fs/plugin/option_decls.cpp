#include "option_decls.hpp"

#include "frugal/sdk/option_decl.hpp"

namespace frugal::store_fs {
namespace {

constexpr frugal_option_decl kFs[] = {
    sdk::string_option("root", "directory holding the objects, created with its parents if missing, not empty")
        .required()
        .directory(),
    sdk::bool_option("fsync", "fsync files and directories so a put survives a crash; false only for throwaway data")
        .default_value("true"),
    sdk::string_option("io",
                       "how bytes reach the disk: auto = direct I/O (O_DIRECT) where the filesystem allows it, else "
                       "the page cache with streamed writeback; direct = a put fails where O_DIRECT is refused; "
                       "buffered = always the page cache")
        .default_value("auto")
        .choices("auto|direct|buffered"),
    sdk::int_option("inject_enospc_after_bytes",
                    "for tests: writes fail as on a full disk once the store wrote this many bytes, -1 = off")
        .default_value("-1")
        .min(-1.0),
    sdk::bool_option("inject_direct_io_refused",
                     "for tests: act as on a filesystem that refuses O_DIRECT (tmpfs before Linux 6.6, many FUSE "
                     "mounts)")
        .default_value("false"),
};

}  // namespace

const frugal_strategy_options_ext kFsOptions = sdk::DeclaredOptions<kFs>::ext;

}  // namespace frugal::store_fs
