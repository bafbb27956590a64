#include "output_dir.hpp"

#include <fstream>
#include <stdexcept>
#include <system_error>

namespace frugal_demo {

std::string prepare_output_dir(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::string done;
  if (fs::exists(dir, error)) {
    if (!fs::is_directory(dir, error))
      throw std::runtime_error("--out " + dir.string() + " exists and is not a directory");
    const bool empty = fs::is_empty(dir, error);
    if (error) throw std::runtime_error("--out " + dir.string() + " cannot be read: " + error.message());
    if (!empty) {
      if (!fs::exists(dir / kOutputMarker))
        throw std::runtime_error("--out " + dir.string() +
                                 " is not empty and is not a previous frugal-demo output (it has no " + kOutputMarker +
                                 " file); choose another directory or empty this one");
      // Everything inside goes, the directory itself stays (it may be a
      // mount point or have permissions the user set).
      for (const auto& entry : fs::directory_iterator(dir)) {
        fs::remove_all(entry.path(), error);
        if (error)
          throw std::runtime_error("cannot clear the previous demo output " + entry.path().string() + ": " +
                                   error.message());
      }
      done = "cleared the previous demo output in " + dir.string();
    } else {
      done = "using the empty directory " + dir.string();
    }
  } else {
    fs::create_directories(dir, error);
    if (error) throw std::runtime_error("cannot create --out " + dir.string() + ": " + error.message());
    done = "created " + dir.string();
  }
  std::ofstream marker(dir / kOutputMarker);
  marker << "written by frugal-demo; the demo clears this directory when it runs here again\n";
  if (!marker.flush()) throw std::runtime_error("cannot write into --out " + dir.string());
  return done;
}

}  // namespace frugal_demo
