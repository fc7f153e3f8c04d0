// SPDX-License-Identifier: GPL-2.0-only
#include "collective-factory.h"

#include "ns3/direct-all-to-all.h"
#include "ns3/halving-doubling-all-reduce.h"
#include "ns3/hierarchical-all-reduce.h"
#include "ns3/pairwise-all-to-all.h"
#include "ns3/ring-all-gather.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/ring-broadcast.h"
#include "ns3/ring-reduce-scatter.h"
#include "ns3/send-recv.h"
#include "ns3/torus-all-reduce.h"

#include <functional>
#include <stdexcept>

namespace ns3
{

namespace
{

struct Entry
{
    const char* collective;
    const char* algorithm;
    std::function<Ptr<Collective>()> create;
};

const std::vector<Entry>&
Registry()
{
    static const std::vector<Entry> entries{
        {"allreduce", "ring", [] { return CreateObject<RingAllReduce>(); }},
        {"allreduce", "hd", [] { return CreateObject<HalvingDoublingAllReduce>(); }},
        {"allreduce", "torus", [] { return CreateObject<TorusAllReduce>(); }},
        {"allreduce", "hierarchical", [] { return CreateObject<HierarchicalAllReduce>(); }},
        {"allgather", "ring", [] { return CreateObject<RingAllGather>(); }},
        {"reducescatter", "ring", [] { return CreateObject<RingReduceScatter>(); }},
        {"alltoall", "pairwise", [] { return CreateObject<PairwiseAllToAll>(); }},
        {"alltoall", "direct", [] { return CreateObject<DirectAllToAll>(); }},
        {"broadcast", "ring", [] { return CreateObject<RingBroadcast>(); }},
        {"sendrecv", "direct", [] { return CreateObject<SendRecv>(); }},
    };
    return entries;
}

/// The registry's entry for a pair; throws listing the valid choices for an unknown name.
const Entry&
Find(const std::string& collective, const std::string& algorithm)
{
    std::string algorithms;
    std::string collectives;
    std::string last;
    for (const auto& e : Registry())
    {
        if (collective == e.collective)
        {
            if (algorithm == e.algorithm)
            {
                return e;
            }
            algorithms += (algorithms.empty() ? "" : ", ") + std::string(e.algorithm);
        }
        if (last != e.collective) // the registry lists each collective's entries together
        {
            collectives += (collectives.empty() ? "" : ", ") + std::string(e.collective);
            last = e.collective;
        }
    }
    if (algorithms.empty())
    {
        throw std::invalid_argument("unknown collective '" + collective +
                                    "'; valid: " + collectives);
    }
    throw std::invalid_argument("unknown algorithm '" + algorithm + "' for " + collective +
                                "; valid: " + algorithms);
}

} // namespace

void
CollectiveFactory::Check(const std::string& collective, const std::string& algorithm)
{
    Find(collective, algorithm);
}

Ptr<Collective>
CollectiveFactory::Create(const std::string& collective, const std::string& algorithm)
{
    return Find(collective, algorithm).create();
}

std::vector<std::pair<std::string, std::string>>
CollectiveFactory::List()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : Registry())
    {
        out.emplace_back(e.collective, e.algorithm);
    }
    return out;
}

} // namespace ns3
