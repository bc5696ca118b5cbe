// How output files are written: atomically through a temporary, never through a
// symbolic link (the file's or, below a run directory, a directory's), refusing to replace
// without --force, and only ever regular files.

#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "haloflow/error.hpp"
#include "output_files.hpp"

using namespace haloflow;
namespace fs = std::filesystem;

namespace {

fs::path fresh_directory(const std::string& name) {
  const auto directory = fs::path(HALOFLOW_TEST_OUTPUT_DIR) / "output_files" / name;
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

std::string error_of(const auto& write) {
  try {
    write();
  } catch (const Error& error) {
    return error.what();
  }
  return "written";
}

bool has_temporaries(const fs::path& directory) {
  for (const auto& entry : fs::recursive_directory_iterator(directory)) {
    if (outputs::is_temporary_name(entry.path().filename().string())) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a file is written whole, and replaced only when asked") {
  const auto run = fresh_directory("whole");
  const auto file = run / "results.json";
  outputs::write_output_file(file, std::vector<std::string_view>{"{", "}\n"}, {});
  CHECK(contents(file) == "{}\n");
  CHECK(error_of([&] { outputs::write_output_file(file, "x", {}); }) ==
        file.string() + " exists; pass --force to overwrite it");
  outputs::write_output_file(file, "new\n", {.replace = true, .run_directory = run});
  CHECK(contents(file) == "new\n");
  CHECK_FALSE(has_temporaries(run));
}

TEST_CASE("a symbolic link where a file goes is refused by name, its target untouched") {
  const auto run = fresh_directory("link_file");
  const auto target = run / "precious.txt";
  std::ofstream(target) << "precious";
  fs::create_symlink(target, run / "results.json");
  const std::string message = error_of([&] {
    outputs::write_output_file(run / "results.json", "x", {.replace = true, .run_directory = run});
  });
  CHECK(message.find("results.json: is a symbolic link (to ") != std::string::npos);
  CHECK(message.find("haloflow writes nothing through a link") != std::string::npos);
  CHECK(contents(target) == "precious");
  CHECK(error_of([&] {
          outputs::check_output_file(run / "results.json", true);
        }).find("is a symbolic link") != std::string::npos);
  CHECK_FALSE(has_temporaries(run));
}

TEST_CASE("below a run directory no directory link is followed") {
  const auto run = fresh_directory("link_directory");
  const auto elsewhere = fresh_directory("link_directory_elsewhere");
  fs::create_directory_symlink(elsewhere, run / "vtk");
  const std::string message = error_of([&] {
    outputs::write_output_file(run / "vtk" / "a.vti", "x", {.replace = true, .run_directory = run});
  });
  CHECK(message.find("vtk: is a symbolic link (to ") != std::string::npos);
  CHECK(message.find("inside the run directory") != std::string::npos);
  CHECK(fs::is_empty(elsewhere));
  CHECK(error_of([&] { outputs::make_run_subdirectory(run, "vtk"); }).find("is a symbolic link") !=
        std::string::npos);
  // The run directory itself may be a link: the user named it.
  const auto linked_run = fs::path(HALOFLOW_TEST_OUTPUT_DIR) / "output_files" / "linked_run";
  fs::remove(linked_run);
  fs::create_directory_symlink(elsewhere, linked_run);
  outputs::write_output_file(linked_run / "results.json", "ok",
                             {.replace = true, .run_directory = linked_run});
  CHECK(contents(elsewhere / "results.json") == "ok");
}

TEST_CASE("a planted temporary name cannot be written through") {
  // The temporary is created exclusively (O_EXCL, O_NOFOLLOW) under a name of this process: a
  // link planted under an old-style name (results.json.tmp) is simply never used.
  const auto run = fresh_directory("planted_temporary");
  const auto target = run / "precious.txt";
  std::ofstream(target) << "precious";
  fs::create_symlink(target, run / "checkpoint.ckpt.tmp");
  outputs::write_output_file(run / "checkpoint.ckpt", "state",
                             {.replace = true, .durable = true, .run_directory = run});
  CHECK(contents(run / "checkpoint.ckpt") == "state");
  CHECK(contents(target) == "precious");
}

TEST_CASE("a write into a missing directory names it") {
  const auto run = fresh_directory("missing");
  const std::string message =
      error_of([&] { outputs::write_output_file(run / "no" / "such" / "file.txt", "x", {}); });
  CHECK(message.find("file.txt: cannot be written: its directory") != std::string::npos);
}

TEST_CASE("a file the user named is checked before the run: a regular file or nothing") {
  const auto run = fresh_directory("user_files");
  // A device is never replaced by a regular file, with --force or without.
  CHECK(error_of([&] { outputs::check_output_file("/dev/null", true); })
            .find("/dev/null: is a character device; haloflow writes and replaces only regular "
                  "files") != std::string::npos);
  CHECK(error_of([&] { outputs::check_output_file(run, true); }).find("is a directory") !=
        std::string::npos);
  // A folder that does not exist is found out now, not after the whole run.
  CHECK(error_of([&] { outputs::check_output_file(run / "missing" / "results.json", false); })
            .find("results.json: cannot be written: its folder " + (run / "missing").string() +
                  ": No such file or directory (nothing was run)") != std::string::npos);
  std::ofstream(run / "there.json") << "{}";
  CHECK(error_of([&] { outputs::check_output_file(run / "there.json", false); }) ==
        (run / "there.json").string() + " exists; pass --force to overwrite it");
  CHECK(error_of([&] { outputs::check_output_file(run / "there.json", true); }) == "written");
  CHECK(error_of([&] { outputs::check_output_file(run / "new.json", false); }) == "written");
}

TEST_CASE("a file size limit is a reported write error with nothing left behind") {
  // RLIMIT_FSIZE would deliver SIGXFSZ; write_output_file ignores it and reports EFBIG.
  const auto run = fresh_directory("file_size");
  const std::string big(300000, 'x');
  const pid_t child = fork();
  if (child == 0) {
    struct rlimit limit {
      .rlim_cur = 100000, .rlim_max = 100000
    };
    setrlimit(RLIMIT_FSIZE, &limit);
    const std::string message =
        error_of([&] { outputs::write_output_file(run / "big.raw", big, {.run_directory = run}); });
    _exit(message.find("big.raw: could not be written: File too large (nothing was left") !=
                  std::string::npos
              ? 0
              : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // Nothing of the file is left (the run directory's manifest noted it before it was written).
  CHECK_FALSE(fs::exists(run / "big.raw"));
  CHECK_FALSE(has_temporaries(run));
}
