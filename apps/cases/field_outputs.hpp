#pragma once
// A run's field outputs, as the case asks, at step 0, every run.output_every steps and after the
// last: VTK image data (every rank its piece in RUN_DIR/vtk, rank 0 the .pvti and the collection
// RUN_DIR/NAME.pvd listing every output with its time) and a PNG picture of the field
// (RUN_DIR/png/NAME_STEP.png; a 3D field's z layer run.png_slice, or the one where the field is
// largest at the first output), gathered on rank 0.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "case_file.hpp"
#include "collective.hpp"
#include "haloflow/mpi_session.hpp"
#include "png_output.hpp"
#include "run_options.hpp"
#include "vtk_image.hpp"
#include "written_files.hpp"

namespace haloflow::cases {

class FieldOutputs {
 public:
  //! The outputs `c` asks for, into the run directory `out`; rank 0 notes each file written in
  //! `written`, which must outlive this. Collective: creates RUN_DIR/vtk and RUN_DIR/png.
  //! \throws CollectiveError when a directory cannot be created.
  FieldOutputs(const CaseFile& c, std::filesystem::path out, const MpiSession& mpi,
               outputs::WrittenFiles& written);

  //! Whether the case writes any field output.
  [[nodiscard]] bool any() const { return vtk_ || png_; }

  //! Sets `options.output_every` to the case's, when it writes any (the run's listener hands
  //! write() the fields).
  void attach(models::RunOptions& options) const;

  //! Writes `field` as the case asks. Collective.
  void write(const models::OwnedField& field);

  //! Rank 0: results.json's "vtk" and "png" entries (what was written so far).
  void add_to(nlohmann::json& results) const;

 private:
  void write_vtk(const models::OwnedField& field);
  void write_png(const models::OwnedField& field);
  //! The z layer the pictures show (chosen at the first output). Collective.
  std::int64_t picture_layer(const models::OwnedField& field);

  std::string name_;
  std::filesystem::path out_;
  const MpiSession& mpi_;
  outputs::WrittenFiles& written_;
  bool vtk_ = false;
  bool png_ = false;
  int every_ = 0;
  outputs::VtkFormat format_;
  int slice_ = -1;   //!< run.png_slice (-1: auto)
  Seconds timeout_;  //!< run.timeout_s: how long each collective of an output waits
  std::optional<std::int64_t> layer_;
  std::optional<int> last_step_;  //!< the step of the last output (euler2d's t_end repeats one)
  std::vector<outputs::CollectionEntry> collection_;
  nlohmann::json pictures_ = nlohmann::json::array();
  nlohmann::json picture_slice_;
  std::vector<std::pair<std::string, int>> arrays_;  //!< the VTK arrays: name, components
  std::string centring_;
};

}  // namespace haloflow::cases
