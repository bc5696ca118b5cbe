#pragma once
//! \file
//! \brief Text put into XML: the names and labels haloflow writes into its SVG timelines and its
//! VTK files (a node, an array or a case named with `<`, `&` or a quote stays readable XML).

#include <string>
#include <string_view>

namespace haloflow {

//! `text` with the five characters XML reserves (& < > " ') written as entities, so that it can
//! stand in an attribute value or element content; every other byte as it is.
[[nodiscard]] std::string xml_escaped(std::string_view text);

}  // namespace haloflow
