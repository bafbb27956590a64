#include "worked_example.hpp"

namespace frugal::simulate {

Job worked_example_job(const KnownStrategies& known) {
  return parse_job(worked_example_text(), kWorkedExampleSource, "", known);
}

}  // namespace frugal::simulate
