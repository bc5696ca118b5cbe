#include "vtk_image.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/xml_text.hpp"

namespace haloflow::outputs {
namespace {

using models::Centring;

// zlib blocks of 1 MiB: VTK's readers take any block size, and float data compresses no better
// in larger ones.
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;

std::string triple(const std::array<double, 3>& v) {
  return fmt::format("{:.17g} {:.17g} {:.17g}", v[0], v[1], v[2]);
}

const char* type_name(const VtkFormat& format) {
  return format.precision == VtkPrecision::float32 ? "Float32" : "Float64";
}

const char* data_element(Centring centring) {
  return centring == Centring::points ? "PointData" : "CellData";
}

// The file's VTKFile attributes: little-endian (as x86 and the GPUs' hosts store), 64-bit block
// headers, the compressor when compressed.
std::string file_attributes(const char* type, const VtkFormat& format) {
  return fmt::format(
      "type=\"{}\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\"{}", type,
      format.compression == VtkCompression::zlib ? " compressor=\"vtkZLibDataCompressor\"" : "");
}

// "Scalars" names the first one-component array, "Vectors" the first three-component one, so
// that ParaView colours and glyphs by them unless told otherwise.
std::string active_arrays(const std::vector<ArrayValues>& arrays) {
  std::string text;
  const auto first = [&](int components) {
    return std::find_if(arrays.begin(), arrays.end(),
                        [&](const ArrayValues& a) { return a.components == components; });
  };
  if (const auto scalar = first(1); scalar != arrays.end()) {
    text += fmt::format(" Scalars=\"{}\"", xml_escaped(scalar->name));
  }
  if (const auto vector = first(3); vector != arrays.end()) {
    text += fmt::format(" Vectors=\"{}\"", xml_escaped(vector->name));
  }
  return text;
}

std::string time_field(double time) {
  return fmt::format(
      "    <FieldData>\n"
      "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
      "format=\"ascii\">{:.17g}</DataArray>\n"
      "    </FieldData>\n",
      time);
}

void append_u64(std::string& out, std::uint64_t value) {
  char bytes[8];
  std::memcpy(bytes, &value, 8);  // little-endian hosts only (byte_order says so)
  out.append(bytes, 8);
}

// The values as the file stores them, converted to the file's precision.
std::string raw_values(std::span<const double> values, const VtkFormat& format) {
  std::string out;
  if (format.precision == VtkPrecision::float64) {
    out.resize(values.size() * sizeof(double));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  out.resize(values.size() * sizeof(float));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto value = static_cast<float>(values[i]);
    std::memcpy(out.data() + i * sizeof(float), &value, sizeof(float));
  }
  return out;
}

// Threads that compress one array's blocks: zlib at its fastest level takes about 5 ns a byte
// (200 MB/s on one core, against writing at several GB/s), so a snapshot of 1 GiB would cost
// seconds on one thread; its blocks are independent, so they are compressed side by side, a few
// blocks per thread at least.
constexpr unsigned kMostCompressionThreads = 8;
constexpr std::size_t kBlocksPerThread = 4;

// `raw` in zlib blocks of kBlockBytes (the last one shorter), each compressed alone, so the result
// does not depend on how many threads compressed them.
std::vector<std::string> compressed_blocks(const std::string& raw) {
  const std::size_t blocks = (raw.size() + kBlockBytes - 1) / kBlockBytes;
  const auto block_size = [&](std::size_t b) {
    return std::min(kBlockBytes, raw.size() - b * kBlockBytes);
  };
  // Room for each block allocated here, so that the threads only call zlib (which neither
  // allocates through us nor throws) and record the lengths.
  std::vector<std::string> compressed(blocks);
  std::vector<uLongf> lengths(blocks);
  std::vector<int> statuses(blocks, Z_OK);
  for (std::size_t b = 0; b < blocks; ++b) {
    lengths[b] = compressBound(static_cast<uLong>(block_size(b)));
    compressed[b].resize(lengths[b]);
  }
  std::atomic<std::size_t> next{0};
  const auto compress_some = [&]() noexcept {
    for (std::size_t b = next++; b < blocks; b = next++) {
      statuses[b] = compress2(reinterpret_cast<Bytef*>(compressed[b].data()), &lengths[b],
                              reinterpret_cast<const Bytef*>(raw.data() + b * kBlockBytes),
                              static_cast<uLong>(block_size(b)),
                              Z_BEST_SPEED);  // float data: speed over a few %
    }
  };
  const std::size_t wanted = std::min<std::size_t>(
      {std::max(1U, std::thread::hardware_concurrency()), kMostCompressionThreads,
       (blocks + kBlocksPerThread - 1) / kBlocksPerThread});
  {
    std::vector<std::jthread> helpers;  // joined when the scope ends, also if one fails to start
    for (std::size_t t = 1; t < wanted; ++t) helpers.emplace_back(compress_some);
    compress_some();
  }
  for (std::size_t b = 0; b < blocks; ++b) {
    if (statuses[b] != Z_OK) {
      throw Error(fmt::format("VTK output: zlib compress2 failed on block {} of {} ({})", b + 1,
                              blocks, statuses[b]));
    }
    compressed[b].resize(lengths[b]);
  }
  return compressed;
}

// One array's block of the appended data: raw, its byte count and the bytes; zlib, the block
// count, the block size, the last block's size (0: a full one), each block's compressed size,
// then the compressed blocks (VTK's vtkZLibDataCompressor layout).
std::string appended_block(std::span<const double> values, const VtkFormat& format) {
  const std::string raw = raw_values(values, format);
  std::string out;
  if (format.compression == VtkCompression::none) {
    append_u64(out, raw.size());
    return out + raw;
  }
  const std::vector<std::string> compressed = compressed_blocks(raw);
  const std::size_t blocks = compressed.size();
  append_u64(out, blocks);
  append_u64(out, kBlockBytes);
  append_u64(out, raw.size() % kBlockBytes);
  for (const std::string& block : compressed) append_u64(out, block.size());
  for (const std::string& block : compressed) out += block;
  return out;
}

}  // namespace

std::int64_t extent_samples(const Extent& e, Centring centring) {
  std::int64_t count = 1;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const std::int64_t points = e[2 * axis + 1] - e[2 * axis] + 1;
    count *= centring == Centring::points ? points : std::max<std::int64_t>(points - 1, 1);
  }
  return count;
}

std::string extent_text(const Extent& e) {
  return fmt::format("{} {} {} {} {} {}", e[0], e[1], e[2], e[3], e[4], e[5]);
}

std::string vti_file(const ImageGrid& grid, const Extent& piece,
                     const std::vector<ArrayValues>& arrays, const VtkFormat& format) {
  const VtiParts parts = vti_parts(grid, piece, arrays, format);
  return parts.xml + parts.data + parts.tail;
}

VtiParts vti_parts(const ImageGrid& grid, const Extent& piece,
                   const std::vector<ArrayValues>& arrays, const VtkFormat& format) {
  const std::int64_t samples = extent_samples(piece, grid.centring);
  VtiParts parts{.xml = {}, .data = "_", .tail = {}};  // the appended data starts after the '_'
  std::string declarations;
  for (const ArrayValues& array : arrays) {
    const auto expected = static_cast<std::size_t>(samples * array.components);
    if (array.values.size() != expected) {
      throw Error(
          fmt::format("VTK output: array {} holds {} values; the piece {} needs {} ({} "
                      "samples of {} components)",
                      array.name, array.values.size(), extent_text(piece), expected, samples,
                      array.components));
    }
    declarations += fmt::format(
        "        <DataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\" "
        "format=\"appended\" offset=\"{}\"/>\n",
        type_name(format), xml_escaped(array.name), array.components, parts.data.size() - 1);
    parts.data += appended_block(array.values, format);
  }
  const char* element = data_element(grid.centring);
  const std::string extent = extent_text(piece);
  parts.xml = fmt::format(
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile {}>\n"
      "  <ImageData WholeExtent=\"{}\" Origin=\"{}\" Spacing=\"{}\" "
      "Direction=\"1 0 0 0 1 0 0 0 1\">\n"
      "{}"
      "    <Piece Extent=\"{}\">\n"
      "      <{}{}>\n"
      "{}"
      "      </{}>\n"
      "    </Piece>\n"
      "  </ImageData>\n"
      "  <AppendedData encoding=\"raw\">\n"
      "   ",
      file_attributes("ImageData", format), extent, triple(grid.origin), triple(grid.spacing),
      time_field(grid.time), extent, element, active_arrays(arrays), declarations, element);
  parts.tail =
      "\n"
      "  </AppendedData>\n"
      "</VTKFile>\n";
  return parts;
}

std::string pvti_file(const ImageGrid& grid, const std::vector<PieceSource>& pieces,
                      const std::vector<ArrayValues>& arrays, const VtkFormat& format) {
  const char* element = data_element(grid.centring);
  std::string text = fmt::format(
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile {}>\n"
      "  <PImageData WholeExtent=\"{}\" GhostLevel=\"0\" Origin=\"{}\" Spacing=\"{}\" "
      "Direction=\"1 0 0 0 1 0 0 0 1\">\n"
      "{}"
      "    <P{}{}>\n",
      file_attributes("PImageData", format), extent_text(grid.whole), triple(grid.origin),
      triple(grid.spacing), time_field(grid.time), element, active_arrays(arrays));
  for (const ArrayValues& array : arrays) {
    text += fmt::format("      <PDataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\"/>\n",
                        type_name(format), xml_escaped(array.name), array.components);
  }
  text += fmt::format("    </P{}>\n", element);
  for (const PieceSource& piece : pieces) {
    text += fmt::format("    <Piece Extent=\"{}\" Source=\"{}\"/>\n", extent_text(piece.extent),
                        xml_escaped(piece.file));
  }
  return text +
         "  </PImageData>\n"
         "</VTKFile>\n";
}

std::string pvd_file(const std::vector<CollectionEntry>& entries) {
  std::string text =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n";
  for (const CollectionEntry& entry : entries) {
    text += fmt::format("    <DataSet timestep=\"{:.17g}\" group=\"\" part=\"0\" file=\"{}\"/>\n",
                        entry.time, xml_escaped(entry.file));
  }
  return text +
         "  </Collection>\n"
         "</VTKFile>\n";
}

}  // namespace haloflow::outputs
