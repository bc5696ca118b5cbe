#include "run_place.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <sys/stat.h>

#include <regex>

#include "haloflow/bounded_mpi.hpp"
#include "printable.hpp"
#include "run_directory.hpp"

namespace haloflow::cases {
namespace fs = std::filesystem;
namespace {

using input::printable;

std::string shown(const fs::path& path) {
  return printable(path.string(), 300);
}

// Whether `file` lies inside `directory` (either may not exist; links resolved where they do).
bool lies_inside(const fs::path& file, const fs::path& directory) {
  std::error_code error;
  const fs::path inner = fs::weakly_canonical(file, error);
  if (error) return false;
  const fs::path outer = fs::weakly_canonical(directory, error);
  if (error) return false;
  const fs::path relative = inner.lexically_relative(outer);
  return !relative.empty() && *relative.begin() != "..";
}

// A numbered directory's base: "runs/jacobi2d.3" -> "runs/jacobi2d".
fs::path numbered_base(const fs::path& directory) {
  static const std::regex numbered(R"((.*)\.[0-9]+)");
  std::smatch match;
  const std::string text = directory.lexically_normal().string();
  if (std::regex_match(text, match, numbered)) return fs::path(match[1].str());
  return directory;
}

// Every rank takes rank 0's `text`.
void broadcast(std::string& text, const BoundedCollectives& world, const char* what) {
  unsigned long long length = text.size();
  world.broadcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, what);
  text.resize(length);
  if (length > 0) world.broadcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, what);
}

struct Chosen {
  fs::path out;
  fs::path work;
  std::string note;
};

// Rank 0's choice; \throws Error for a refusal.
Chosen choose(const CaseFile& c, const RunFlags& flags) {
  const fs::path named = c.run.output;
  const bool own_case = lies_inside(flags.case_path, named);
  if (own_case && flags.force && !flags.out.empty()) {
    throw Error(fmt::format(
        "--out {} --force: that run directory holds the case file being read ({}); a run never "
        "replaces the run its case came from: leave out --out (the run then goes beside it, "
        "numbered) or choose another --out (nothing was written or removed)",
        shown(named), shown(flags.case_path)));
  }
  if (own_case || (!c.run.output_given && !flags.force)) {
    // A new directory every time: runs/NAME, else runs/NAME.2, .3, ... (made exclusively).
    const fs::path made =
        outputs::make_numbered_run_directory(own_case ? numbered_base(named) : named);
    std::string note;
    if (own_case) {
      note = fmt::format(
          "haloflow: {} is the case of run directory {}: this run goes to {} (a run never "
          "replaces the run its case came from)\n",
          shown(flags.case_path), shown(named), shown(made));
    } else if (made != named) {
      const std::string about = outputs::describe_run_directory(named);
      if (!about.empty()) {
        note = fmt::format("haloflow: {} exists ({}); this run goes to {}\n", shown(named), about,
                           shown(made));
      }
    }
    return {made, made, note};
  }
  struct stat status {};
  if (::lstat(named.c_str(), &status) != 0) {
    // Nothing there: made exclusively, so that of two runs started together one gets it.
    if (outputs::make_run_directory(named)) return {named, named, ""};
    if (::lstat(named.c_str(), &status) != 0) {
      throw Error(fmt::format("run directory {}: cannot be made", shown(named)));
    }
  }
  if (S_ISLNK(status.st_mode)) {
    throw Error(fmt::format(
        "--out {}: is a symbolic link; haloflow never writes through (or removes what is "
        "behind) a link: name the directory itself (nothing was written or removed)",
        shown(named)));
  }
  if (!S_ISDIR(status.st_mode)) {
    throw Error(
        fmt::format("--out {}: exists and is not a directory; nothing was written", shown(named)));
  }
  if (!flags.force) {
    const std::string about = outputs::describe_run_directory(named);
    throw Error(fmt::format(
        "run directory {} exists{}; pass --force to replace it or --out to choose another "
        "(nothing was written)",
        shown(named), about.empty() ? "" : " (" + about + ")"));
  }
  std::error_code error;
  if (fs::is_empty(named, error) && !error) {
    outputs::adopt_empty_directory(named);
    return {named, named, ""};
  }
  outputs::check_replaceable(named);
  const fs::path rerun = outputs::make_rerun_directory(named);
  return {named, rerun, ""};
}

}  // namespace

RunPlace RunPlace::prepare_study(CaseFile& first, const std::string& command,
                                 const std::string& case_path, const std::string& out, bool force,
                                 const MpiSession& mpi) {
  first.run.output = out.empty() ? "runs/" + command + "_" + first.name : out;
  first.run.output_given = !out.empty();
  RunFlags flags;
  flags.case_path = case_path;
  flags.out = out;
  flags.force = force;
  return prepare(first, flags, mpi, Seconds(first.run.timeout_s));
}

RunPlace RunPlace::prepare(CaseFile& c, const RunFlags& flags, const MpiSession& mpi,
                           Seconds timeout) {
  Chosen chosen;
  on_root_everywhere(mpi, timeout, "preparing the run directory",
                     [&] { chosen = choose(c, flags); });
  const BoundedCollectives world(MPI_COMM_WORLD, timeout);
  std::string out = chosen.out.string();
  std::string work = chosen.work.string();
  broadcast(out, world, "the run directory's name");
  broadcast(work, world, "the name of the directory the run writes");
  RunPlace place;
  place.out_ = out;
  place.work_ = work;
  place.note_ = chosen.note;
  c.run.output = flags.found_at.empty() ? out : flags.found_at;
  return place;
}

std::string RunPlace::complete() const {
  if (!replaces()) return "";
  return outputs::replace_run_directory(work_, out_);
}

std::string RunPlace::discard() const {
  if (!replaces()) return "";
  try {
    outputs::remove_run_directory(work_);
    return fmt::format("haloflow: the previous run in {} is untouched", shown(out_));
  } catch (const Error& error) {
    return fmt::format(
        "haloflow: the previous run in {} is untouched; the failed rerun could not be removed "
        "entirely: {}",
        shown(out_), error.what());
  }
}

}  // namespace haloflow::cases
