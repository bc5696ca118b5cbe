#include "run_record.hpp"

#include <unistd.h>

#include <cstdio>

#include "output_files.hpp"
#include "printable.hpp"
#include "run_output.hpp"

namespace haloflow::cases {

RunRecord::RunRecord(const RunPlace& place, nlohmann::json results)
    : place_(place), results_(std::move(results)), written_(place.work()) {
  results_["status"] = "running";
  results_["started"] = {{"date", outputs::utc_date_now()},
                         {"host", outputs::host_name()},
                         {"pid", static_cast<long>(::getpid())}};
}

void RunRecord::write_file(const std::string& name, std::string_view text) {
  const std::filesystem::path path = place_.work() / name;
  outputs::write_output_file(path, text, {.replace = true, .run_directory = place_.work()});
  written_.add({.path = path, .bytes = text.size()});
}

void RunRecord::write_results(bool listed) {
  results_["files"] = written_.json();  // every file but results.json itself
  const std::string text = results_.dump(2) + "\n";
  const std::filesystem::path path = place_.work() / "results.json";
  outputs::write_output_file(path, text, {.replace = true, .run_directory = place_.work()});
  if (listed) written_.add({.path = path, .bytes = text.size()});
}

void RunRecord::save() {
  write_results(false);
}

void RunRecord::complete() {
  results_["status"] = "complete";
  results_["finished"] = outputs::utc_date_now();
  write_results(true);
  const std::string note = place_.complete();
  written_.relocate(place_.out());
  outputs::print_out(written_.announcement());
  if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
}

void RunRecord::interrupted(nlohmann::json details) noexcept {
  try {
    results_["status"] = "interrupted";
    details["date"] = outputs::utc_date_now();
    results_["interrupted"] = std::move(details);
    write_results(true);
  } catch (const std::exception&) {
    // results.json stays "running": the directory still says the run did not finish.
  }
}

void RunRecord::failed(const std::string& error) noexcept {
  try {
    if (place_.replaces()) {
      const std::string note = place_.discard();
      if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
      return;
    }
    results_["status"] = "failed";
    results_["error"] = input::printable(error, 2000);
    write_results(false);
  } catch (const std::exception&) {
    // As above: "running" is left, never a results.json that says more than happened.
  }
}

}  // namespace haloflow::cases
