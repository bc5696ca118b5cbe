// Recording the graph executor with CUPTI. Kernel and memcpy activity records carry the id of
// the graph node that ran them; those are nodes of the *executable* graph, clones of the nodes
// the plan was lowered to, so the CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED callback is watched while
// the graph is instantiated to map each clone's id back to its original (and so to the plan
// node). Host nodes are not GPU activity: the executor wraps their callbacks while recording,
// and they are time-stamped with cuptiGetTimestamp, the clock of the activity records.
//
// Life of a recording: constructed (subscribed to the clone callback, activity on) -> the frame
// is instantiated -> attach() (ids read, unsubscribed, activity off: untraced frames run as if
// CUPTI were not there) -> start() (activity on, host nodes timed) -> stop() (forced flush,
// activity off, host nodes untimed).

#include <cupti.h>
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "gpu_ports.hpp"
#include "graph_executor.hpp"
#include "haloflow/error.hpp"
#include "span_source.hpp"

namespace haloflow {
namespace {

void cupti_check(CUptiResult status, const char* call, std::string_view context) {
  if (status == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || text == nullptr) {
    text = "unknown CUPTI error";
  }
  throw Error(fmt::format("{} failed for {}: {}", call, context, text));
}

#define HALOFLOW_CUPTI(call, context) cupti_check((call), #call, (context))

constexpr std::size_t kBufferBytes = std::size_t{8} << 20;  // CUPTI asks for more when full
constexpr std::size_t kBufferAlignment = 8;                 // what CUPTI requires
constexpr int kMaxCloneHops = 8;                            // a clone of a clone, at most

//! One kernel or copy as CUPTI saw it.
struct GpuRecord {
  std::uint64_t graph_node = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

class CuptiSpanSource;
// The source that CUPTI's activity buffers go to (the buffer callbacks take no user data),
// guarded so that a buffer completing on a CUPTI thread never meets a source being destroyed.
std::mutex active_mutex;
CuptiSpanSource* active_source = nullptr;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                               std::size_t size, std::size_t valid);
void CUPTIAPI on_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data);

class CuptiSpanSource final : public SpanSource {
 public:
  CuptiSpanSource() {
    {
      const std::lock_guard lock(active_mutex);
      if (active_source != nullptr) {
        throw Error(
            "a CUPTI frame recorder is already alive in this process; one records at a time");
      }
      active_source = this;
    }
    try {
      subscribe();
      // Kernel and copy activity is on while the graph is instantiated too, and off again in
      // attach(): whether CUPTI prepares an executable graph's nodes for tracing when it is
      // instantiated or when it is launched, the recorded frames then get their records.
      enable_activity();
    } catch (...) {  // no destructor runs for a constructor that throws
      disable_activity();
      if (subscriber_ != nullptr) (void)cuptiUnsubscribe(subscriber_);
      const std::lock_guard lock(active_mutex);
      active_source = nullptr;
      throw;
    }
  }

  ~CuptiSpanSource() override {
    // Best effort: a destructor reports nothing, and CUPTI may already be torn down at exit.
    disable_activity();
    if (subscriber_ != nullptr) (void)cuptiUnsubscribe(subscriber_);
    const std::lock_guard lock(active_mutex);
    active_source = nullptr;
  }

  CuptiSpanSource(const CuptiSpanSource&) = delete;
  CuptiSpanSource& operator=(const CuptiSpanSource&) = delete;
  CuptiSpanSource(CuptiSpanSource&&) = delete;
  CuptiSpanSource& operator=(CuptiSpanSource&&) = delete;

  [[nodiscard]] std::uint64_t now() noexcept override {
    std::uint64_t timestamp = 0;
    (void)cuptiGetTimestamp(&timestamp);
    return timestamp;
  }

  std::string_view clock() const override {
    return "CUPTI timestamps (kernel and copy activity records; host nodes by "
           "cuptiGetTimestamp)";
  }

  void attach(const std::vector<Frame*>& frames) override {
    SpanSource::attach(frames);
    for (std::size_t f = 0; f < frames.size(); ++f) {
      Frame& frame = *frames[f];
      auto* graph = dynamic_cast<GraphExecutor*>(&detail::executor_of(frame));
      if (graph == nullptr) {
        throw Error(
            fmt::format("frame '{}' is not lowered to a CUDA graph; CUPTI recording reads "
                        "graph node ids",
                        frame.plan().name()));
      }
      plan_name_ += (plan_name_.empty() ? "" : ", ") + frame.plan().name();
      // Only the plan's kernels and copies are looked up: the lowering may add nodes of its own
      // (the proxy handoff's doorbell and wait kernels), whose records map to no plan node and
      // are left out rather than miscounted. Host nodes are timed on the host (around their
      // work), so a kernel standing in for one is left unmatched rather than doubled.
      for (std::size_t i = 0; i < frame.plan().nodes().size(); ++i) {
        if (frame.plan().node(i).kind() == NodeKind::host) continue;
        std::uint64_t id = 0;
        HALOFLOW_CUPTI(cuptiGetGraphNodeId(graph->graph_node(i), &id),
                       fmt::format("node '{}' of frame '{}'", frame.plan().node(i).name(),
                                   frame.plan().name()));
        plan_node_of_id_[id] = first_node(f) + i;
        if (is_gpu_work(frame.plan().node(i).kind())) ++gpu_nodes_;
      }
    }
    // The executable graph exists: its clones are known, and until start() nothing is traced.
    HALOFLOW_CUPTI(cuptiUnsubscribe(subscriber_), "the graph-node clone callback");
    subscriber_ = nullptr;
    disable_activity();
    HALOFLOW_CUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
                   "CUPTI activity buffers");
    const std::lock_guard lock(mutex_);
    records_.clear();  // whatever ran before the frame existed is none of its nodes
    dropped_ = 0;
  }

  void start(const std::vector<Frame*>& frames) override {
    enable_activity();
    SpanSource::start(frames);
  }

  std::vector<RawSpan> stop(const std::vector<Frame*>& frames) override {
    std::vector<RawSpan> spans = SpanSource::stop(frames);
    // Every frame was waited for, so every record is complete: a forced flush delivers them
    // all (through buffer_completed) before it returns.
    HALOFLOW_CUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
                   "CUPTI activity buffers");
    disable_activity();

    const std::lock_guard lock(mutex_);
    if (dropped_ > 0) {
      throw Error(fmt::format(
          "CUPTI dropped {} activity records of frame '{}'; the trace would miss nodes (record "
          "fewer frames)",
          dropped_, plan_name_));
    }
    std::size_t matched = 0;
    for (const GpuRecord& record : records_) {
      if (const auto node = plan_node(record.graph_node)) {
        ++matched;
        spans.push_back(RawSpan{*node, record.start_ns, record.end_ns});
      }
    }
    if (matched == 0 && gpu_nodes_ > 0) {
      throw Error(fmt::format(
          "CUPTI delivered {} kernel and copy records, none from a node of frame '{}' ({} graph "
          "node clones were seen while it was instantiated; the recorder must exist before the "
          "frame is built)",
          records_.size(), plan_name_, clones_.size()));
    }
    records_.clear();
    return spans;
  }

  void cloned(std::uint64_t clone, std::uint64_t original) noexcept {
    const std::lock_guard lock(mutex_);
    try {
      clones_[clone] = original;
    } catch (...) {  // NOLINT(bugprone-empty-catch): its records will show up as unmatched
    }
  }

  void consume(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
               std::size_t valid) noexcept {
    const std::lock_guard lock(mutex_);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      std::optional<GpuRecord> gpu;
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
          record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        gpu = GpuRecord{kernel->graphNodeId, kernel->start, kernel->end};
      } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        gpu = GpuRecord{copy->graphNodeId, copy->start, copy->end};
      }
      // Start and end 0: CUPTI could not time it; a record without a node is not a frame's.
      if (!gpu || gpu->graph_node == 0 || (gpu->start_ns == 0 && gpu->end_ns == 0)) continue;
      try {
        records_.push_back(*gpu);
      } catch (...) {
        ++dropped_;
      }
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) {
      dropped_ += dropped;
    }
  }

 private:
  static bool is_gpu_work(NodeKind kind) {
    return kind == NodeKind::kernel || kind == NodeKind::copy;  // a stream node's clones are hidden
  }

  void subscribe() {
    std::string other(CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1, '\0');
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "haloflow replay";
    params.oldSubscriberName = other.data();
    params.oldSubscriberSize = other.size();
    const CUptiResult status = cuptiSubscribe_v2(&subscriber_, &on_callback, this, &params);
    if (status == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      other.resize(other.find('\0'));
      throw Error(fmt::format(
          "CUPTI is already in use by {}: haloflow replay records with CUPTI itself and cannot "
          "run under another profiler (run it on its own, or profile `haloflow run`)",
          other.empty() ? std::string("another tool") : "'" + other + "'"));
    }
    HALOFLOW_CUPTI(status, "haloflow replay's CUPTI subscriber");
    HALOFLOW_CUPTI(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE,
                                       CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED),
                   "the graph-node clone callback");
  }

  void enable_activity() {
    HALOFLOW_CUPTI(cuptiActivityRegisterCallbacks(&buffer_requested, &buffer_completed),
                   "CUPTI activity buffers");
    activity_on_ = true;
    HALOFLOW_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                   "kernel activity records");
    HALOFLOW_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "copy activity records");
  }

  void disable_activity() noexcept {
    if (!activity_on_) return;
    (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    activity_on_ = false;
  }

  // The plan node a record's graph node id stands for: the id itself when CUPTI reports the
  // lowered node, else its original, followed through clones of clones.
  std::optional<std::size_t> plan_node(std::uint64_t id) const {
    for (int hop = 0; hop <= kMaxCloneHops; ++hop) {
      if (const auto found = plan_node_of_id_.find(id); found != plan_node_of_id_.end()) {
        return found->second;
      }
      const auto original = clones_.find(id);
      if (original == clones_.end()) return std::nullopt;
      id = original->second;
    }
    return std::nullopt;
  }

  CUpti_SubscriberHandle subscriber_ = nullptr;
  bool activity_on_ = false;
  std::string plan_name_;
  std::map<std::uint64_t, std::size_t> plan_node_of_id_;
  std::size_t gpu_nodes_ = 0;
  std::mutex mutex_;  // guards what CUPTI's threads write: clones_, records_, dropped_
  std::map<std::uint64_t, std::uint64_t> clones_;  // clone's id -> original's id
  std::vector<GpuRecord> records_;
  std::size_t dropped_ = 0;
};

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                               std::size_t /*size*/, std::size_t valid) {
  // A buffer may complete after the recorder is gone (CUPTI flushes at exit): it is only freed.
  {
    const std::lock_guard lock(active_mutex);
    if (active_source != nullptr && buffer != nullptr) {
      active_source->consume(context, stream, buffer, valid);
    }
  }
  std::free(buffer);
}

void CUPTIAPI on_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) return;
  // Resource callbacks pass CUpti_ResourceData; for graph events its resourceDescriptor is the
  // CUpti_GraphData, valid only during the callback.
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* graph = static_cast<const CUpti_GraphData*>(resource->resourceDescriptor);
  if (graph == nullptr) return;
  std::uint64_t clone = 0;
  std::uint64_t original = 0;
  if (cuptiGetGraphNodeId(graph->node, &clone) != CUPTI_SUCCESS ||
      cuptiGetGraphNodeId(graph->originalNode, &original) != CUPTI_SUCCESS) {
    return;
  }
  static_cast<CuptiSpanSource*>(userdata)->cloned(clone, original);
}

}  // namespace

std::unique_ptr<SpanSource> make_cupti_span_source() {
  return std::make_unique<CuptiSpanSource>();
}

}  // namespace haloflow
