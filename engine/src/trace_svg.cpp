// The timeline picture: haloflow draws it itself (plain SVG, no library), so it is there on any
// machine, Nsight or not, and can be put in a report as it is.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/trace_writers.hpp"
#include "haloflow/xml_text.hpp"

namespace haloflow {
namespace {

constexpr double kWidth = 1200;
constexpr double kLeft = 200;  // room for the row labels
constexpr double kRight = 30;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kTop = 78;  // below the title, subtitle and frame labels
constexpr double kBoxHeight = 24;
constexpr double kTrackGap = 4;
constexpr double kLabelLine = 13;  // a line of labels for boxes too narrow to hold theirs
constexpr std::size_t kMaxLabelLines = 6;
constexpr double kLabelPadding = 6;
constexpr double kRowGap = 12;
constexpr double kIdleHeight = 12;
constexpr double kFontSize = 11;  // the SVG's default
constexpr int kTargetTicks = 10;

std::string_view fill_of(NodeKind kind) {
  switch (kind) {
    case NodeKind::kernel:
      return "#4c78a8";
    case NodeKind::copy:
      return "#f58518";
    case NodeKind::host:
      return "#54a24b";
    case NodeKind::empty:
      return "#bab0ac";
    case NodeKind::stream:
      return "#b279a2";
  }
  return "#bab0ac";
}

// A tick spacing of 1, 2 or 5 times a power of ten giving about `target` ticks over `range`.
double tick_step(double range, int target) {
  const double raw = range / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double multiple : {1.0, 2.0, 5.0}) {
    if (multiple * magnitude >= raw) return multiple * magnitude;
  }
  return 10 * magnitude;
}

// The advance of `c` in ems, at least what DejaVu Sans (the widest of the usual sans-serif
// fonts a viewer falls back on) gives it: labels are placed by these widths, so a label never
// runs into another in any of them. A byte of a multi-byte UTF-8 character counts as a wide one.
double em_of(unsigned char c) {
  if (c >= 0x80) return 0.5;  // 2 to 4 bytes a character: up to 2 ems
  if (c == 'm' || c == 'w' || c == 'M' || c == 'W' || c == '@' || c == '%') return 1.0;
  if (c == ' ' || c == '.' || c == ',' || c == ':' || c == ';' || c == 'i' || c == 'j' ||
      c == 'l' || c == '|' || c == '!' || c == '\'' || c == 'I') {
    return 0.35;
  }
  if (c >= 'a' && c <= 'z') return 0.64;
  if (c >= '0' && c <= '9') return 0.64;
  return 0.8;  // capitals, brackets, symbols
}

// The width `text` takes at `font_size` px (bold: 10 % more), never less than it draws.
double text_width(std::string_view text, double font_size = kFontSize, bool bold = false) {
  double ems = 0;
  for (const char c : text) ems += em_of(static_cast<unsigned char>(c));
  return ems * font_size * (bold ? 1.1 : 1.0);
}

// `text` cut to fit `width` at `font_size`, ending in "..." where it was cut (on a character
// boundary of UTF-8).
std::string fitted(std::string text, double width, double font_size = kFontSize,
                   bool bold = false) {
  if (text_width(text, font_size, bold) <= width) return text;
  while (!text.empty() && text_width(text + "...", font_size, bold) > width) {
    text.pop_back();
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) {
      text.pop_back();  // a continuation byte: the character's first byte goes with it
    }
    if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
  }
  return text + "...";
}

// The frames of the window, with only their spans.
Trace window_of(const Trace& trace, TimelineWindow window) {
  Trace part = trace;
  part.spans.clear();
  for (const NodeSpan& span : trace.spans) {
    if (span.frame >= window.first && span.frame < window.first + window.count) {
      part.spans.push_back(span);
    }
  }
  return part;
}

class Svg {
 public:
  void line(const std::string& text) {
    body_ += text;
    body_ += '\n';
  }
  [[nodiscard]] std::string finish(double height) const {
    return fmt::format(
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1:.0f}\" "
               "viewBox=\"0 0 {0} {1:.0f}\" font-family=\"sans-serif\" font-size=\"11\">\n"
               "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
               kWidth, height) +
           body_ + "</svg>\n";
  }

 private:
  std::string body_;
};

// Whether a trace's kernels and copies ran on a GPU: a host run has no GPU to sit idle.
bool on_gpu(const Trace& trace) {
  return trace.executor != "host";
}

std::string subtitle(const OverlapReport& report, TimelineWindow window, bool gpu) {
  if (window.count == 1) {
    const FrameOverlap& f = report.frames.at(static_cast<std::size_t>(window.first));
    return fmt::format(
        "frame {}{}: {:.1f} us; interior {:.1f} us, communication {:.1f} us, concurrent {:.1f} "
        "us, hidden {:.1f}% ({:.1f}% by spans); critical path {:.1f} us{}",
        f.frame, f.frame == report.median_frame ? " (the median frame)" : "", f.frame_us,
        f.interior_us, f.communication_us, f.concurrent_us, 100 * f.hidden, 100 * f.hidden_span,
        f.critical_path_us, gpu ? fmt::format("; GPU idle {:.1f} us", f.idle_us) : std::string());
  }
  std::vector<double> frame_us, hidden, idle;
  for (int i = window.first; i < window.first + window.count; ++i) {
    const FrameOverlap& f = report.frames.at(static_cast<std::size_t>(i));
    frame_us.push_back(f.frame_us);
    hidden.push_back(f.hidden);
    idle.push_back(f.idle_us);
  }
  return fmt::format("frames {} to {}, medians: {:.1f} us per frame, hidden {:.1f}%{}",
                     window.first, window.first + window.count - 1, median(frame_us),
                     100 * median(hidden),
                     gpu ? fmt::format(", GPU idle {:.1f} us", median(idle)) : std::string());
}

// Maps trace time to x in the plot.
struct Scale {
  double t0 = 0;
  double range = 1;
  [[nodiscard]] double x(double t) const { return kLeft + (t - t0) / range * kPlotWidth; }
};

// Lines of labels under a row, for boxes too narrow to hold their names: each label goes on
// the first line where it overlaps no other, so names stay readable where short nodes crowd;
// where every line is taken the label is left out (its box's tooltip still names it).
class LabelLines {
 public:
  // The line for a label over [start, end]; none when it fits on no line.
  std::optional<std::size_t> place(double start, double end) {
    for (std::size_t line = 0; line < taken_.size(); ++line) {
      const bool free = std::none_of(taken_[line].begin(), taken_[line].end(), [&](auto used) {
        return start < used.second + kLabelPadding && used.first < end + kLabelPadding;
      });
      if (free) return take(line, start, end);
    }
    if (taken_.size() < kMaxLabelLines) {
      taken_.emplace_back();
      return take(taken_.size() - 1, start, end);
    }
    return std::nullopt;
  }
  [[nodiscard]] std::size_t count() const { return taken_.size(); }

 private:
  std::size_t take(std::size_t line, double start, double end) {
    taken_[line].emplace_back(start, end);
    return line;
  }
  std::vector<std::vector<std::pair<double, double>>> taken_;
};

// One lane's row at `top`: background, label, a box per span (on its track), box labels.
// Returns the row's height; adds the labels left out for want of room to `dropped`.
double draw_row(Svg& svg, const Trace& part, const std::vector<int>& tracks, Lane lane,
                const Scale& scale, double top, const std::string& prefix, int& dropped) {
  int track_count = 1;
  for (std::size_t i = 0; i < part.spans.size(); ++i) {
    if (part.nodes.at(part.spans[i].node).lane == lane) {
      track_count = std::max(track_count, tracks[i] + 1);
    }
  }
  const double boxes_height = track_count * (kBoxHeight + kTrackGap) - kTrackGap;
  const bool bulk = lane == Lane::bulk;
  svg.line(fmt::format("<g class=\"row\" data-lane=\"{}\" data-rank=\"{}\">", to_string(lane),
                       part.rank));
  svg.line(fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#f4f4f4\"/>",
      kLeft, top, kPlotWidth, boxes_height));
  svg.line(fmt::format(
      "<text x=\"10\" y=\"{:.1f}\" font-size=\"12\" font-weight=\"bold\">{}</text>", top + 12,
      xml_escaped(fitted(prefix + (bulk ? "interior" : "communication"), kLeft - 14, 12, true))));
  svg.line(fmt::format("<text x=\"10\" y=\"{:.1f}\" fill=\"#555\">{}</text>", top + 26,
                       bulk ? "bulk lane, low priority" : "chain, high priority"));

  struct Outside {
    double anchor;      // x of the box's middle, where the leader runs
    double box_bottom;  // y where the leader starts
    bool right_aligned;
    std::size_t line;
    std::string text;
  };
  std::vector<Outside> outside;
  LabelLines lines;
  for (std::size_t i = 0; i < part.spans.size(); ++i) {
    const NodeSpan& span = part.spans[i];
    const TraceNode& node = part.nodes.at(span.node);
    if (node.lane != lane) continue;
    const double x = scale.x(span.start_us);
    const double width = std::max(1.0, scale.x(span.end_us) - x);
    const double box_top = top + tracks[i] * (kBoxHeight + kTrackGap);
    svg.line(fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"{}\" "
        "stroke=\"white\" stroke-width=\"0.5\"><title>{}</title></rect>",
        x, box_top, width, kBoxHeight, fill_of(node.kind),
        xml_escaped(fmt::format("{} ({}), frame {}: {:.1f} to {:.1f} us, {:.1f} us", node.name,
                                to_string(node.kind), span.frame, span.start_us - scale.t0,
                                span.end_us - scale.t0, span.duration_us()))));
    const std::string long_label = fmt::format("{} {:.1f} us", node.name, span.duration_us());
    for (const std::string* label : {&long_label, &node.name}) {
      if (text_width(*label) + 8 <= width) {
        svg.line(fmt::format(
            "<text x=\"{:.2f}\" y=\"{:.1f}\" fill=\"white\" text-anchor=\"middle\">{}</text>",
            x + width / 2, box_top + kBoxHeight / 2 + 4, xml_escaped(*label)));
        break;
      }
      if (label == &node.name) {  // too narrow for either: below the row, with a leader
        const double anchor = x + width / 2;
        const double text = text_width(node.name);
        const bool right_aligned = anchor + text > kWidth - 4;
        const std::optional<std::size_t> line =
            right_aligned ? lines.place(anchor - text, anchor) : lines.place(anchor, anchor + text);
        if (line) {
          outside.push_back({anchor, box_top + kBoxHeight, right_aligned, *line, node.name});
        } else {
          ++dropped;
        }
      }
    }
  }
  for (const Outside& label : outside) {
    const double baseline = top + boxes_height + kLabelLine * static_cast<double>(label.line + 1);
    svg.line(fmt::format(
        "<line x1=\"{0:.2f}\" y1=\"{1:.1f}\" x2=\"{0:.2f}\" y2=\"{2:.1f}\" stroke=\"#999\" "
        "stroke-width=\"0.5\"/>",
        label.anchor, label.box_bottom, baseline - 9));
    svg.line(fmt::format("<text x=\"{:.2f}\" y=\"{:.1f}\"{}>{}</text>", label.anchor, baseline,
                         label.right_aligned ? " text-anchor=\"end\"" : "",
                         xml_escaped(label.text)));
  }
  svg.line("</g>");
  return boxes_height + kLabelLine * static_cast<double>(std::max<std::size_t>(1, lines.count())) +
         4;
}

// One rank's rows at `top` (its interior and communication rows, the GPU's idle gaps, the
// frame boundaries across them); returns their height.
// One rank's row of the GPU's idle gaps at `y`; returns the y below it.
double draw_idle(Svg& svg, const Trace& trace, const OverlapReport& report, TimelineWindow window,
                 const Scale& scale, double y, const std::string& prefix) {
  const auto x_of = [&](double t) { return scale.x(t); };
  svg.line(fmt::format("<g class=\"idle\" data-rank=\"{}\">", trace.rank));
  svg.line(fmt::format("<text x=\"10\" y=\"{:.1f}\" fill=\"#b22\">{}GPU idle</text>",
                       y + kIdleHeight - 2, prefix));
  svg.line(fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.0f}\" fill=\"#f4f4f4\"/>",
      kLeft, y, kPlotWidth, kIdleHeight));
  for (int f = window.first; f < window.first + window.count; ++f) {
    for (const IdleGap& gap : report.frames.at(static_cast<std::size_t>(f)).gaps) {
      const double x = x_of(gap.start_us);
      svg.line(fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"#d62728\" "
          "fill-opacity=\"0.7\"><title>{}</title></rect>",
          x, y, std::max(1.0, x_of(gap.end_us) - x), kIdleHeight,
          xml_escaped(
              fmt::format("GPU idle, frame {}: {:.1f} us{}{}", f, gap.duration_us(),
                          gap.after ? " after " + trace.nodes.at(*gap.after).name : "",
                          gap.before ? ", before " + trace.nodes.at(*gap.before).name : ""))));
    }
  }
  svg.line("</g>");
  return y + kIdleHeight + 10;
}

double draw_rank(Svg& svg, const Trace& trace, const OverlapReport& report, TimelineWindow window,
                 const Scale& scale, double top, bool several, int& dropped) {
  const Trace part = window_of(trace, window);
  const std::vector<int> tracks = lane_tracks(part);
  const std::string prefix = several ? fmt::format("rank {} ", trace.rank) : std::string();
  const auto x_of = [&](double t) { return scale.x(t); };
  double y = top;
  for (const Lane lane : {Lane::bulk, Lane::communication}) {
    y += draw_row(svg, part, tracks, lane, scale, y, prefix, dropped) + kRowGap;
  }

  // The GPU's idle gaps, from the report (none on the host executor: it has no GPU).
  if (on_gpu(trace)) y = draw_idle(svg, trace, report, window, scale, y, prefix);

  // Frame boundaries across this rank's rows, labelled above them where a label fits between
  // its frame's boundaries (or is the window's one frame) and after the label before it.
  svg.line(fmt::format("<g class=\"frames\" data-rank=\"{}\">", trace.rank));
  double free_from = 0;
  for (int f = window.first; f < window.first + window.count; ++f) {
    const FrameSpan& frame = trace.frames.at(static_cast<std::size_t>(f));
    for (const double t : {frame.start_us, frame.end_us}) {
      svg.line(fmt::format(
          "<line x1=\"{0:.2f}\" y1=\"{1:.1f}\" x2=\"{0:.2f}\" y2=\"{2:.1f}\" stroke=\"#444\" "
          "stroke-dasharray=\"4 3\" stroke-width=\"0.8\"/>",
          x_of(t), top - 14, y));
    }
    const std::string label = fmt::format("frame {}", f);
    const double middle = (x_of(frame.start_us) + x_of(frame.end_us)) / 2;
    const double half = text_width(label) / 2;
    const bool fits =
        window.count == 1 || 2 * half + 4 <= x_of(frame.end_us) - x_of(frame.start_us);
    if (fits && middle - half >= free_from && middle + half <= kWidth) {
      svg.line(fmt::format("<text x=\"{:.2f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
                           middle, top - 18, label));
      free_from = middle + half + kLabelPadding;
    } else {
      ++dropped;
    }
  }
  svg.line("</g>");
  return y - top;
}

std::string timeline_text(const std::vector<Trace>& ranks, std::optional<TimelineWindow> chosen) {
  if (ranks.empty()) throw Error("timeline: no trace to draw");
  std::vector<OverlapReport> reports;
  for (const Trace& trace : ranks) reports.push_back(analyze(trace));
  const TimelineWindow window = chosen.value_or(TimelineWindow{reports.front().median_frame, 1});
  double t0 = 0;
  double t1 = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const Trace& trace = ranks[r];
    if (window.first < 0 || window.count < 1 ||
        static_cast<std::size_t>(window.first + window.count) > trace.frames.size()) {
      throw Error(fmt::format("timeline: frames {} to {} asked for; rank {} recorded {} frame{}",
                              window.first, window.first + window.count - 1, trace.rank,
                              trace.frames.size(), trace.frames.size() == 1 ? "" : "s"));
    }
    const double first = trace.frames[static_cast<std::size_t>(window.first)].start_us;
    const double last =
        trace.frames[static_cast<std::size_t>(window.first + window.count - 1)].end_us;
    t0 = r == 0 ? first : std::min(t0, first);
    t1 = r == 0 ? last : std::max(t1, last);
  }
  const double range = std::max(t1 - t0, 1e-3);
  const Scale scale{t0, range};
  const bool several = ranks.size() > 1;
  const Trace& head = ranks.front();

  Svg svg;
  // The title and subtitles are cut to the picture's width (the plans' names can be long).
  const std::string title =
      several ? fmt::format("{} executor, {} ranks: {}", head.executor, ranks.size(), head.plan)
              : fmt::format("{} executor, rank {}: {}", head.executor, head.rank, head.plan);
  svg.line(fmt::format(
      "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}<title>{}</title></text>",
      xml_escaped(fitted(title, kWidth - 20, 15, true)), xml_escaped(title)));
  double y = 42;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const std::string line = subtitle(reports[r], window, on_gpu(ranks[r]));
    svg.line(fmt::format(
        "<text x=\"10\" y=\"{:.1f}\" font-size=\"12\">{}</text>", y,
        xml_escaped(fitted(several ? fmt::format("rank {}: {}", ranks[r].rank, line) : line,
                           kWidth - 20, 12))));
    y += 16;
  }
  // Rows: per rank, the interior branch, then the communication chain, then the GPU's gaps.
  y += kTop - 58;
  int dropped = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    y += draw_rank(svg, ranks[r], reports[r], window, scale, y, several, dropped) +
         (several ? 24 : 0);
  }

  // Time axis, in microseconds from the window's start.
  const auto x_of = [&](double t) { return scale.x(t); };
  const double step = tick_step(range, kTargetTicks);
  svg.line("<g class=\"axis\">");
  svg.line(fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"black\"/>", kLeft, y,
      kLeft + kPlotWidth, y));
  for (int tick = 0; tick * step <= range * (1 + 1e-9); ++tick) {
    const double t = tick * step;
    const double x = x_of(t0 + t);
    svg.line(fmt::format(
        "<line x1=\"{0:.2f}\" y1=\"{1:.1f}\" x2=\"{0:.2f}\" y2=\"{2:.1f}\" stroke=\"black\"/>", x,
        y, y + 5));
    svg.line(fmt::format("<text x=\"{:.2f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:g}</text>", x,
                         y + 17, t));
  }
  svg.line(fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">time since frame {} began (us; "
      "{})</text>",
      kLeft + kPlotWidth / 2, y + 33, window.first, xml_escaped(head.clock)));
  svg.line("</g>");
  y += 48;

  // Legend.
  svg.line("<g class=\"legend\">");
  double x = kLeft;
  for (const NodeKind kind : {NodeKind::kernel, NodeKind::copy, NodeKind::host}) {
    svg.line(fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>",
                         x, y, fill_of(kind)));
    const std::string label = fmt::format("{} node", to_string(kind));
    svg.line(fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x + 16, y + 10, label));
    x += 16 + text_width(label) + 24;
  }
  if (on_gpu(head)) {
    svg.line(
        fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"#d62728\" "
                    "fill-opacity=\"0.7\"/>",
                    x, y));
    svg.line(fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\">no kernel or copy running (over {:g} us)</text>", x + 16,
        y + 10, reports.front().min_gap_us));
  }
  if (dropped > 0) {
    y += 20;
    svg.line(fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#555\" class=\"dropped\">{} label{} left out "
        "where {} did not fit; a box's tooltip names its node</text>",
        kLeft, y + 10, dropped, dropped == 1 ? "" : "s", dropped == 1 ? "it" : "they"));
  }
  svg.line("</g>");
  return svg.finish(y + 24);
}

}  // namespace

void write_svg_timeline(std::ostream& out, const std::vector<Trace>& ranks,
                        std::optional<TimelineWindow> window) {
  out << timeline_text(ranks, window);
}

void write_svg_timeline(const std::filesystem::path& path, const std::vector<Trace>& ranks,
                        std::optional<TimelineWindow> window) {
  const std::string text = timeline_text(ranks, window);  // before the file: nothing on an error
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw Error(fmt::format("{}: could not be written", path.string()));
}

}  // namespace haloflow
