// SPDX-License-Identifier: GPL-2.0-only
/*
 * FabricOptions: the fabric a scenario asks for, as command-line flags, turned into a
 * FabricRequest and built by the FabricRegistry. Every example that lets its user pick
 * a fabric shares these flags and their validation.
 */
#ifndef MLNET_FABRIC_OPTIONS_H
#define MLNET_FABRIC_OPTIONS_H

#include "ns3/cluster.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-registry.h"
#include "ns3/run-level.h"
#include "ns3/scenario-command-line.h"
#include "ns3/trace-options.h"
#include "ns3/value-parser.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Fabric choice and link parameters, with their command-line flags.
 */
struct FabricOptions
{
    /**
     * Most ranks (GPUs, servers) a flag may ask for: the largest cluster a scenario here
     * models (rail-only's 32k-GPU clusters). Packet level needs about 1.4 MB per rank
     * today (fast path, 1024 ranks), so beyond a few thousand ranks it is memory, not
     * this bound, that stops a run on a 24 GB machine.
     */
    static constexpr uint32_t MAX_RANKS = 32768;

    /**
     * \brief Throw std::invalid_argument unless ranks (the product the flags in `flags`
     * make, e.g. "--domains x --domainSize") is at most MAX_RANKS.
     */
    static void CheckRankCount(const std::string& flags, uint64_t ranks);

    /**
     * \brief Register --loadBalancing (hash | spray | flowlet | adaptive, LoadBalancer)
     * on `cmd`, stored in `value`: a bad value is one error line listing the choices.
     * Scenarios with their own options (railonly-llm) use it too.
     */
    static void AddLoadBalancingFlag(ScenarioCommandLine& cmd, std::string& value);

    std::string fabric{
        "ideal"};           //!< a FabricRegistry name: ideal | fattree | torus | mesh | graph | ...
    uint32_t ranks{0};      //!< ranks; 0 = default (8, or the torus dims' product)
    std::string fabricHelp; //!< help text of --fabric; empty = "fabric: " + registered names
    /// --fabric values the scenario handles itself besides the FabricRegistry names (e.g.
    /// distributed-collective's "railonly"); set before AddToCommandLine
    std::vector<std::string> extraFabrics;
    std::string torusDims{"4x4"}; //!< torus/mesh dimensions, e.g. 4x4x4
    std::string graphFile;        //!< JSON edge list for fabric=graph
    std::string rate{"100Gbps"};  //!< link rate
    std::string delay{"1us"};     //!< link propagation delay
    std::string linkJitter{"0s"}; //!< largest random extra delay of a frame (packet level)
    uint32_t mtu{9000};           //!< device MTU (bytes)
    std::string queue{"1000p"};   //!< switch device queue
    uint32_t tiers{2};            //!< fat-tree tiers
    uint32_t radix{0};            //!< fat-tree radix (0 = smallest that fits)
    double oversubscription{1.0}; //!< fat-tree ToR oversubscription
    uint32_t failLinks{0};        //!< links to fail at random (seeded by --RngRun)
    bool ecn{false};              //!< RED-ECN marking on switches (for DCTCP)
    bool ecnGiven{false};         //!< --ecn was given (dctcp turns marking on unless so)
    bool pfc{false};              //!< priority flow control on fast-path nodes (--pfc)
    bool pfcGiven{false};         //!< --pfc was given (roce turns PFC on unless so)
    /// auto | ipv4 | fast: auto is fast unless something needs IPv4 (DataPathChoice)
    std::string dataPath{"auto"};
    /// hash | spray | flowlet | adaptive (LoadBalancer; other than hash: fast path only)
    std::string loadBalancing{"hash"};
    /// the transport the scenario runs (set it after parsing): decides dataPath=auto
    std::string transport{"udp"};
    /// the level the scenario runs at (set it after parsing): at flow level dataPath=auto
    /// builds no devices where nothing needs them (DataPathChoice::Resolve)
    RunLevel level{RunLevel::PACKET};
    TraceOptions traces; //!< --pcap, --pcapClass, --flowmon (attached by Build)
    // Faults (FaultPlan, doc/faults.md): named and timed failures, convergence delay.
    std::string fail;              //!< --fail: fault list, e.g. tor-agg:0@200us,node:switch2@1ms
    std::string failAt{"0s"};      //!< --failAt: time of the --failLinks failures
    std::string convergence{"0s"}; //!< --convergence: failure to new routes (FaultPlan)

    /// \return the data path these flags resolve to (DataPathChoice, with --ecn and --flowmon)
    std::string ResolvedDataPath() const;

    /// \brief Register the flags (--fabric, --ranks, --torusDims, ..., --pcap, --flowmon).
    void AddToCommandLine(ScenarioCommandLine& cmd);
    /**
     * \brief The request these flags make (FabricRegistry), with every value parsed.
     * Throws std::invalid_argument with a message naming the bad flag.
     */
    FabricRequest Request() const;
    /**
     * \brief Build the fabric, with --failLinks failures and the traces the flags ask
     * for attached. Throws std::invalid_argument with a message naming the bad flag.
     */
    Ptr<Cluster> Build() const;
    /**
     * \brief Build a request (Request(), adjusted by the scenario: another module's
     * fabric, its own sizes), with --failLinks and the traces attached.
     * \param helper if not null, receives the helper that built it
     */
    Ptr<Cluster> Build(const FabricRequest& request,
                       std::shared_ptr<FabricHelper>* helper = nullptr) const;
    /// \return the link classes --failLinks may pick from on this fabric
    std::vector<std::string> FailableLinkClasses() const;
    /// \return true when --fail or --failLinks asks for a failure
    bool HasFaults() const;
    /**
     * \brief Apply --fail, --failLinks, --failAt and --convergence to a built fabric
     * (Build does). Throws std::invalid_argument naming the flag and the bad item.
     * \param fabricName the FabricRegistry name (its failable classes serve random faults)
     */
    void ApplyFaults(Ptr<Cluster> cluster, const std::string& fabricName) const;
    /// \return a short label, e.g. "fattree(r=3)", "torus(4x4)" or "graph(packed)" (file stem)
    std::string Label() const;
};

} // namespace ns3

#endif // MLNET_FABRIC_OPTIONS_H
