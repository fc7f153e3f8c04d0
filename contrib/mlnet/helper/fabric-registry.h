// SPDX-License-Identifier: GPL-2.0-only
/*
 * FabricRegistry: every fabric of the suite, built by name from one typed request.
 *
 * A fabric is registered once, beside its helper, by the module that owns it (mlnet:
 * ideal, fattree, torus, mesh, graph; topoopt: topoopt, expander; railonly: rail-only,
 * rail-optimized, nvlink-fattree). Its builder turns a FabricRequest into a configured
 * FabricHelper; the registry then applies what every fabric shares (link rate and
 * delay, MTU, switch queue, ECN, data path, MPI partitions) and installs it. A
 * scenario, a runner or an example asks for a fabric by name and never names a helper
 * class, so a fabric added to any module is available to every scenario that links
 * that module.
 *
 * Registration happens when a module's library is loaded (a static FabricRegistration
 * in the helper's .cc file), so the names on offer are those of the modules the
 * program links.
 */
#ifndef MLNET_FABRIC_REGISTRY_H
#define MLNET_FABRIC_REGISTRY_H

#include "ns3/cluster.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-helper.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief What a scenario asks of a fabric: its name and every parameter a registered
 * fabric reads. Fields a fabric does not use are ignored by it.
 */
struct FabricRequest
{
    std::string fabric; //!< registered name (FabricRegistry::Names)
    uint32_t ranks{8};  //!< ranks (GPUs or servers); torus/mesh: 0 = product of dims

    // Every fabric (FabricHelper)
    DataRate linkRate{"100Gbps"};    //!< rate of every network link (rail fabrics: NIC rate)
    Time linkDelay{MicroSeconds(1)}; //!< propagation delay of every network link
    Time linkJitter{0}; //!< largest random extra delay of a frame (FabricHelper::SetLinkJitter)
    uint32_t mtu{9000}; //!< device MTU (bytes)
    QueueSize queue{"1000p"};     //!< switch device queue
    bool ecn{false};              //!< RED-ECN marking on switch devices (for DCTCP)
    std::string dataPath{"ipv4"}; //!< ipv4 | fast (FabricHelper::SetDataPath)
    bool pfc{false}; //!< priority flow control (fast path; recorded without devices; SetPfc)
    /// hash | spray | flowlet | adaptive (FabricHelper::SetLoadBalancing; fast path only)
    std::string loadBalancing{"hash"};
    uint32_t partitions{1}; //!< MPI processes the nodes are split over

    // Clos (fattree)
    uint32_t tiers{2};            //!< switch tiers (2 or 3)
    uint32_t radix{0};            //!< switch radix; 0 = the fabric's default
    double oversubscription{1.0}; //!< ToR downlink / uplink capacity ratio

    // Torus / mesh
    std::vector<uint32_t> dims; //!< k per dimension

    // Graph
    std::string graphFile; //!< JSON edge list (GraphFabricHelper)

    // HB (NVLink) domains and rails (railonly)
    uint32_t domainSize{0};        //!< GPUs per HB domain (= rails); must divide ranks
    DataRate hbRate{"3600Gbps"};   //!< NVLink rate per GPU, one direction
    Time hbDelay{NanoSeconds(25)}; //!< GPU-NVSwitch link delay
    std::string crossRailPolicy;   //!< source | destination | network ("" = fabric default)

    // Direct-connect planes (topoopt)
    uint32_t degree{0}; //!< ports (planes) per server
    std::any plan;      //!< the circuits (topoopt: a TopologyPlan)
    std::map<std::string, std::string> opticalAttributes; //!< OpticalCircuitSwitch attributes
    Time forwardingLatency{0};                            //!< host forwarding cost per hop
    uint32_t portsPerServer{0};                           //!< NIC ports used (0 = degree)
    int64_t stream{10};                                   //!< first RNG stream of a random plan
};

/**
 * \brief The fabrics on offer, and the one place where a fabric is built by name.
 */
class FabricRegistry
{
public:
    /// Turns a request into a configured, not yet installed, helper of one fabric.
    using Builder = std::function<std::shared_ptr<FabricHelper>(const FabricRequest&)>;

    /**
     * \brief Add a fabric (normally through a static FabricRegistration).
     * \param name the name scenarios ask for
     * \param description one line for help texts
     * \param failable link classes that random failures (FabricHelper::FailRandomLinks)
     *        may pick from
     * \param builder makes the fabric's helper from a request
     * A second registration of the same name is a programming error.
     */
    static void Register(const std::string& name,
                         const std::string& description,
                         const std::vector<std::string>& failable,
                         Builder builder);

    /// \return true if a fabric of this name is registered
    static bool Has(const std::string& name);
    /// \return the registered names, sorted
    static std::vector<std::string> Names();
    /// \return "a, b, c": the registered names, for messages
    static std::string NameList();
    /// \return the description of a registered fabric (throws for unknown names)
    static std::string Describe(const std::string& name);
    /// \return the link classes random failures may pick on this fabric
    static std::vector<std::string> FailableLinkClasses(const std::string& name);

    /**
     * \brief Build the fabric a request names.
     * \param request the fabric and its parameters
     * \param helper if not null, receives the helper that built it (for fabric-specific
     *        queries such as a rail fabric's rail of a switch)
     * \return the cluster, addressed and routed
     * Throws std::invalid_argument for an unknown name (listing the registered ones) or
     * a request the fabric cannot build.
     */
    static Ptr<Cluster> Build(const FabricRequest& request,
                              std::shared_ptr<FabricHelper>* helper = nullptr);
};

/**
 * \brief Registers a fabric when the library holding it is loaded:
 * `static FabricRegistration g_ideal("ideal", "...", {}, [](const FabricRequest& r) {...});`
 */
struct FabricRegistration
{
    /// \brief Calls FabricRegistry::Register with the same arguments.
    FabricRegistration(const std::string& name,
                       const std::string& description,
                       const std::vector<std::string>& failable,
                       FabricRegistry::Builder builder);
};

} // namespace ns3

#endif // MLNET_FABRIC_REGISTRY_H
