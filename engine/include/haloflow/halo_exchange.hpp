#pragma once
//! \file
//! \brief The halo exchange of one set of fields, as frame nodes:
//! pack -> device-to-host -> one host node (every MPI_Irecv, then every MPI_Isend, then a bounded
//! wait) -> host-to-device -> unpack. MPI is not assumed CUDA-aware: messages travel through
//! pinned host buffers. Every buffer is allocated once, at construction.

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/plan.hpp"

struct ncclComm;  // ncclComm_t is ncclComm*; declared so this header needs no NCCL

namespace haloflow {

//! \brief One pack or unpack run: `elements` buffer elements from `buffer_offset` on map to the
//! box starting at `lower` with `extent` cells of field `field`, x fastest. Shared with kernels.
struct HaloSegment {
  //! First buffer element of the run; segments are sorted by it, so a kernel thread finds its
  //! segment as the last one that starts at or before its element.
  std::int64_t buffer_offset = 0;
  std::int64_t lower[3] = {0, 0, 0};   //!< first cell of the box, local index space with ghosts
  std::int64_t extent[3] = {1, 1, 1};  //!< cells of the box per axis, each >= 1
  std::int32_t field = 0;              //!< which field of the set, in [0, layout.fields)
};

//! \brief One run of a rank's exchange with itself (a periodic axis it alone spans): the box at
//! `from` is copied to the ghost box at `to`, both `extent` cells of field `field`. Runs are
//! numbered like buffer elements (from `offset` on) although no buffer holds them.
struct HaloCopySegment {
  std::int64_t offset = 0;             //!< first element of the run, sorted like buffer_offset
  std::int64_t from[3] = {0, 0, 0};    //!< first owned cell read
  std::int64_t to[3] = {0, 0, 0};      //!< first ghost cell written
  std::int64_t extent[3] = {1, 1, 1};  //!< cells per axis, each >= 1
  std::int32_t field = 0;              //!< which field of the set
};

//! \brief Segments a halo kernel carries in its parameters. 16 holds every exchange of the
//! models (euler2d's 4 faces of 4 fields is the largest) while the largest parameter block, the
//! self copy's (16 runs of 88 bytes), stays near 1.5 KB: far below CUDA's limit (4 KB, 32 KB
//! from 12.1), and small, since the block is copied at every launch and every patch. The kernels
//! scan the segments in a loop unrolled over this bound, so a larger one costs every element
//! more compares.
inline constexpr int kInlineHaloSegments = 16;
//! \brief Field pointers a halo kernel carries in its parameters: 8 (64 bytes) holds every
//! model's set (euler2d's 4 conserved fields the most).
inline constexpr int kInlineHaloFields = 8;

//! \brief The segments (or self copy runs) of one halo kernel, sorted by their first element.
//! Passed by value: up to kInlineHaloSegments of them sit in `items`, in the kernel's parameter
//! block (the constant bank), so a thread finds its segment with no load from global memory
//! before it can touch the field. Those dependent loads (the search of a device table, then the
//! pointer table) took about 0.7 us of the 15.5 us small-halo chain in a lab on an H200
//! (docs/benchmarks.md). More segments than fit stay in a device table, searched there.
template <class Segment>
struct HaloSegmentList {
  //! Device array of `count` segments when they do not fit in `items` (or inline tables are off,
  //! ExchangeOptions::inline_tables); null: they are `items[0, count)`.
  const Segment* table = nullptr;
  int count = 0;                            //!< segments, >= 1 in a launched kernel
  Segment items[kInlineHaloSegments] = {};  //!< the segments themselves, when `table` is null
};
//! \brief The pack's and unpack's segments.
using HaloSegments = HaloSegmentList<HaloSegment>;
//! \brief The self copy's runs.
using HaloCopySegments = HaloSegmentList<HaloCopySegment>;

//! \brief The kernels' view of where the fields live: by value like HaloSegmentList, the
//! pointers themselves in `fields` when they fit, so the cell's address needs no load from a
//! device array first. Switching field sets (HaloExchange::use_field_set) patches this value.
template <class T>
struct FieldTable {
  //! Device array of one pointer per field when there are more than kInlineHaloFields (or inline
  //! tables are off); null: the pointers are in `fields`.
  T* const* table = nullptr;
  T* fields[kInlineHaloFields] = {};  //!< one pointer per field, when `table` is null
  std::int64_t stride_y = 0;          //!< elements between rows
  std::int64_t stride_z = 0;          //!< elements between planes
};

//! \brief A halo buffer as the pack and unpack kernels see it: device memory, or pinned host
//! memory the kernels read and write directly over PCIe (then with loads that never trust a
//! cached line and stores that write through, since the host touches it between kernels).
template <class T>
struct HaloBuffer {
  T* data = nullptr;  //!< the first element (a device address either way: unified addressing)
  bool host_mapped = false;  //!< pinned host memory, accessed directly over PCIe
};

//! pack(elements, segments, fields, buffer): buffer[e] = the field cell of e.
template <class T>
KernelRef<std::size_t, HaloSegments, FieldTable<T>, HaloBuffer<T>> halo_pack_kernel();
//! unpack(elements, segments, fields, buffer): the field cell of e = buffer[e].
template <class T>
KernelRef<std::size_t, HaloSegments, FieldTable<T>, HaloBuffer<T>> halo_unpack_kernel();
//! self copy(elements, runs, fields): each run's ghost box = its owned box.
template <class T>
KernelRef<std::size_t, HaloCopySegments, FieldTable<T>> halo_self_copy_kernel();

//! \brief How the halos of the host-staged (mpi) transport reach the pinned host buffers MPI
//! sends from and receives into.
enum class Staging {
  automatic,  //!< `mapped` up to ExchangeOptions::mapped_limit bytes per exchange, else `copies`
  copies,     //!< pack into device memory, then a copy node to host (and back before unpack)
  mapped,     //!< pack writes the pinned host buffer directly, unpack reads it: no copy nodes
};

//! \brief How halos travel between ranks.
enum class Transport {
  //! Per route (the halos between this rank and one neighbour, both ways): peer where the
  //! neighbour sits on this rank's node, on a GPU of its own that it can reach (decided by both
  //! ends of the route together); else mpi, in the same exchange. The host executor takes mpi
  //! (peer there is asked for by name), and so do routes between ranks that share a GPU, whose
  //! waiting kernels would take turns on it. nccl is asked for by name until a two-node
  //! benchmark shows it faster.
  automatic,
  mpi,   //!< host-staged: pinned host buffers, MPI in the exchange's host node
  nccl,  //!< ncclSend/ncclRecv between device buffers, inside the frame's graph
  //! Same-node neighbours, no host and no library in the frame: the sender's kernel stores each
  //! halo into its receiver's memory (CUDA IPC; on the host executor an MPI shared-memory window)
  //! and raises a flag; the receiver's kernel waits for the flags, with a deadline, and unpacks.
  //! Neighbours on other nodes are reached by mpi in the same exchange (routes() says which); a
  //! neighbour on this node that cannot be reached so makes every rank refuse, with one reason.
  peer,
};

//! \brief "auto", "mpi", "nccl" or "peer".
[[nodiscard]] std::string_view to_string(Transport transport);
//! \brief Whether this build has the nccl transport.
[[nodiscard]] bool nccl_available();
//! \brief The NCCL this build uses ("NCCL 2.28.3 (built with 2.28.9)"), or why there is none.
[[nodiscard]] std::string nccl_description();
//! \brief Parses "auto", "mpi", "nccl" or "peer".
[[nodiscard]] std::optional<Transport> transport_from_string(std::string_view text);

//! \brief How one HaloExchange names, tags and launches its nodes; the defaults suit one
//! exchange per frame.
struct ExchangeOptions {
  //! Distinguishes exchanges within one frame (e.g. one per Runge-Kutta stage): it goes into
  //! every tag, so messages of two exchanges never match each other.
  int exchange_id = 0;
  //! A peer that has not answered after this long ends the run with an error, never a hang.
  std::chrono::duration<double> timeout = std::chrono::seconds(60);
  //! How the halos travel (Transport).
  Transport transport = Transport::automatic;
  //! How host-staged halos get to and from the host (Staging).
  Staging staging = Staging::automatic;
  //! The largest halo (bytes sent per exchange) that Staging::automatic stages through mapped
  //! memory: below it the two copy nodes cost more than the kernels' PCIe traffic (measured on
  //! an H200, docs/benchmarks.md).
  std::size_t mapped_limit = std::size_t{256} << 10;
  //! A rank that is its own neighbour (a periodic axis with one rank) copies those halos on the
  //! device, with no MPI and no PCIe; false sends them through the transport like any other (to
  //! measure that path on one rank).
  bool self_on_device = true;
  //! Axes along which the face messages a rank sends itself are left out: the caller's kernels
  //! write those ghosts themselves (heat3d's walk stores each new value of the first and last x
  //! columns into the ghost across the box too), so neither a copy nor a message is needed.
  //! Only face messages: the edges and corners of a box stencil still travel. The kernels must
  //! fill the ghosts before the first frame that reads them.
  std::array<bool, 3> self_left_to_kernels{false, false, false};
  //! The nccl transport: an embedder's own communicator (an `ncclComm_t`) over the same ranks,
  //! rank for rank, as the MPI communicator; it must outlive the exchange. Null: haloflow makes
  //! one from the MPI communicator (its unique id broadcast over MPI), shared by every exchange
  //! over that communicator.
  ncclComm* nccl_communicator = nullptr;
  //! Prefix of the node names ("halo" gives "halo.pack", "halo.download", ...).
  std::string name = "halo";
  //! Threads per block and blocks of the grid-stride pack and unpack kernels.
  unsigned block_size = 256;
  //! Blocks of the pack and unpack grid: few, so the communication kernels leave the bulk
  //! kernel most of the GPU.
  unsigned blocks = 264;
  //! The kernels carry their segments and field pointers in their parameters where they fit
  //! (kInlineHaloSegments, kInlineHaloFields), each table decided on its own; false: every table
  //! in device memory, searched there (the path an exchange too large to fit takes), to compare
  //! the two or test that path.
  bool inline_tables = true;
};

//! \brief How the halos to one neighbour travel, and why: what a run's header prints.
struct HaloRoute {
  int peer = 0;                          //!< the neighbour's rank
  std::string direction;                 //!< "+x"
  Transport transport = Transport::mpi;  //!< never automatic
  //! "same node, same GPU (CUDA IPC)", "asked for", "rank 4 is on another node" (transport mpi:
  //! peer asked for, and the neighbour across nodes)
  std::string reason;
};

//! \brief The node names an exchange added, so later nodes can depend on them. A step the chain
//! does not need is named by the node before it (with mapped staging `download` is the pack and
//! `upload` the exchange; with the peer transport the chain is two kernels, "<name>.pack" (which
//! stores into the receivers and raises their flags) under the first three names and
//! "<name>.unpack" (which waits for the flags); a rank whose only neighbour is itself has one node,
//! "<name>.self", under every name), and with no neighbour all five are empty nodes: dependencies
//! on any of the names always resolve. A rank with peer routes and mpi routes (Transport::peer
//! across nodes) has the mpi chain under these names and two more kernels: "<name>.peer_send",
//! before `pack`, and "<name>.peer_receive", after `upload` and before `unpack`, which stays the
//! last node: after `pack` every send box has been read, after `unpack` every ghost is in place.
struct ExchangeNodes {
  std::string pack;      //!< "<name>.pack": the kernel that gathers the send boxes
  std::string download;  //!< "<name>.download": device send buffer to pinned host
  //! "<name>.exchange": the MPI host node (post, then finish), the NCCL calls, or, when every
  //! remote halo travels peer to peer, the one kernel that sends and receives them (then every
  //! name but `self` is this node's)
  std::string exchange;
  std::string upload;  //!< "<name>.upload": pinned host receive buffer to device
  std::string unpack;  //!< "<name>.unpack": scatters received boxes into the ghosts; last node
  //! "<name>.self": the device copy of the ghosts a rank sends itself, after which they are in
  //! place (it needs no other node of the exchange); empty when the rank sends itself nothing.
  std::string self;

  //! \brief What a kernel that reads only the self-copied ghosts (and owned cells) waits for: the
  //! self copy, or nothing.
  [[nodiscard]] std::vector<std::string> after_self() const {
    return self.empty() ? std::vector<std::string>{} : std::vector<std::string>{self};
  }
};

//! \brief Exchanges the ghost cells of `fields` (each laid out as `plan.layout`) with the
//! neighbours `plan` names. Move-only; keeps a duplicate of the caller's communicator, so its
//! tags never meet the caller's own messages.
template <class T>
class HaloExchange {
 public:
  //! `field_sets`: one or more sets of `plan.layout.fields` device pointers (two for ping-pong
  //! buffers); `use_field_set` switches between them without rebuilding anything.
  //! \pre MPI is initialised with MPI_THREAD_MULTIPLE (the graph executor calls MPI from a
  //! CUDA driver thread); the field pointers stay valid while any frame using them lives.
  //! \throws Error when MPI is not initialised or its thread level is lower, for a field count
  //! that does not match, or a failed MPI or CUDA call.
  HaloExchange(HaloPlan plan, MPI_Comm communicator, std::vector<std::vector<T*>> field_sets,
               Backend backend, ExchangeOptions options = {});
  ~HaloExchange();
  //! \brief Takes over the buffers and communicator; nodes already added keep working, since
  //! they point at state that does not move. \post the moved-from exchange may only be destroyed
  //! or assigned to.
  HaloExchange(HaloExchange&&) noexcept;
  //! \brief Releases this exchange's state, then takes over the other's.
  //! \post the moved-from exchange may only be destroyed or assigned to.
  HaloExchange& operator=(HaloExchange&&) noexcept;
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  //! \brief Adds the exchange's nodes, all in the communication lane, the first ones after
  //! `after`: pack, download, exchange, upload, unpack for the halos of other ranks (no copy nodes
  //! with mapped staging), and "<name>.self" for those a rank sends itself. May be called for
  //! several plans (e.g. one frame per parity of the step); their frames must not run at once.
  //! The nodes read and write field set `field_set` (use_field_set switches a frame later), and
  //! declare so in their accesses: pack reads the send boxes, unpack writes the ghosts that
  //! travel, the self copy reads owned boxes and writes the ghosts a rank sends itself, each step
  //! reads and writes its buffers, and the unpack follows the self copy (through a token both
  //! declare), so the chain's own edges and the caller's follow from them.
  //! \throws Error for a field set that does not exist.
  ExchangeNodes add_to(FramePlan& plan, std::vector<std::string> after = {},
                       std::size_t field_set = 0);
  //! \brief Makes the exchange nodes of `frame` (built from a plan given to `add_to`) read and
  //! write field set `set` from the next launch on: a patch of each of its kernels, nothing
  //! rebuilt. \throws Error for a set that does not exist.
  void use_field_set(Frame& frame, std::size_t set);

  //! \brief Host side, first half: posts every MPI_Irecv, then every MPI_Isend, from the pinned
  //! buffers (of the mpi routes, in an exchange that mixes them with peer routes). Makes no CUDA
  //! call (it runs on a CUDA driver thread or haloflow's progress thread inside a graph). \throws
  //! Error if an earlier exchange failed: a failed exchange stays failed, so no later frame waits
  //! on the silent peer again.
  void post();
  //! \brief Host side, second half: waits for every request, at most `options.timeout`.
  //! \throws Error naming this rank, the peer and the direction that did not complete.
  void finish();
  //! \brief `post()` then `finish()`: the body of the exchange host node.
  void run();

  //! \brief The halo plan given at construction.
  [[nodiscard]] const HaloPlan& plan() const;
  //! \brief The options given at construction.
  [[nodiscard]] const ExchangeOptions& options() const;
  //! \brief How many field sets use_field_set() can choose from.
  [[nodiscard]] std::size_t field_sets() const;
  //! \brief How the halos travel (never `automatic`: as chosen at construction): `peer` when any
  //! route of this rank travels peer to peer (the others by mpi: routes() says which).
  [[nodiscard]] Transport transport() const;
  //! \brief How this exchange stages its host-staged halos (never `automatic`: as chosen; the
  //! nccl transport always uses device buffers, reported as `copies`).
  [[nodiscard]] Staging staging() const;
  //! \brief True when every kernel of this exchange carries its segments and field pointers in
  //! its parameters (as chosen at construction: ExchangeOptions::inline_tables, and each table
  //! within kInlineHaloSegments or kInlineHaloFields); false when any reads a device table.
  [[nodiscard]] bool tables_inline() const;
  //! \brief Per message to another rank (in plan order): how it travels and why.
  [[nodiscard]] const std::vector<HaloRoute>& routes() const;
  //! \brief Messages that travel between ranks (those a rank copies to itself excluded).
  [[nodiscard]] std::size_t remote_messages() const;
  //! \brief The axes to cut the update along so that the interior reads no ghost that travels
  //! (split_update's `split_axes`): those of every face message to another rank, and for a
  //! diagonal one not covered by them, its axes. An axis whose halos the rank copies to itself
  //! (one rank along a periodic axis), or that has no neighbour, is not marked.
  [[nodiscard]] std::array<bool, 3> remote_axes() const;
  //! \brief The pinned buffer MPI sends from: the messages to other ranks, back to back in
  //! plan order.
  [[nodiscard]] Buffer& host_send();
  //! \brief The pinned buffer MPI receives into, laid out as host_send().
  [[nodiscard]] Buffer& host_receive();

 private:
  void add_unpack(FramePlan& plan, const ExchangeNodes& names, std::vector<std::string> after,
                  const std::string& self_copy, const LaunchShape& shape, std::size_t field_set);
  void add_peer_send(FramePlan& plan, const std::string& name, std::vector<std::string> after,
                     const LaunchShape& shape, std::size_t field_set);
  void add_peer_receive(FramePlan& plan, const std::string& name, std::vector<std::string> after,
                        const std::string& self_copy, const LaunchShape& shape,
                        std::size_t field_set);
  void add_peer_exchange(FramePlan& plan, const std::string& name, std::vector<std::string> after,
                         const std::string& self_copy, const LaunchShape& shape,
                         std::size_t field_set);

  struct State;
  std::unique_ptr<State> state_;
};

extern template class HaloExchange<float>;
extern template class HaloExchange<double>;

//! \brief A direction as text: "+x", "-y", "+x-y+z".
[[nodiscard]] std::string direction_name(Coord3 direction);

}  // namespace haloflow
