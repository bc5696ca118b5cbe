#pragma once
// --dot DIR of `haloflow run` and `haloflow replay`: one Graphviz graph per file, so that
// `dot -Tsvg FILE` draws each (dot reads only a file's first graph): DIR/<frame>.dot per frame
// the model builds, and, where replay records the graph executor, DIR/<frame>.cuda.dot, the CUDA
// graph that frame was lowered to.

#include <filesystem>
#include <string>
#include <vector>

#include "haloflow/frame.hpp"
#include "written_files.hpp"

namespace haloflow::cases {

//! A frame's file name without ".dot": its plan's name with every byte but letters, digits,
//! '-', '_' and '.' made '_' ("jacobi2d two steps even" -> "jacobi2d_two_steps_even"); "frame"
//! for a name with nothing else; never starting with '.'.
[[nodiscard]] std::string dot_file_stem(const std::string& plan_name);

//! The stems of `plan_names` in order, made unique by ".2", ".3", ... after a repeated one.
[[nodiscard]] std::vector<std::string> dot_file_stems(const std::vector<std::string>& plan_names);

//! Before a run: `dir` is a directory (or nothing yet, in a folder that exists) and holds no
//! .dot file unless `force`. \throws Error naming `dir` and what to do.
void check_dot_directory(const std::filesystem::path& dir, bool force);

//! Makes `dir` unless it exists and writes each frame's plan to dir/<stem>.dot, and with `cuda`
//! (graph executor only) CUDA's own description of its lowered graph to dir/<stem>.cuda.dot.
//! An existing file is replaced only with `force`. \returns the files written, in order.
//! \throws Error naming the file that could not be written (or that exists, without force).
[[nodiscard]] std::vector<outputs::WrittenFile> write_dot_files(const std::vector<Frame*>& frames,
                                                                const std::filesystem::path& dir,
                                                                bool force, bool cuda);

}  // namespace haloflow::cases
