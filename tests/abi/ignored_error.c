/*
 * A host that drops the frugal_error* of a call. Built as C99 and as C++20
 * with -Werror, it must fail to compile (FRUGAL_NODISCARD on every function
 * returning one); with -DFRUGAL_TEST_HANDLED the same host destroys the
 * error and must compile, so the failure is the dropped error and nothing
 * else.
 */
#include "frugal/frugal.h"

int main(void) {
  frugal_context* context = NULL;
#ifdef FRUGAL_TEST_HANDLED
  frugal_error* error = frugal_context_create(&context);
  frugal_error_destroy(error);
#else
  frugal_context_create(&context);
#endif
  frugal_context_destroy(context);
  return 0;
}
