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

std::string default_library_dir(const std::string& program, const std::string& sub) {
  namespace fs = std::filesystem;
  const fs::path here = sub.empty() ? fs::path("scenarios") : fs::path("scenarios") / sub;
  std::error_code ec;
  if (fs::is_directory(here, ec)) return here.generic_string();
  if (!program.empty()) {
    fs::path installed = fs::path(program).parent_path().parent_path() / "share" / "lockstep" / "scenarios";
    if (!sub.empty()) installed /= sub;
    if (fs::is_directory(installed, ec)) return installed.lexically_normal().generic_string();
  }
  return here.generic_string();
}

std::string program_path() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

}  // namespace lockstep::scenario
