// libFuzzer target: any bytes as a case file, through the reader `haloflow run`, `validate` and
// `replay` share (the JSON limits, then every model's section, the run and exchange sections and
// the machine check). Anything but an Error with a message is a finding: a crash, a sanitizer
// report, a hang (libFuzzer's -timeout), a message with a raw control character.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "case_file.hpp"
#include "haloflow/error.hpp"
#include "json_input.hpp"
#include "printable.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const int ranks : {1, 6}) {
    try {
      (void)haloflow::cases::parse_case(haloflow::input::parse_json(text, "fuzz.json"), "fuzz.json",
                                        {.ranks = ranks, .memory_gib = 16});
    } catch (const haloflow::Error& error) {
      // What the command prints: no control character but the line breaks survives.
      const std::string shown = haloflow::input::printable_message(error.what());
      for (const char c : shown) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte < 0x20 && byte != '\n') || byte == 0x7f) std::abort();
      }
    }
  }
  return 0;
}
