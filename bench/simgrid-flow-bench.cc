// SPDX-License-Identifier: GPL-2.0-only
// The SimGrid side of the flow-level engine decision: how long SimGrid 3.32's max-min fluid
// network model (CM02 with every correction turned off) takes, in wall time and memory, to
// simulate a collective on a leaf-spine fat-tree, and which simulated time it predicts (to
// compare with the alpha-beta formula and with our own solver).
//
// Platform: a 2-tier fat-tree built with simgrid::s4u::create_fatTree_zone: K hosts per leaf,
// N/K leaves, S spines (default S = K), K/S parallel links from each leaf to each spine (full
// bisection), every link 100 Gbps and 1 us. Links are SPLITDUPLEX by default: one directed link
// per direction, each shared max-min by the flows that cross it in that direction (SimGrid's
// SHARED link is one constraint for both directions, i.e. half duplex; --sharing=shared picks it).
// Routing is SimGrid's d-mod-k: a leaf sends to destination d over its uplink d mod K.
//
// Network model: network/model:CM02, latency-factor 1, bandwidth-factor 1, weight-S 0,
// crosstraffic 0 (no 5% reverse flow), TCP-gamma 1e100 (no window bound). A message then costs
// its route's latency (sum of its links' latencies) followed by its bytes at the max-min rate.
// CM02 weights a flow's share by its route latency even with weight-S 0 (rate ~ 1/latency among
// flows that share a bottleneck), so it is pure max-min only among flows of equal route latency.
//
// Workloads (S = --bytes, the buffer of each rank; every message is S/N bytes):
//   ring      ring all-reduce: 2(N-1) steps, rank r sends to r+1;
//   alltoall  pairwise all-to-all: N-1 steps, at step s rank r sends to r+s, receives from r-s.
// A rank starts step s+1 when its step-s message has arrived at its destination and the step-s
// message addressed to it has arrived; a message starts flowing when it is sent. One SimGrid
// actor per rank. --api picks how messages are sent:
//   mailbox  (default) put to the destination rank's mailbox, of which that rank is the permanent
//            receiver (eager: the flow starts at the put); the receive matches the source rank;
//   sendto   one-sided host-to-host comms (Comm::sendto_async), arrivals signalled through a
//            condition variable. SimGrid 3.32 detaches these comms and removes each finished one
//            from a list of all detached comms in flight: O(flows in flight) per message.
//
// Not part of the mlnet build unless SimGrid is found (bench/CMakeLists.txt); links SimGrid only.
// Build it alone (Debian 12: apt-get install libsimgrid-dev), one command line:
//   g++ -O2 -std=c++17 -o simgrid-flow-bench bench/simgrid-flow-bench.cc
//       $(pkg-config --cflags --libs simgrid)
// Run:
//   simgrid-flow-bench --workload=ring|alltoall --ranks=N --bytes=B [--hostsPerLeaf=K]
//                      [--spines=S] [--sharing=splitduplex|shared] [--api=mailbox|sendto]
//                      [--cfg=name:value ...]
// B takes a KiB/MiB/GiB suffix. --help, --help-cfg, --help-models: SimGrid's. K defaults to 16 up
// to 256 ranks, 32 above. --cfg options go to SimGrid after the defaults above (so they override
// them). Prints one line:
//   workload ranks bytes message_bytes hostsPerLeaf spines sharing api model sim_s alpha_beta_s
//   wall_s setup_s run_s cpu_s peak_rss_mb
// (wall_s = setup_s, building the platform and actors, + run_s, Engine::run; cpu_s the user +
// system CPU time of the same interval, which a loaded machine stretches less than wall_s)
// alpha_beta_s = steps * (message * 8 / 100 Gbps + hops * 1 us), hops the longest route (2 links
// within one leaf, 4 across leaves). Peak RSS is the process's (getrusage): one run per process.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <set>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <vector>
#include <xbt/config.hpp>

namespace sg4 = simgrid::s4u;

namespace
{

constexpr double kLinkBitsPerSecond = 100e9;
constexpr double kLinkLatencyS = 1e-6;

struct Options
{
    std::string workload;
    uint32_t ranks{0};
    uint64_t bytes{0};
    uint32_t hostsPerLeaf{0}; //!< 0: the default for the rank count
    uint32_t spines{0};       //!< 0: as many spines as hosts per leaf
    std::string sharing{"splitduplex"};
    std::string api{"mailbox"};
    bool simgridHelp{false}; //!< --help*, --version: SimGrid's Engine answers and exits
};

/// One rank: its host, its mailbox, and (--api=sendto) the step numbers of messages that
/// arrived for it and that it has not consumed yet.
struct Rank
{
    sg4::Host* host{nullptr};
    sg4::Mailbox* mailbox{nullptr};
    sg4::ConditionVariablePtr arrivedCv;
    std::set<uint32_t> arrived;
};

struct Bench
{
    bool ring{true};
    uint32_t steps{0};
    uint64_t messageBytes{0};
    std::vector<Rank> ranks;
    sg4::MutexPtr mutex;
};

uint64_t
ParseUnsigned(const std::string& name, const std::string& text)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
        text.size() > 19)
    {
        throw std::invalid_argument("--" + name + "=" + text + " is not an unsigned integer");
    }
    return std::stoull(text);
}

uint32_t
ParseCount(const std::string& name, const std::string& text)
{
    const uint64_t value = ParseUnsigned(name, text);
    if (value > (1U << 20))
    {
        throw std::invalid_argument("--" + name + "=" + text + " is too large");
    }
    return static_cast<uint32_t>(value);
}

uint64_t
ParseBytes(const std::string& text)
{
    uint64_t scale = 1;
    std::string digits = text;
    const std::vector<std::pair<std::string, uint64_t>> suffixes = {{"KiB", 1ULL << 10},
                                                                    {"MiB", 1ULL << 20},
                                                                    {"GiB", 1ULL << 30}};
    for (const auto& [suffix, factor] : suffixes)
    {
        if (digits.size() > suffix.size() &&
            digits.compare(digits.size() - suffix.size(), suffix.size(), suffix) == 0)
        {
            digits.resize(digits.size() - suffix.size());
            scale = factor;
            break;
        }
    }
    const uint64_t value = ParseUnsigned("bytes", digits);
    if (value > UINT64_MAX / scale)
    {
        throw std::invalid_argument("--bytes=" + text + " is too large");
    }
    return value * scale;
}

/// Parses the command line but SimGrid's --cfg= and --log= options (left to the Engine).
Options
ParseOptions(int argc, char* argv[])
{
    Options o;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg.rfind("--cfg=", 0) == 0 || arg.rfind("--log=", 0) == 0)
        {
            continue;
        }
        if (arg.rfind("--help", 0) == 0 || arg == "--version")
        {
            o.simgridHelp = true; // SimGrid prints it and exits
            return o;
        }
        const size_t eq = arg.find('=');
        if (arg.rfind("--", 0) != 0 || eq == std::string::npos)
        {
            throw std::invalid_argument("unexpected argument '" + arg + "'");
        }
        const std::string name = arg.substr(2, eq - 2);
        const std::string value = arg.substr(eq + 1);
        if (name == "workload")
        {
            o.workload = value;
        }
        else if (name == "ranks")
        {
            o.ranks = ParseCount(name, value);
        }
        else if (name == "bytes")
        {
            o.bytes = ParseBytes(value);
        }
        else if (name == "hostsPerLeaf")
        {
            o.hostsPerLeaf = ParseCount(name, value);
        }
        else if (name == "spines")
        {
            o.spines = ParseCount(name, value);
        }
        else if (name == "sharing")
        {
            o.sharing = value;
        }
        else if (name == "api")
        {
            o.api = value;
        }
        else
        {
            throw std::invalid_argument("unknown option --" + name);
        }
    }
    if (o.workload != "ring" && o.workload != "alltoall")
    {
        throw std::invalid_argument("--workload must be ring or alltoall");
    }
    if (o.ranks < 2)
    {
        throw std::invalid_argument("--ranks must be at least 2");
    }
    if (o.bytes < o.ranks)
    {
        throw std::invalid_argument("--bytes must be at least --ranks (a message is bytes/ranks)");
    }
    if (o.hostsPerLeaf == 0)
    {
        o.hostsPerLeaf = o.ranks <= 256 ? 16 : 32;
        if (o.ranks < o.hostsPerLeaf)
        {
            o.hostsPerLeaf = o.ranks;
        }
    }
    if (o.ranks % o.hostsPerLeaf != 0)
    {
        throw std::invalid_argument("--ranks must be a multiple of --hostsPerLeaf");
    }
    if (o.spines == 0)
    {
        o.spines = o.hostsPerLeaf;
    }
    if (o.hostsPerLeaf % o.spines != 0)
    {
        throw std::invalid_argument("--hostsPerLeaf must be a multiple of --spines");
    }
    if (o.sharing != "splitduplex" && o.sharing != "shared")
    {
        throw std::invalid_argument("--sharing must be splitduplex or shared");
    }
    if (o.api != "mailbox" && o.api != "sendto")
    {
        throw std::invalid_argument("--api must be mailbox or sendto");
    }
    return o;
}

double
PeakRssMb()
{
    struct rusage u
    {
    };

    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0; // Linux: KiB
}

/// User plus system CPU seconds of this process (what a loaded machine stretches less).
double
CpuSeconds()
{
    struct rusage u
    {
    };

    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double
WallSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The leaf-spine fat-tree: hosts "rank-<i>", rank i at position i under leaf i / K.
std::vector<sg4::Host*>
BuildFatTree(const Options& o)
{
    std::vector<sg4::Host*> hosts(o.ranks, nullptr);
    auto createHost = [&hosts](sg4::NetZone* zone,
                               const std::vector<unsigned long>& /* coord */,
                               unsigned long id) {
        sg4::Host* host = zone->create_host("rank-" + std::to_string(id), 1e9)->seal();
        hosts.at(id) = host;
        return std::make_pair(host->get_netpoint(),
                              static_cast<simgrid::kernel::routing::NetPoint*>(nullptr));
    };
    const uint32_t leaves = o.ranks / o.hostsPerLeaf;
    const sg4::FatTreeParams params(2,
                                    {o.hostsPerLeaf, leaves},
                                    {1, o.spines},
                                    {1, o.hostsPerLeaf / o.spines});
    const auto policy = o.sharing == "shared" ? sg4::Link::SharingPolicy::SHARED
                                              : sg4::Link::SharingPolicy::SPLITDUPLEX;
    sg4::NetZone* zone = sg4::create_fatTree_zone("fabric",
                                                  nullptr,
                                                  params,
                                                  sg4::ClusterCallbacks(createHost),
                                                  kLinkBitsPerSecond / 8,
                                                  kLinkLatencyS,
                                                  policy);
    zone->seal();
    return hosts;
}

/// A message's tag: its source rank, as the pointer a mailbox matches receives on.
void*
SourceTag(uint32_t rank)
{
    return reinterpret_cast<void*>(static_cast<uintptr_t>(rank) + 1);
}

/// One rank's schedule on mailboxes (--api=mailbox). Every rank is its mailbox's permanent
/// receiver, so a message starts flowing when it is put; the receive matches on the source
/// rank (Comm::recv with a match function: s4u's get() only takes the oldest message).
void
MailboxRankActor(Bench& b, uint32_t r)
{
    const auto n = static_cast<uint32_t>(b.ranks.size());
    sg4::Actor* self = sg4::Actor::self();
    const auto sameSource = [](void* wanted, void* sent, simgrid::kernel::activity::CommImpl*) {
        return wanted == sent;
    };
    for (uint32_t s = 0; s < b.steps; ++s)
    {
        const uint32_t shift = b.ring ? 1 : s + 1;
        const uint32_t dst = (r + shift) % n;
        const uint32_t src = (r + n - shift) % n;
        sg4::CommPtr send = b.ranks[dst].mailbox->put_init(SourceTag(r), b.messageBytes);
        send->set_data(SourceTag(r)); // what the receiver's match function sees
        send->start();
        sg4::Comm::recv(self->get_impl(),
                        b.ranks[r].mailbox,
                        nullptr,
                        nullptr,
                        sameSource,
                        nullptr,
                        SourceTag(src),
                        -1.0,
                        -1.0);
        send->wait();
    }
}

/// One rank's schedule on one-sided host-to-host comms (--api=sendto): send, wait until the
/// message has arrived, record its arrival at the destination, then wait for this step's
/// incoming message.
void
SendtoRankActor(Bench& b, uint32_t r)
{
    const auto n = static_cast<uint32_t>(b.ranks.size());
    for (uint32_t s = 0; s < b.steps; ++s)
    {
        const uint32_t shift = b.ring ? 1 : s + 1;
        const uint32_t dst = (r + shift) % n;
        sg4::Comm::sendto_async(b.ranks[r].host, b.ranks[dst].host, b.messageBytes)->wait();
        std::unique_lock<sg4::Mutex> lock(*b.mutex);
        b.ranks[dst].arrived.insert(s);
        b.ranks[dst].arrivedCv->notify_all();
        Rank& me = b.ranks[r];
        while (me.arrived.count(s) == 0)
        {
            me.arrivedCv->wait(lock);
        }
        me.arrived.erase(s);
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = CpuSeconds();
    Options o;
    try
    {
        o = ParseOptions(argc, argv);
    }
    catch (const std::exception& ex)
    {
        std::fprintf(stderr, "error: %s\n", ex.what());
        return 1;
    }

    // The model's configuration goes first so that the user's --cfg options override it; the
    // configuration changes are not logged (the output line names the model).
    std::vector<std::string> defaults = {"--log=xbt_cfg.thres:warning",
                                         "--cfg=network/model:CM02",
                                         "--cfg=network/latency-factor:1",
                                         "--cfg=network/bandwidth-factor:1",
                                         "--cfg=network/weight-S:0",
                                         "--cfg=network/crosstraffic:0",
                                         "--cfg=network/TCP-gamma:1e100"};
    std::vector<char*> args = {argv[0]};
    for (auto& d : defaults)
    {
        args.push_back(d.data());
    }
    for (int i = 1; i < argc; ++i)
    {
        args.push_back(argv[i]);
    }
    int nArgs = static_cast<int>(args.size());
    args.push_back(nullptr);
    sg4::Engine e(&nArgs, args.data());
    if (o.simgridHelp)
    {
        return 0;
    }

    Bench b;
    b.ring = o.workload == "ring";
    b.steps = b.ring ? 2 * (o.ranks - 1) : o.ranks - 1;
    b.messageBytes = o.bytes / o.ranks;
    b.mutex = sg4::Mutex::create();
    std::vector<sg4::Host*> hosts = BuildFatTree(o);
    b.ranks.resize(o.ranks);
    for (uint32_t r = 0; r < o.ranks; ++r)
    {
        Rank& rank = b.ranks[r];
        rank.host = hosts[r];
        const std::string name = "rank-" + std::to_string(r);
        if (o.api == "mailbox")
        {
            sg4::ActorPtr actor =
                sg4::Actor::create(name, rank.host, [&b, r]() { MailboxRankActor(b, r); });
            rank.mailbox = sg4::Mailbox::by_name(name);
            rank.mailbox->set_receiver(actor);
        }
        else
        {
            rank.arrivedCv = sg4::ConditionVariable::create();
            sg4::Actor::create(name, rank.host, [&b, r]() { SendtoRankActor(b, r); });
        }
    }
    const double setupS = WallSince(t0);

    const auto t1 = std::chrono::steady_clock::now();
    e.run();
    const double runS = WallSince(t1);
    const double wallS = WallSince(t0);

    const uint32_t hops = o.ranks > o.hostsPerLeaf ? 4 : 2;
    const double alphaBetaS =
        b.steps * (b.messageBytes * 8.0 / kLinkBitsPerSecond + hops * kLinkLatencyS);
    std::printf("workload=%s ranks=%u bytes=%llu message_bytes=%llu hostsPerLeaf=%u spines=%u "
                "sharing=%s api=%s model=%s sim_s=%.9g alpha_beta_s=%.9g wall_s=%.3f setup_s=%.3f "
                "run_s=%.3f cpu_s=%.3f peak_rss_mb=%.1f\n",
                o.workload.c_str(),
                o.ranks,
                static_cast<unsigned long long>(o.bytes),
                static_cast<unsigned long long>(b.messageBytes),
                o.hostsPerLeaf,
                o.spines,
                o.sharing.c_str(),
                o.api.c_str(),
                simgrid::config::get_value<std::string>("network/model").c_str(),
                sg4::Engine::get_clock(),
                alphaBetaS,
                wallS,
                setupS,
                runS,
                CpuSeconds() - cpu0,
                PeakRssMb());
    return 0;
}
