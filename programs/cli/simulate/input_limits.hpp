// Limits on what the simulator reads, shared by the job, trace and loss-log
// readers: each keeps a file's memory and the numbers built from it bounded,
// and each reader's error names the limit it met.
#pragma once

#include <cstddef>

namespace frugal::simulate {

// A job, trace or loss-log file (a year of one-minute SkyPilot gaps is
// about 1 MiB; a FIFO or /dev/zero must not be read for ever).
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;
// JSON values in one document: a parsed value takes 16 bytes (an array
// element) to about 100 (an object member), so a file of "0," would
// otherwise take 8 times its size or more.
inline constexpr std::size_t kMaxJsonValues = std::size_t{1} << 22;
// Levels of nested arrays and objects: deep enough for any job or trace,
// shallow enough that no reader of the tree (nlohmann's copies,
// comparisons and dumps recurse) can exhaust the stack.
inline constexpr std::size_t kMaxJsonDepth = 128;
// Dollars per node-hour, in a job file or a trace: finite times every
// duration and node count the simulator forms.
inline constexpr double kMaxPrice = 1e9;
// Seconds from a trace's start to its last row (about 31,700 years), and a
// SkyPilot gap: a trace's period stays finite.
inline constexpr double kMaxTraceSeconds = 1e12;
inline constexpr double kMaxGapSeconds = 1e9;
// |loss| in a recorded loss log, as loss.initial and loss.floor in a job.
inline constexpr double kMaxLoss = 1e9;

}  // namespace frugal::simulate
