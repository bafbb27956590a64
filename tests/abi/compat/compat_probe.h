/*
 * What the compat_probe schedule of compat_plugin.cpp reports: its lr at
 * step kProbe* is the value named here. Shared by the plugin and the test.
 */
#ifndef FRUGAL_TESTS_COMPAT_PROBE_H_
#define FRUGAL_TESTS_COMPAT_PROBE_H_

/** Steps of compat_probe and what its lr returns at each. */
enum compat_probe_step {
  kProbeHostStructSize = 0,       /**< host->struct_size the plugin was handed */
  kProbeHostAbiMinor = 1,         /**< host->abi_minor the plugin was handed */
  kProbeUsedNewerHostSlot = 2,    /**< 1 if the plugin called a host slot of a later minor, else 0 */
  kProbeNewerVtableSlotCalls = 3, /**< how often the core called the vtable slot of a later minor */
  kProbeHeadersMinor = 4          /**< FRUGAL_ABI_VERSION_MINOR of the headers the plugin was built against */
};

#endif /* FRUGAL_TESTS_COMPAT_PROBE_H_ */
