// The C handle of a checkpoint engine, shared by the files that implement
// frugal/checkpoint.h's entry points.
#pragma once

#include <memory>

#include "ckpt/engine.hpp"
#include "error.hpp"
#include "frugal/checkpoint.h"

struct frugal_ckpt_engine {
  std::unique_ptr<frugal::ckpt::Engine> impl;
};

namespace frugal::ckpt {

inline Engine& engine_of(frugal_ckpt_engine* engine, const char* function) {
  require_non_null(engine, function, "engine");
  return *engine->impl;
}

}  // namespace frugal::ckpt
