// Preemption notices: an async-signal-safe flag, set by an opt-in SIGTERM
// handler or by the host, polled at step boundaries. The handler only
// records; all real work (the emergency heartbeat) happens on the host's
// thread, where the state is consistent.
#include <atomic>
#include <csignal>
#include <mutex>

#include "error.hpp"
#include "frugal/checkpoint.h"

namespace {

std::atomic<int32_t> g_pending{0};
static_assert(std::atomic<int32_t>::is_always_lock_free, "the signal handler needs a lock-free flag");

std::mutex g_install_mutex;
bool g_installed = false;
struct sigaction g_previous {};

void on_sigterm(int) { g_pending.store(1, std::memory_order_relaxed); }

}  // namespace

extern "C" {

FRUGAL_API frugal_error* frugal_preemption_install_sigterm(void) {
  return frugal::guard("frugal_preemption_install_sigterm", [] {
    std::lock_guard lock(g_install_mutex);
    if (g_installed) return;
    struct sigaction action {};
    action.sa_handler = &on_sigterm;
    sigemptyset(&action.sa_mask);
    // SA_RESTART: a notice must not make the host's I/O fail with EINTR.
    // SA_ONSTACK: a thread with an alternate signal stack (Go's runtime,
    // other managed runtimes) takes the signal there, as they require.
    action.sa_flags = SA_RESTART | SA_ONSTACK;
    if (sigaction(SIGTERM, &action, &g_previous) != 0) frugal::fail(FRUGAL_ERR_INTERNAL, "sigaction(SIGTERM) failed");
    g_installed = true;
  });
}

FRUGAL_API void frugal_preemption_uninstall_sigterm(void) {
  std::lock_guard lock(g_install_mutex);
  if (!g_installed) return;
  sigaction(SIGTERM, &g_previous, nullptr);
  g_installed = false;
}

FRUGAL_API int32_t frugal_preemption_pending(void) { return g_pending.load(std::memory_order_relaxed); }

FRUGAL_API void frugal_preemption_notify(void) { g_pending.store(1, std::memory_order_relaxed); }

FRUGAL_API void frugal_preemption_clear(void) { g_pending.store(0, std::memory_order_relaxed); }

}  // extern "C"
