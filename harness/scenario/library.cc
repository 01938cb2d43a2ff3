#include "harness/scenario/library.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace lockstep::scenario {

std::vector<std::string> scenario_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path().generic_string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace lockstep::scenario
