// Run directories are haloflow's only when haloflow made them: made exclusively and marked, each
// file noted before it is written, and --force removing only what the manifests list (never a
// user's file, never through a link), a rerun put in place of the previous run only when done.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "haloflow/error.hpp"
#include "output_files.hpp"
#include "run_directory.hpp"

using namespace haloflow;
namespace fs = std::filesystem;

namespace {

fs::path fresh_parent(const std::string& name) {
  const auto directory = fs::path(HALOFLOW_TEST_OUTPUT_DIR) / "run_directory" / name;
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

std::string contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string error_of(const auto& act) {
  try {
    act();
  } catch (const Error& error) {
    return error.what();
  }
  return "done";
}

// A run as haloflow writes one: files through write_output_file, a subdirectory, a temporary
// left by a write that never finished.
void write_a_run(const fs::path& run, const std::string& text) {
  const outputs::WriteOptions options{.replace = true, .run_directory = run};
  outputs::write_output_file(run / "case.resolved.json", text, options);
  outputs::make_run_subdirectory(run, "vtk");
  outputs::write_output_file(run / "vtk" / "a.vti", text, options);
  outputs::write_output_file(run / "results.json", R"({"status": "complete"})", options);
}

}  // namespace

TEST_CASE("a run directory is made exclusively, marked, and numbered when taken") {
  const auto parent = fresh_parent("made");
  CHECK(outputs::make_run_directory(parent / "run"));
  CHECK(outputs::is_run_directory(parent / "run"));
  CHECK_FALSE(outputs::make_run_directory(parent / "run"));  // a second run does not get it
  CHECK(outputs::make_numbered_run_directory(parent / "run") == parent / "run.2");
  CHECK(outputs::make_numbered_run_directory(parent / "run") == parent / "run.3");
  // Parents are made as needed; a directory that exists (not made here) is not a run directory.
  CHECK(outputs::make_run_directory(parent / "a" / "b" / "run"));
  CHECK_FALSE(outputs::is_run_directory(parent / "a"));
}

TEST_CASE("a run directory is removed by what its manifest lists, temporaries included") {
  const auto parent = fresh_parent("removed");
  const auto run = parent / "run";
  REQUIRE(outputs::make_run_directory(run));
  write_a_run(run, "old");
  std::ofstream(run / ".results.json.haloflow-tmp-7-0") << "a write that never finished";
  std::ofstream(run / "vtk" / ".b.vti.haloflow-tmp-7-1") << "another";
  CHECK(error_of([&] { outputs::check_replaceable(run); }) == "done");
  outputs::remove_run_directory(run);
  CHECK_FALSE(fs::exists(run));
  CHECK(fs::exists(parent));
}

TEST_CASE("--force never removes what haloflow did not write, and names it") {
  const auto parent = fresh_parent("foreign");
  // What a user lost before: a project folder that happens to hold a case.resolved.json.
  const auto project = parent / "project";
  fs::create_directories(project / "src");
  std::ofstream(project / "case.resolved.json") << "{}";
  std::ofstream(project / "src" / "main.cpp") << "int main() {}";
  std::ofstream(project / "notes.txt") << "mine";
  const std::string not_ours = error_of([&] { outputs::remove_run_directory(project); });
  CHECK(not_ours.find("not a run directory haloflow made (it has no .haloflow-run)") !=
        std::string::npos);
  CHECK(contents(project / "src" / "main.cpp") == "int main() {}");
  CHECK(contents(project / "notes.txt") == "mine");

  // A run directory where the user put files of their own: refused, naming them, nothing gone.
  const auto run = parent / "run";
  REQUIRE(outputs::make_run_directory(run));
  write_a_run(run, "old");
  std::ofstream(run / "notes.txt") << "mine";
  fs::create_directories(run / "src");
  std::ofstream(run / "src" / "main.cpp") << "code";
  std::ofstream(run / "vtk" / "mine.vti") << "mine";
  const std::string message = error_of([&] { outputs::remove_run_directory(run); });
  CHECK(message.find("holds what haloflow did not write: notes.txt, src/ (a folder), "
                     "vtk/mine.vti;") != std::string::npos);
  CHECK(message.find("nothing was written or removed") != std::string::npos);
  CHECK(contents(run / "notes.txt") == "mine");
  CHECK(contents(run / "vtk" / "a.vti") == "old");
  CHECK(contents(run / "src" / "main.cpp") == "code");

  // A link inside: named, and neither it nor its target touched.
  const auto linked = parent / "linked";
  REQUIRE(outputs::make_run_directory(linked));
  write_a_run(linked, "old");
  std::ofstream(parent / "precious.txt") << "precious";
  fs::create_symlink(parent / "precious.txt", linked / "extra");
  CHECK(error_of([&] { outputs::check_replaceable(linked); }).find("extra (a symbolic link)") !=
        std::string::npos);
  CHECK(fs::is_symlink(linked / "extra"));
  CHECK(contents(parent / "precious.txt") == "precious");

  // The run directory itself a link: refused (the user names the directory itself).
  fs::create_directory_symlink(run, parent / "link");
  CHECK(error_of([&] {
          outputs::remove_run_directory(parent / "link");
        }).find("is a symbolic link") != std::string::npos);
  CHECK(fs::exists(run / "case.resolved.json"));

  // Many foreign entries: the first few named, the rest counted.
  const auto crowded = parent / "crowded";
  REQUIRE(outputs::make_run_directory(crowded));
  for (int i = 0; i < 30; ++i) std::ofstream(crowded / ("file" + std::to_string(i)));
  CHECK(error_of([&] { outputs::check_replaceable(crowded); }).find(" and 22 more;") !=
        std::string::npos);
}

TEST_CASE("a rerun takes the previous run's place only when put there, the previous run gone") {
  const auto parent = fresh_parent("rerun");
  const auto run = parent / "run";
  REQUIRE(outputs::make_run_directory(run));
  write_a_run(run, "old");
  const auto rerun = outputs::make_rerun_directory(run);
  CHECK(rerun.parent_path() == parent);
  CHECK(rerun.filename().string().starts_with("run.rerun-"));
  write_a_run(rerun, "new");
  // Until it is put in place the previous run is whole.
  CHECK(contents(run / "vtk" / "a.vti") == "old");
  CHECK(outputs::replace_run_directory(rerun, run).empty());
  CHECK(contents(run / "vtk" / "a.vti") == "new");
  CHECK(contents(run / "case.resolved.json") == "new");
  CHECK_FALSE(fs::exists(rerun));
  // And the new run is a run directory of its own, replaceable in turn.
  CHECK(error_of([&] { outputs::check_replaceable(run); }) == "done");
}

TEST_CASE("a run killed outright is recognised by its results.json") {
  const auto parent = fresh_parent("killed");
  const auto run = parent / "run";
  REQUIRE(outputs::make_run_directory(run));
  outputs::write_output_file(
      run / "results.json",
      R"({"status": "running", "started": {"date": "2026-12-01T10:00:00Z", "pid": 4242, "host": "h"}})",
      {.replace = true, .run_directory = run});
  CHECK(outputs::run_status(run) == "running");
  CHECK(outputs::describe_run_directory(run) ==
        "it holds a run that never finished (results.json says running, started "
        "2026-12-01T10:00:00Z by process 4242 on h): it was stopped or killed");
  // A torn last line of a manifest (killed while noting a file) names nothing and harms nothing.
  for (const auto& entry : fs::directory_iterator(run)) {
    if (entry.path().filename().string().starts_with(outputs::kManifestPrefix)) {
      std::ofstream(entry.path(), std::ios::app) << "\"vtk/half";
    }
  }
  outputs::remove_run_directory(run);
  CHECK_FALSE(fs::exists(run));
}
