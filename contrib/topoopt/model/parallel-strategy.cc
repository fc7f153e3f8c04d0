// SPDX-License-Identifier: GPL-2.0-only
#include "parallel-strategy.h"

#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptParallelStrategy");

ParallelStrategy::ParallelStrategy() = default;

ParallelStrategy::ParallelStrategy(uint32_t layers, uint32_t servers)
    : m_servers(servers),
      m_placement(layers, DATA_PARALLEL)
{
    if (servers == 0)
    {
        throw std::invalid_argument("ParallelStrategy: the job needs at least one server");
    }
}

ParallelStrategy
ParallelStrategy::Initial(const ModelProfile& profile, uint32_t servers)
{
    ParallelStrategy s(profile.GetLayers().size(), servers);
    uint32_t k = 0;
    for (uint32_t layer : profile.GetEmbeddingLayers())
    {
        s.m_placement[layer] = static_cast<int32_t>(k++ % servers);
    }
    return s;
}

uint32_t
ParallelStrategy::GetNLayers() const
{
    return m_placement.size();
}

uint32_t
ParallelStrategy::GetNServers() const
{
    return m_servers;
}

int32_t
ParallelStrategy::GetPlacement(uint32_t layer) const
{
    NS_ASSERT(layer < m_placement.size());
    return m_placement[layer];
}

void
ParallelStrategy::SetPlacement(uint32_t layer, int32_t placement)
{
    if (layer >= m_placement.size())
    {
        throw std::invalid_argument("ParallelStrategy: layer " + std::to_string(layer) +
                                    " out of range (the model has " +
                                    std::to_string(m_placement.size()) + " layers)");
    }
    if (placement != DATA_PARALLEL &&
        (placement < 0 || static_cast<uint32_t>(placement) >= m_servers))
    {
        throw std::invalid_argument("ParallelStrategy: server " + std::to_string(placement) +
                                    " out of range (0.." + std::to_string(m_servers - 1) + ")");
    }
    m_placement[layer] = placement;
}

std::vector<bool>
ParallelStrategy::DataParallelMask() const
{
    std::vector<bool> mask;
    for (int32_t p : m_placement)
    {
        mask.push_back(p == DATA_PARALLEL);
    }
    return mask;
}

void
ParallelStrategy::CheckProfile(const ModelProfile& profile) const
{
    if (profile.GetLayers().size() != m_placement.size())
    {
        throw std::invalid_argument("ParallelStrategy: strategy has " +
                                    std::to_string(m_placement.size()) + " layers, model '" +
                                    profile.GetName() + "' has " +
                                    std::to_string(profile.GetLayers().size()));
    }
}

uint64_t
ParallelStrategy::AllReduceBytes(const ModelProfile& profile) const
{
    CheckProfile(profile);
    uint64_t s = 0;
    for (uint32_t i = 0; i < m_placement.size(); ++i)
    {
        if (m_placement[i] == DATA_PARALLEL)
        {
            s += profile.GetLayers()[i].paramBytes;
        }
    }
    return s;
}

Eigen::MatrixXd
ParallelStrategy::ModelParallelDemand(const ModelProfile& profile) const
{
    CheckProfile(profile);
    Eigen::MatrixXd d = Eigen::MatrixXd::Zero(m_servers, m_servers);
    for (uint32_t i = 0; i < m_placement.size(); ++i)
    {
        if (m_placement[i] == DATA_PARALLEL)
        {
            continue;
        }
        double act = profile.GetLayers()[i].activationBytes;
        uint32_t p = m_placement[i];
        for (uint32_t s = 0; s < m_servers; ++s)
        {
            if (s != p)
            {
                d(p, s) += act; // forward: the owner's lookup results
                d(s, p) += act; // backward: the output gradient
            }
        }
    }
    return d;
}

std::vector<Time>
ParallelStrategy::ComputeTimes(const ModelProfile& profile) const
{
    CheckProfile(profile);
    std::vector<Time> t(m_servers, Time(0));
    for (uint32_t i = 0; i < m_placement.size(); ++i)
    {
        const auto& l = profile.GetLayers()[i];
        if (m_placement[i] == DATA_PARALLEL)
        {
            for (auto& x : t)
            {
                x += l.forward + l.backward;
            }
        }
        else
        {
            t[m_placement[i]] += (l.forward + l.backward) * int64_t(m_servers);
        }
    }
    return t;
}

/// The per-rank task chains of the graph being built: each rank's last task, the
/// sends its next compute must also wait for, and the phase of every send.
struct ParallelStrategy::TaskChains
{
    explicit TaskChains(uint32_t n)
        : last(n, -1),
          pending(n)
    {
    }

    /// Records that send `id` belongs to phase `ph` (2i forward, 2i+1 backward of layer i).
    void Note(IterationGraph::TaskId id, int64_t ph)
    {
        phase.resize(id + 1, -1);
        phase[id] = ph;
    }

    /// What rank r's next task waits for (its last task and its pending sends).
    std::vector<IterationGraph::TaskId> DepsOf(uint32_t r)
    {
        std::vector<IterationGraph::TaskId> deps = pending[r];
        if (last[r] >= 0)
        {
            deps.push_back(last[r]);
        }
        pending[r].clear();
        return deps;
    }

    std::vector<int64_t> phase;                               //!< phase of each send (-1: none)
    std::vector<int64_t> last;                                //!< last task of each rank's chain
    std::vector<std::vector<IterationGraph::TaskId>> pending; //!< extra deps of the next compute
};

namespace
{

const std::string kRank = "r"; // task name prefix of a rank's tasks

/// Throws std::invalid_argument unless every ring visits each of the n servers once.
void
CheckRings(const std::vector<std::vector<uint32_t>>& rings, uint32_t n)
{
    if (rings.empty())
    {
        throw std::invalid_argument("ParallelStrategy: the all-reduce needs at least one ring");
    }
    for (const auto& ring : rings)
    {
        std::vector<uint32_t> sorted = ring;
        std::sort(sorted.begin(), sorted.end());
        for (uint32_t k = 0; k < sorted.size(); ++k)
        {
            if (sorted.size() != n || sorted[k] != k)
            {
                throw std::invalid_argument(
                    "ParallelStrategy: a ring order must visit every server once");
            }
        }
    }
}

} // namespace

IterationGraph
ParallelStrategy::BuildGraph(const ModelProfile& profile,
                             const std::vector<std::vector<uint32_t>>& rings,
                             std::vector<int64_t>* sendPhase) const
{
    CheckProfile(profile);
    IterationGraph g;
    TaskChains chains(m_servers);
    AddForward(g, profile, chains);
    std::vector<std::vector<IterationGraph::TaskId>> bwdTask = AddBackward(g, profile, chains);
    AddAllReduces(g, profile, rings, bwdTask);
    if (sendPhase)
    {
        chains.phase.resize(g.GetNTasks(), -1);
        *sendPhase = chains.phase;
    }
    return g;
}

void
ParallelStrategy::AddForward(IterationGraph& g,
                             const ModelProfile& profile,
                             TaskChains& chains) const
{
    const uint32_t n = m_servers;
    const auto& layers = profile.GetLayers();
    std::vector<int64_t>& last = chains.last;
    // Forward.
    for (uint32_t i = 0; i < layers.size(); ++i)
    {
        const auto& l = layers[i];
        if (m_placement[i] == DATA_PARALLEL)
        {
            for (uint32_t r = 0; r < n; ++r)
            {
                last[r] = g.AddCompute(kRank + std::to_string(r) + "/fwd/" + l.name,
                                       r,
                                       l.forward,
                                       chains.DepsOf(r));
            }
            continue;
        }
        uint32_t p = m_placement[i];
        // The lookup needs only the batch: it follows the owner's stream, not the
        // embeddings the owner receives from other tables.
        std::vector<IterationGraph::TaskId> own;
        if (last[p] >= 0)
        {
            own.push_back(last[p]);
        }
        auto c = g.AddCompute(kRank + std::to_string(p) + "/fwd/" + l.name,
                              p,
                              l.forward * int64_t(n),
                              own);
        last[p] = c;
        for (uint32_t s = 0; s < n; ++s)
        {
            if (s == p)
            {
                continue;
            }
            auto id = g.AddSend(l.name + "/fwd/" + std::to_string(p) + "-" + std::to_string(s),
                                p,
                                s,
                                l.activationBytes,
                                {c});
            chains.Note(id, 2 * int64_t(i));
            chains.pending[s].push_back(id);
        }
    }
}

std::vector<std::vector<IterationGraph::TaskId>>
ParallelStrategy::AddBackward(IterationGraph& g,
                              const ModelProfile& profile,
                              TaskChains& chains) const
{
    const uint32_t n = m_servers;
    const auto& layers = profile.GetLayers();
    std::vector<int64_t>& last = chains.last;
    // Last dense task of each rank (its forward end until its first dense backward).
    std::vector<int64_t> lastDense = last;
    std::vector<std::vector<IterationGraph::TaskId>> bwdTask(layers.size());
    for (int64_t i = int64_t(layers.size()) - 1; i >= 0; --i)
    {
        const auto& l = layers[i];
        if (m_placement[i] == DATA_PARALLEL)
        {
            for (uint32_t r = 0; r < n; ++r)
            {
                last[r] = g.AddCompute(kRank + std::to_string(r) + "/bwd/" + l.name,
                                       r,
                                       l.backward,
                                       chains.DepsOf(r));
                lastDense[r] = last[r];
                bwdTask[i].push_back(last[r]);
            }
            continue;
        }
        uint32_t p = m_placement[i];
        std::vector<IterationGraph::TaskId> in;
        for (uint32_t s = 0; s < n; ++s)
        {
            if (s == p)
            {
                continue;
            }
            // The output gradient exists once the sender's dense backward is done; the
            // sender's stream goes on.
            std::vector<IterationGraph::TaskId> deps;
            if (lastDense[s] >= 0)
            {
                deps.push_back(lastDense[s]);
            }
            auto id = g.AddSend(l.name + "/bwd/" + std::to_string(s) + "-" + std::to_string(p),
                                s,
                                p,
                                l.activationBytes,
                                deps);
            chains.Note(id, 2 * int64_t(i) + 1);
            in.push_back(id);
        }
        std::vector<IterationGraph::TaskId> deps = chains.DepsOf(p);
        deps.insert(deps.end(), in.begin(), in.end());
        last[p] = g.AddCompute(kRank + std::to_string(p) + "/bwd/" + l.name,
                               p,
                               l.backward * int64_t(n),
                               deps);
    }
    return bwdTask;
}

void
ParallelStrategy::AddAllReduces(
    IterationGraph& g,
    const ModelProfile& profile,
    const std::vector<std::vector<uint32_t>>& rings,
    const std::vector<std::vector<IterationGraph::TaskId>>& bwdTask) const
{
    const uint32_t n = m_servers;
    const auto& layers = profile.GetLayers();
    // Backward, data-parallel buckets.
    std::vector<uint32_t> dpIndex; // profile layer of each workload layer
    for (uint32_t i = 0; i < layers.size(); ++i)
    {
        if (m_placement[i] == DATA_PARALLEL)
        {
            dpIndex.push_back(i);
        }
    }
    if (n <= 1 || dpIndex.empty())
    {
        return;
    }
    CheckRings(rings, n);
    TrainingWorkload w = profile.ToWorkload(DataParallelMask());
    std::vector<IterationGraph::TaskId> prev;
    for (const auto& bucket : w.GetBuckets())
    {
        if (bucket.bytes == 0)
        {
            continue;
        }
        std::vector<IterationGraph::TaskId> deps = prev;
        for (uint32_t wl : bucket.layers)
        {
            const auto& t = bwdTask[dpIndex[wl]];
            deps.insert(deps.end(), t.begin(), t.end());
        }
        uint64_t share = (bucket.bytes + rings.size() - 1) / rings.size();
        std::vector<IterationGraph::TaskId> now;
        for (uint32_t k = 0; k < rings.size(); ++k)
        {
            now.push_back(g.AddCollective("allreduce/b" + std::to_string(bucket.index) + "/ring" +
                                              std::to_string(k),
                                          "allreduce",
                                          "ring",
                                          rings[k],
                                          std::max<uint64_t>(share, 1),
                                          deps));
        }
        prev = now;
    }
}

nlohmann::json
ParallelStrategy::ToJson(const ModelProfile& profile) const
{
    CheckProfile(profile);
    nlohmann::json j = {{"servers", m_servers}, {"placements", nlohmann::json::array()}};
    for (uint32_t i = 0; i < m_placement.size(); ++i)
    {
        if (m_placement[i] != DATA_PARALLEL)
        {
            j["placements"].push_back(
                {{"layer", profile.GetLayers()[i].name}, {"server", m_placement[i]}});
        }
    }
    return j;
}

ParallelStrategy
ParallelStrategy::FromJson(const nlohmann::json& doc, const ModelProfile& profile)
{
    auto fail = [](const std::string& m) { throw std::invalid_argument("strategy: " + m); };
    if (!doc.is_object() || !doc.contains("servers") || !doc["servers"].is_number_unsigned() ||
        !doc.contains("placements") || !doc["placements"].is_array())
    {
        fail("expected {\"servers\": n, \"placements\": [{\"layer\": name, \"server\": p}]}");
    }
    ParallelStrategy s(profile.GetLayers().size(), doc["servers"].get<uint32_t>());
    for (const auto& p : doc["placements"])
    {
        std::string name = p.value("layer", std::string());
        const auto& layers = profile.GetLayers();
        auto it = std::find_if(layers.begin(), layers.end(), [&](const ProfileLayer& l) {
            return l.name == name;
        });
        if (it == layers.end())
        {
            fail("unknown layer '" + name + "' in model '" + profile.GetName() + "'");
        }
        if (!it->embedding)
        {
            fail("layer '" + name + "' is not embedding-like and cannot be placed");
        }
        if (!p.contains("server") || !p["server"].is_number_integer())
        {
            fail("placement of '" + name + "' needs an integer \"server\"");
        }
        s.SetPlacement(it - layers.begin(), p["server"].get<int32_t>());
    }
    return s;
}

} // namespace ns3
