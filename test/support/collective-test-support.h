// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the tests that run collectives or the twin share (on top of
 * mlnet-test-support.h): run options and small fabrics made in one line, what a run
 * gave on every link, a transport that only reports a packetization.
 */
#ifndef MLNET_COLLECTIVE_TEST_SUPPORT_H
#define MLNET_COLLECTIVE_TEST_SUPPORT_H

#include "ns3/cluster.h"
#include "ns3/collective-runner.h"
#include "ns3/collective.h"
#include "ns3/fabric-options.h"
#include "ns3/message-transport.h"
#include "ns3/simulator.h"

#include <string>
#include <vector>

namespace mlnettest
{

/// \return run options for one collective: name, algorithm, bytes, real payloads or not
inline ns3::CollectiveRunOptions
Coll(const std::string& collective,
     const std::string& algorithm,
     const std::string& bytes,
     bool real = false)
{
    ns3::CollectiveRunOptions r;
    r.collective = collective;
    r.algorithm = algorithm;
    r.bytes = bytes;
    r.real = real;
    return r;
}

/// \return a scheduled message of a hand-written dependency schedule
inline ns3::ScheduledMessage
Msg(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t chain, uint32_t step, bool reduce = false)
{
    ns3::ScheduledMessage m;
    m.src = src;
    m.dst = dst;
    m.bytes = bytes;
    m.chain = chain;
    m.step = step;
    m.reduce = reduce;
    return m;
}

/// \return an ideal switch of `ranks`
inline ns3::FabricOptions
Ideal(uint32_t ranks)
{
    ns3::FabricOptions f;
    f.fabric = "ideal";
    f.ranks = ranks;
    return f;
}

/// \return a two-tier fat-tree of `ranks`, ToRs oversubscribed by `oversubscription`
inline ns3::FabricOptions
FatTree(uint32_t ranks, double oversubscription = 1.0)
{
    ns3::FabricOptions f;
    f.fabric = "fattree";
    f.ranks = ranks;
    f.tiers = 2;
    f.oversubscription = oversubscription;
    return f;
}

/// \return a torus of `dims`, e.g. "4x4"
inline ns3::FabricOptions
Torus(const std::string& dims)
{
    ns3::FabricOptions f;
    f.fabric = "torus";
    f.torusDims = dims;
    return f;
}

/// What a collective run gave, for comparing two builds of one fabric.
struct RunOutcome
{
    double simulatedS{0};
    std::vector<uint64_t> perLink; //!< wire bytes per link, A->B and B->A interleaved
    uint64_t events{0};
};

/// \brief Run `run` on `cluster` (at run.level), then destroy the simulator.
/// \return its end, the bytes on every link and its events
inline RunOutcome
RunOn(ns3::Ptr<ns3::Cluster> cluster, const ns3::CollectiveRunOptions& run)
{
    ns3::CollectiveRunResult r = ns3::CollectiveRunner::Run(cluster, run);
    RunOutcome o;
    o.simulatedS = r.simulatedS;
    o.events = r.events;
    for (const ns3::ClusterLink& l : cluster->GetLinks())
    {
        o.perLink.push_back(l.bytesAtoB);
        o.perLink.push_back(l.bytesBtoA);
    }
    ns3::Simulator::Destroy();
    return o;
}

/// A transport that sends nothing and only reports a packetization: P = 1000, O = 50
/// (what hand-worked twin cases assume).
class HandTransport : public ns3::MessageTransport
{
public:
    void Install(ns3::Ptr<ns3::Cluster> cluster) override
    {
        m_cluster = cluster;
    }

    void Send(uint32_t, uint32_t, uint32_t, uint32_t, uint64_t, ns3::MessageBytes) override
    {
    }

    uint32_t GetPerPacketOverhead() const override
    {
        return 50;
    }

    uint32_t GetMaxPayload() const override
    {
        return 1000;
    }
};

} // namespace mlnettest

#endif // MLNET_COLLECTIVE_TEST_SUPPORT_H
