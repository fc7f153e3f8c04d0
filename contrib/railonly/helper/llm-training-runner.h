// SPDX-License-Identifier: GPL-2.0-only
/*
 * LlmTrainingRunner: the railonly-llm scenario's logic. Builds a rail fabric
 * (rail-only, rail-optimized or the NVLink fat-tree) on the fast data path or the IPv4
 * one (LlmRunOptions::ResolveDataPath; same results), optionally fails a rail switch
 * or a NIC, runs an LlmWorkload's iterations at packet level with mlnet's
 * TrainingDriver, and puts beside every result the closed-form LlmIterationModel and
 * the alpha-beta twin (the same iteration graph timed by IterationGraph::Estimate with
 * every collective and send predicted by AlphaBetaModel on the same routes). With
 * MoE it also measures one MoE all-to-all alone on the idle fabric (two-phase on
 * rail-only, flat on the others), the number behind the forwarding overhead.
 */
#ifndef RAILONLY_LLM_TRAINING_RUNNER_H
#define RAILONLY_LLM_TRAINING_RUNNER_H

#include "ns3/cluster.h"
#include "ns3/data-rate.h"
#include "ns3/llm-iteration-model.h"
#include "ns3/llm-workload.h"
#include "ns3/rail-fabric-helper.h"
#include "ns3/run-health.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/trace-options.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Everything railonly-llm lets a user choose.
 */
struct LlmRunOptions
{
    uint32_t domains{8};             //!< HB domains D
    uint32_t domainSize{8};          //!< GPUs per HB domain K (= rails)
    uint32_t radix{64};              //!< switch radix (ports)
    DataRate hbRate{"3600Gbps"};     //!< NVLink per GPU, one direction
    DataRate nicRate{"400Gbps"};     //!< NIC / rail link rate
    Time hbDelay{NanoSeconds(25)};   //!< GPU-NVSwitch link delay
    Time nicDelay{NanoSeconds(500)}; //!< rail link delay
    std::string policy; //!< cross-rail policy: source | destination | network ("" = helper default)
    std::string moeAllToAll{
        "auto"}; //!< auto (two-phase on rail-only, flat elsewhere) | hierarchical | flat
    int32_t failRailSwitch{-1}; //!< rail whose switches fail (-1: none)
    int32_t failNic{-1};        //!< GPU whose NIC fails (-1: none)
    TraceOptions traces;        //!< --pcap, --pcapClass, --flowmon
    bool replicateRails{false}; //!< one rail's traffic stands for all (LlmWorkload::ReplicateRails)
    bool replicateReplicas{false}; //!< DP replica 0's pipeline stands for all (ReplicateReplicas)
    uint32_t iterations{1};        //!< iterations to simulate
    std::string transport{"roce"}; //!< roce | udp | tcp | dctcp (TransportChoice)
    RunLevel level{RunLevel::PACKET};  //!< packet, or flow (FluidMessageTransport)
    std::string dataPath{"auto"};      //!< auto | ipv4 | fast (FabricHelper::SetDataPath)
    std::string loadBalancing{"hash"}; //!< hash | spray | flowlet | adaptive (LoadBalancer)
    LlmModelConfig model;              //!< the GPT model and its TP/PP/DP

    /**
     * \brief Throw std::invalid_argument naming the flags unless the parallel degrees fit
     * the fabric (--tp divides --domainSize; --tp x --pp x --dp = --domains x --domainSize),
     * --failRailSwitch / --failNic name a rail / a GPU that exists, --dataPath is
     * auto, ipv4 or fast, fast only with the udp transport and without --flowmon, and
     * --replicateRails comes with --tp = --domainSize, no failure and no flat MoE
     * all-to-all (the rails must carry the same traffic).
     */
    void Validate() const;
    /**
     * \return the data path the fabrics are built on: "fast" or "ipv4". auto is fast
     * when the transport is udp and no IPv4-only trace (FlowMonitor) is asked for (pcap
     * works on both), ipv4 otherwise (TCP and DCTCP need the Internet stack). Both give
     * the same times and link bytes (contrib/railonly/doc/railonly.md, "Data paths").
     */
    std::string ResolveDataPath() const;
};

/**
 * \brief What one (fabric, failure) case measured.
 */
struct LlmRunResult
{
    std::string fabric;                               //!< rail-only | rail-optimized | fat-tree
    std::string failure{"none"};                      //!< what was failed
    std::vector<IterationRecord> iterations;          //!< packet-level iterations
    double twinIterationS{0};                         //!< alpha-beta twin of the graph (s)
    LlmIterationEstimate analytical;                  //!< closed form
    std::map<std::string, uint64_t> bytesByLinkClass; //!< wire bytes of the iterations
    double moeAllToAllS{0};                           //!< one MoE all-to-all alone (s), 0 if dense
    uint32_t failedLinks{0};                          //!< links failed
    uint32_t tasks{0};                                //!< tasks of the iteration graph
    uint32_t railReplicas{1};  //!< rails one simulated rail stands for (1: every rail simulated)
    bool oneSwitchRails{true}; //!< one switch per rail: a simulated rail or DP replica stands
                               //!< exactly for the others
    uint32_t dpReplicas{1};    //!< DP replicas one simulated pipeline stands for (1: all simulated)
    std::string dataPath;      //!< ipv4 | fast | none: the path it ran on
    std::vector<uint64_t>
        linkBytes;    //!< wire bytes per link (id order), A->B then B->A, as simulated
    RunHealth health; //!< the packet run's health (RunHealth::Measure)

    /// \return mean packet-level iteration time (s)
    double IterationS() const;
    /// \return the JSON row (fabric, iteration_s, analytical_iteration_s, bytes_by_link_class, ...)
    nlohmann::json Row() const;
};

/**
 * \brief Runs the railonly-llm cases (see the file comment).
 */
class LlmTrainingRunner
{
public:
    /// \return the fabrics named by a --fabric value (rail-only, rail-optimized, fat-tree, all)
    static std::vector<std::string> ParseFabrics(const std::string& choice);
    /**
     * \brief Build one fabric of the options (throws std::invalid_argument for bad sizes).
     * \param fabric rail-only | rail-optimized | fat-tree
     * \param helper receives the helper (for rail queries); may be null
     */
    static Ptr<Cluster> BuildFabric(const LlmRunOptions& options,
                                    const std::string& fabric,
                                    std::shared_ptr<RailFabricHelper>* helper = nullptr);
    /**
     * \brief Throw std::invalid_argument naming --replicateRails when it is asked for on a
     * fabric without rails (the fat-tree), and --replicateReplicas on one other than
     * rail-only (rail-optimized replicas share leaf-to-spine links).
     */
    static void CheckReplicable(const LlmRunOptions& options, const std::string& fabric);
    /**
     * \brief Fail the switches of one rail (every link touching them).
     * \return the number of links failed (throws when the fabric has no such rail)
     */
    static uint32_t FailRail(Ptr<Cluster> cluster, const RailFabricHelper& helper, uint32_t rail);
    /// \brief Fail the NIC link(s) of one GPU; \return the number of links failed
    static uint32_t FailNic(Ptr<Cluster> cluster, uint32_t rank);
    /**
     * \brief Run one case to completion (the caller destroys the simulator).
     * \param failed whether to apply the options' failures
     */
    static LlmRunResult Run(const LlmRunOptions& options, const std::string& fabric, bool failed);
    /**
     * \brief Run every fabric of `fabrics` (healthy, and failed when the options ask;
     * the fat-tree has no rails, so a rail failure skips its failed case),
     * add one row per case to the report (with slowdown vs healthy and ratios vs
     * rail-optimized), closing and destroying each simulation.
     */
    static void RunAll(const LlmRunOptions& options,
                       const std::vector<std::string>& fabrics,
                       RunReport& report);
};

} // namespace ns3

#endif // RAILONLY_LLM_TRAINING_RUNNER_H
