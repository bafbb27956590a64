// The options the fs store strategy declares, kept apart from
// the descriptor; they must say exactly what FsConfig::from accepts.
#pragma once

#include "frugal/plugin.h"

namespace frugal::store_fs {

extern const frugal_strategy_options_ext kFsOptions;

}  // namespace frugal::store_fs
