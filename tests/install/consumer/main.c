/* A host as a downstream project writes it: the C API from the installed
   headers, linked against the installed libfrugal. Prints the release and
   the ABI of the library it runs with. */
#include <frugal/frugal.h>
#include <stdio.h>

int main(void) {
  uint32_t abi = frugal_abi_version();
  printf("release=%s abi=%u.%u\n", frugal_version_string(), (unsigned)(abi >> 16), (unsigned)(abi & 0xFFFFu));
  return 0;
}
