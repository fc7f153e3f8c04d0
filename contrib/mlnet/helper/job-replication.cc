// SPDX-License-Identifier: GPL-2.0-only
#include "job-replication.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/fluid-message-transport.h"
#include "ns3/local-point-to-point-channel.h"
#include "ns3/log.h"
#include "ns3/route-planner.h"
#include "ns3/training-runner.h"

#include <limits>
#include <sstream>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetJobReplication");

namespace
{

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

/// "link 12 (tor-agg) A->B" for messages: a directed link key as the cluster names it.
std::string
Describe(const Cluster& cluster, uint32_t key)
{
    const ClusterLink& l = cluster.GetLinks()[key / 2];
    std::ostringstream s;
    s << "link " << l.id << " (" << l.linkClass << ", node " << (key % 2 ? l.nodeB : l.nodeA)
      << " -> " << (key % 2 ? l.nodeA : l.nodeB) << ")";
    return s.str();
}

/// Whether this link's channel delays frames by a random extra time (Jitter).
bool
HasJitter(const ClusterLink& l)
{
    Ptr<LocalPointToPointChannel> channel =
        l.devA ? DynamicCast<LocalPointToPointChannel>(l.devA->GetChannel()) : nullptr;
    return channel && channel->GetJitter().IsStrictlyPositive();
}

} // namespace

std::string
JobReplication::Check(Ptr<MessageTransport> transport,
                      const std::vector<std::vector<uint32_t>>& placements)
{
    NS_LOG_FUNCTION(transport << placements.size());
    Ptr<Cluster> cluster = transport->GetCluster();
    NS_ABORT_MSG_IF(!cluster, "JobReplication::Check needs an installed transport");
    if (placements.size() < 2)
    {
        return "there is one job only";
    }
    const uint32_t m = placements.front().size();
    std::vector<uint8_t> taken(cluster->GetNRanks(), 0);
    for (size_t k = 0; k < placements.size(); ++k)
    {
        if (placements[k].size() != m)
        {
            return "job " + std::to_string(k) + " has " + std::to_string(placements[k].size()) +
                   " ranks where job 0 has " + std::to_string(m);
        }
        for (uint32_t r : placements[k])
        {
            if (r >= taken.size() || taken[r]++)
            {
                return "rank " + std::to_string(r) + " of job " + std::to_string(k) +
                       (r >= taken.size() ? " is not a rank of the cluster"
                                          : " belongs to another job too");
            }
        }
    }
    if (!ConvergedReuse::Horizon(cluster).IsZero()) // the last fault during the run
    {
        return "a link fails during the run, and the routes change under the jobs";
    }
    const bool packetLevel = !DynamicCast<FluidMessageTransport>(transport);
    if (packetLevel)
    {
        const std::string loss = ConvergedReuse::Blocker(cluster);
        if (!loss.empty())
        {
            return loss + ": each link draws its own";
        }
        for (const ClusterLink& l : cluster->GetLinks())
        {
            if (HasJitter(l))
            {
                return "link jitter draws each link's delays apart (--linkJitter)";
            }
        }
    }

    std::shared_ptr<const RoutePlanner> planner = RoutePlanner::Shared(cluster);
    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    model->SetCluster(cluster);
    const std::vector<double> capacity = model->GetLinkCapacities();
    const std::vector<double> buffer = model->GetLinkBuffers();
    const auto& links = cluster->GetLinks();
    const bool hashed = cluster->GetFabricSpec().loadBalancing == "hash";
    // The route of one ordered pair: its flow-hash path, or its one path where no flow
    // key decides (empty `why` when it has one).
    std::vector<uint32_t> path;
    std::string why;
    auto route = [&](uint32_t src, uint32_t dst) {
        FlowKey key;
        const bool known = hashed && transport->GetFlowKey(src, dst, key);
        if (!known)
        {
            for (const auto& [link, share] : planner->LinkShares(src, dst))
            {
                if (share < 1.0)
                {
                    why = "ranks " + std::to_string(src) + " and " + std::to_string(dst) +
                          " have several paths and no flow key picks one ahead (" +
                          (hashed ? "the transport chooses its ports at connect time"
                                  : "load balancing " + cluster->GetFabricSpec().loadBalancing) +
                          ")";
                    return false;
                }
            }
            key = FlowKey();
        }
        planner->FlowPath(src, dst, key, path);
        return true;
    };

    // Pair by pair: job 0's route is walked once, then every other job's is mapped onto
    // it. owner[key]: 1 + the job whose routes cross the directed link (0: none);
    // preimage[key]: the link of job 0's it stands for (one, since it has one owner);
    // imageOf[(job, job 0's link)]: that link's image in the job, as many entries as
    // the jobs' links together.
    std::vector<uint32_t> owner(2 * links.size(), 0);
    std::vector<uint32_t> preimage(2 * links.size(), kNone);
    std::unordered_map<uint64_t, uint32_t> imageOf;
    auto shared = [&](uint32_t job, uint32_t key) {
        const uint32_t other = owner[key] - 1;
        return "jobs " + std::to_string(std::min(job, other)) + " and " +
               std::to_string(std::max(job, other)) + " share " + Describe(*cluster, key) +
               "; place the jobs apart or run them whole";
    };
    std::vector<uint32_t> base;
    const std::vector<uint32_t>& p0 = placements.front();
    for (uint32_t i = 0; i < m; ++i)
    {
        for (uint32_t j = 0; j < m; ++j)
        {
            if (i == j)
            {
                continue;
            }
            if (!route(p0[i], p0[j]))
            {
                return why;
            }
            for (uint32_t a : path)
            {
                if (owner[a] > 1)
                {
                    return shared(0, a);
                }
                owner[a] = 1;
            }
            base = path;
            for (uint32_t k = 1; k < placements.size(); ++k)
            {
                const std::vector<uint32_t>& pk = placements[k];
                if (!route(pk[i], pk[j]))
                {
                    return why;
                }
                auto pair = [&] {
                    return "ranks " + std::to_string(pk[i]) + " -> " + std::to_string(pk[j]) +
                           " of job " + std::to_string(k);
                };
                if (path.size() != base.size())
                {
                    return pair() + " cross " + std::to_string(path.size()) +
                           " links where job 0's cross " + std::to_string(base.size());
                }
                for (size_t h = 0; h < path.size(); ++h)
                {
                    const uint32_t a = base[h];
                    const uint32_t b = path[h];
                    if (owner[b] != 0 && owner[b] != k + 1)
                    {
                        return shared(k, b);
                    }
                    owner[b] = k + 1;
                    const auto [image, fresh] =
                        imageOf.try_emplace(static_cast<uint64_t>(k) << 32 | a, b);
                    if (fresh && preimage[b] == kNone)
                    {
                        const ClusterLink& la = links[a / 2];
                        const ClusterLink& lb = links[b / 2];
                        if (la.linkClass != lb.linkClass || capacity[a] != capacity[b] ||
                            cluster->GetLinkDelay(la.id) != cluster->GetLinkDelay(lb.id) ||
                            buffer[a] != buffer[b])
                        {
                            return pair() + " cross " + Describe(*cluster, b) +
                                   ", which differs in class, rate, delay or buffer from " +
                                   "job 0's " + Describe(*cluster, a);
                        }
                        preimage[b] = a;
                    }
                    else if (image->second != b || preimage[b] != a)
                    {
                        return pair() + " cross " + Describe(*cluster, b) +
                               " where job 0's routes are not laid out alike (" +
                               Describe(*cluster, a) + " maps to two links)";
                    }
                }
            }
        }
    }
    return "";
}

} // namespace ns3
