#pragma once
// Output files of the haloflow command: never replace a file the user already has, unless told.

#include <string>

namespace haloflow::app {

//! \throws Error naming `path` when it exists and `force` is false. Checked before a run, so a
//! long replay does not end in a refusal.
void refuse_existing(const std::string& path, bool force);

//! Writes `text` to `path`. \throws Error when it exists and `force` is false, or cannot be
//! written.
void write_output_file(const std::string& path, const std::string& text, bool force);

}  // namespace haloflow::app
