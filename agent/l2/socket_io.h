// SPDX-License-Identifier: Apache-2.0
// Thin wrappers over the sockets the responder uses (AF_PACKET with BPF, ICMPv6 for multicast
// membership, rtnetlink link events, eventfd). Internal to agent/l2.
#pragma once

#include <optional>
#include <utility>

#include "agent/l2/core/frame.h"
#include "common/util/result.h"

namespace ingot::agent::l2 {

/// Fd owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  /// get returns the descriptor (-1 when empty).
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

/// PacketKind selects which frames a packet socket lets through its kernel filter.
enum class PacketKind { Arp, NeighborSolicit };

/// openPacketSocket opens a non-blocking AF_PACKET socket bound to an interface, with a
/// classic BPF filter attached before binding so only ARP (resp. ICMPv6 NS) reaches user space.
Result<Fd> openPacketSocket(int ifindex, PacketKind kind);

/// openMembershipSocket opens an ICMPv6 socket that receives nothing, used only to join
/// solicited-node multicast groups (which makes the kernel send MLD reports).
Result<Fd> openMembershipSocket();

/// setMembership joins or leaves an IPv6 multicast group on an interface.
Result<void> setMembership(int fd, int ifindex, const Ip6& group, bool join);

/// Received is one frame read into a buffer: its length and how the kernel delivered it.
struct Received {
  size_t size = 0;
  Delivery delivery = Delivery::ForUs;
};

/// receiveFrame reads one frame into buf; nullopt when none is ready. Frames this host sent
/// (PACKET_OUTGOING) are skipped.
std::optional<Received> receiveFrame(int fd, Bytes& buf);

/// sendFrame transmits a frame on the socket's interface; false on failure.
bool sendFrame(int fd, int ifindex, const Bytes& frame);

/// openLinkEvents subscribes to rtnetlink link changes (non-blocking).
Result<Fd> openLinkEvents();

/// drainLinkEvents reads every pending rtnetlink message; true if any arrived.
bool drainLinkEvents(int fd);

/// openWakeup creates a non-blocking eventfd; wake() and drainWakeup() use it.
Result<Fd> openWakeup();
/// wake signals an eventfd.
void wake(int fd);
/// drainWakeup clears an eventfd.
void drainWakeup(int fd);

}  // namespace ingot::agent::l2
