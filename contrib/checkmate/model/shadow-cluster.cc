// SPDX-License-Identifier: GPL-2.0-only
#include "shadow-cluster.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-names.h"

#include <cstring>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckmateShadowCluster");
NS_OBJECT_ENSURE_REGISTERED(ShadowCluster);

namespace
{
/// Little helper to write/read plain values into message bytes.
struct Writer
{
    std::vector<uint8_t> b;

    template <typename T>
    void Put(const T& v)
    {
        const auto* p = reinterpret_cast<const uint8_t*>(&v);
        b.insert(b.end(), p, p + sizeof(T));
    }

    void Put(const float* data, size_t n)
    {
        const auto* p = reinterpret_cast<const uint8_t*>(data);
        b.insert(b.end(), p, p + n * sizeof(float));
    }
};

struct Reader
{
    const uint8_t* p;

    template <typename T>
    T Get()
    {
        T v;
        std::memcpy(&v, p, sizeof(T));
        p += sizeof(T);
        return v;
    }

    void Get(float* data, size_t n)
    {
        std::memcpy(data, p, n * sizeof(float));
        p += n * sizeof(float);
    }
};

MessageBytes
Share(std::vector<uint8_t>&& b)
{
    return std::make_shared<const std::vector<uint8_t>>(std::move(b));
}
} // namespace

TypeId
ShadowCluster::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ShadowCluster")
            .SetParent<Object>()
            .SetGroupName("Checkmate")
            .AddConstructor<ShadowCluster>()
            .AddTraceSource("Commit",
                            "Every shard applied an iteration: iteration, time of the commit.",
                            MakeTraceSourceAccessor(&ShadowCluster::m_commitTrace),
                            "ns3::ShadowCluster::CommitTracedCallback");
    return tid;
}

ShadowCluster::ShadowCluster() = default;
ShadowCluster::~ShadowCluster() = default;

void
ShadowCluster::DoDispose()
{
    if (m_transport)
    {
        m_transport->UnregisterChannel(m_channel);
    }
    m_transport = nullptr;
    m_trainer = nullptr;
    m_shadows.clear();
    m_readyCount.clear();
    m_recoveredCb = RecoveredCallback();
    m_received.clear();
    Object::DoDispose();
}

void
ShadowCluster::Install(Ptr<DataParallelTrainer> trainer,
                       Ptr<MessageTransport> transport,
                       const std::vector<uint32_t>& shadows,
                       const ObjectFactory& shadowFactory)
{
    NS_ASSERT_MSG(trainer && transport, "null argument");
    TraceNames::Register(this, "ShadowCluster");
    uint32_t sh = static_cast<uint32_t>(shadows.size());
    uint32_t n = static_cast<uint32_t>(trainer->GetWorkers().size());
    uint64_t p = trainer->GetModel()->GetParameterCount();
    if (sh == 0)
    {
        throw std::invalid_argument("checkmate needs at least one shadow node; give shadows >= 1");
    }
    if (p % n != 0)
    {
        throw std::invalid_argument(
            "the model's " + std::to_string(p) + " parameters do not split into " +
            std::to_string(n) +
            " equal all-reduce chunks (one per worker); choose a model size divisible by the "
            "number of workers");
    }
    if (n % sh != 0)
    {
        throw std::invalid_argument("the " + std::to_string(n) +
                                    " chunks cannot be dealt out "
                                    "evenly to " +
                                    std::to_string(sh) +
                                    " shadows; give a shadow count that divides the workers");
    }
    m_trainer = trainer;
    m_transport = transport;
    m_ranks = shadows;
    Ptr<Cluster> cluster = transport->GetCluster();
    uint64_t shard = p / sh;
    const Eigen::VectorXf& init = trainer->GetParameters(0);
    for (uint32_t s = 0; s < sh; ++s)
    {
        Ptr<ShadowNode> app = shadowFactory.Create<ShadowNode>();
        app->Configure(
            s,
            s * shard,
            init.segment(static_cast<Eigen::Index>(s * shard), static_cast<Eigen::Index>(shard)),
            trainer->GetOptimizerFactory().Create<Optimizer>(),
            n);
        app->SetReadyCallback(MakeCallback(&ShadowCluster::OnReady, this));
        app->SetRepairCallback(MakeCallback(&ShadowCluster::OnRepairNeeded, this));
        cluster->GetRankNode(shadows[s])->AddApplication(app);
        app->SetStartTime(Seconds(0));
        m_shadows.push_back(app);
        m_shardOfRank[shadows[s]] = s;
    }
    m_channel = transport->RegisterChannel(MakeCallback(&ShadowCluster::OnMessage, this));
}

const std::vector<Ptr<ShadowNode>>&
ShadowCluster::GetShadows() const
{
    return m_shadows;
}

const std::vector<uint32_t>&
ShadowCluster::GetShadowRanks() const
{
    return m_ranks;
}

int64_t
ShadowCluster::GetCommittedIteration() const
{
    return m_committed;
}

const std::map<uint32_t, Time>&
ShadowCluster::GetCommitTimes() const
{
    return m_commitTimes;
}

void
ShadowCluster::OnReady(uint32_t shard, uint32_t iteration)
{
    if (shard == 0)
    {
        CoordinatorReady(iteration);
        return;
    }
    Writer w;
    w.Put(iteration);
    MessageBytes data = Share(std::move(w.b));
    m_transport->Send(m_ranks[shard], m_ranks[0], m_channel, READY, data->size(), data);
}

void
ShadowCluster::CoordinatorReady(uint32_t iteration)
{
    if (++m_readyCount[iteration] < m_shadows.size())
    {
        return;
    }
    // Commit in iteration order, whatever order the READY messages came in.
    while (!m_readyCount.empty() && m_readyCount.begin()->first == m_committed + 1 &&
           m_readyCount.begin()->second == m_shadows.size())
    {
        uint32_t t = m_readyCount.begin()->first;
        m_readyCount.erase(m_readyCount.begin());
        Commit(t);
    }
}

void
ShadowCluster::Commit(uint32_t iteration)
{
    m_committed = iteration;
    m_commitTimes[iteration] = Simulator::Now();
    NS_LOG_INFO("commit iteration " << iteration << " at " << Simulator::Now().As(Time::US));
    m_commitTrace(iteration, Simulator::Now());
    m_shadows[0]->Commit(iteration);
    for (uint32_t s = 1; s < m_shadows.size(); ++s)
    {
        Writer w;
        w.Put(iteration);
        MessageBytes data = Share(std::move(w.b));
        m_transport->Send(m_ranks[0], m_ranks[s], m_channel, COMMIT, data->size(), data);
    }
}

void
ShadowCluster::OnRepairNeeded(uint32_t shard, uint32_t iteration, const ShadowNode::Ranges& ranges)
{
    const auto& workers = m_trainer->GetWorkers();
    uint32_t worker = workers[shard % workers.size()];
    Writer w;
    w.Put(iteration);
    w.Put(static_cast<uint32_t>(ranges.size()));
    for (const auto& r : ranges)
    {
        w.Put(r.first);
        w.Put(r.second);
    }
    MessageBytes data = Share(std::move(w.b));
    m_transport->Send(m_ranks[shard], worker, m_channel, REPAIR_REQUEST, data->size(), data);
}

void
ShadowCluster::OnMessage(const Message& msg)
{
    NS_ASSERT_MSG(msg.data, "checkmate control messages carry real bytes");
    Reader r{msg.data->data()};
    switch (msg.tag)
    {
    case READY:
        CoordinatorReady(r.Get<uint32_t>());
        break;
    case COMMIT:
        m_shadows[m_shardOfRank.at(msg.dst)]->Commit(r.Get<uint32_t>());
        break;
    case REPAIR_REQUEST: {
        auto iteration = r.Get<uint32_t>();
        auto count = r.Get<uint32_t>();
        const Eigen::VectorXf* g = m_trainer->GetReducedGradient(iteration);
        if (!g)
        {
            NS_LOG_WARN("worker rank " << msg.dst << " no longer holds iteration " << iteration);
            ++m_unrepairable;
            break;
        }
        const auto* bytes = reinterpret_cast<const uint8_t*>(g->data());
        Writer w;
        w.Put(iteration);
        w.Put(count);
        std::vector<std::pair<uint64_t, uint64_t>> ranges;
        for (uint32_t i = 0; i < count; ++i)
        {
            auto off = r.Get<uint64_t>();
            auto len = r.Get<uint64_t>();
            w.Put(off);
            w.Put(len);
            ranges.emplace_back(off, len);
        }
        for (const auto& rg : ranges)
        {
            w.b.insert(w.b.end(), bytes + rg.first, bytes + rg.first + rg.second);
        }
        MessageBytes data = Share(std::move(w.b));
        m_transport->Send(msg.dst, msg.src, m_channel, REPAIR_DATA, data->size(), data);
        break;
    }
    case REPAIR_DATA: {
        auto iteration = r.Get<uint32_t>();
        auto count = r.Get<uint32_t>();
        std::vector<std::pair<uint64_t, uint64_t>> ranges;
        for (uint32_t i = 0; i < count; ++i)
        {
            auto off = r.Get<uint64_t>();
            auto len = r.Get<uint64_t>();
            ranges.emplace_back(off, len);
        }
        Ptr<ShadowNode> s = m_shadows[m_shardOfRank.at(msg.dst)];
        for (const auto& rg : ranges)
        {
            s->DeliverRepair(iteration, rg.first, r.p, rg.second);
            r.p += rg.second;
        }
        break;
    }
    case STATE: {
        m_received[msg.dst][m_shardOfRank.at(msg.src)] = msg.data;
        if (--m_piecesLeft == 0)
        {
            // Every worker received every shard: rebuild the checkpoint from the
            // bytes the first worker received (all received the same bytes).
            const auto& pieces = m_received.begin()->second;
            Checkpoint cp;
            uint64_t p = m_trainer->GetModel()->GetParameterCount();
            uint64_t shard = p / m_shadows.size();
            cp.params.resize(static_cast<Eigen::Index>(p));
            uint32_t nState = 0;
            for (uint32_t s = 0; s < pieces.size(); ++s)
            {
                Reader rd{pieces[s]->data()};
                cp.iteration = rd.Get<int64_t>();
                cp.step = rd.Get<uint64_t>();
                nState = rd.Get<uint32_t>();
                cp.state.resize(nState, Eigen::VectorXf(static_cast<Eigen::Index>(p)));
                rd.Get(cp.params.data() + s * shard, shard);
                for (uint32_t v = 0; v < nState; ++v)
                {
                    rd.Get(cp.state[v].data() + s * shard, shard);
                }
            }
            m_received.clear();
            RecoveredCallback cb = m_recoveredCb;
            m_recoveredCb = RecoveredCallback();
            cb(cp);
        }
        break;
    }
    default:
        NS_ASSERT_MSG(false, "unknown checkmate message " << msg.tag);
    }
}

bool
ShadowCluster::GetStateAfter(int64_t iteration, Checkpoint& out) const
{
    uint64_t p = m_trainer->GetModel()->GetParameterCount();
    uint64_t shard = p / m_shadows.size();
    out = Checkpoint();
    out.iteration = iteration;
    out.params.resize(static_cast<Eigen::Index>(p));
    for (uint32_t s = 0; s < m_shadows.size(); ++s)
    {
        const ShardState* st = m_shadows[s]->GetState(iteration);
        if (!st)
        {
            return false;
        }
        out.params.segment(static_cast<Eigen::Index>(s * shard), static_cast<Eigen::Index>(shard)) =
            st->params;
        out.step = st->step;
        out.state.resize(st->state.size(), Eigen::VectorXf(static_cast<Eigen::Index>(p)));
        for (size_t v = 0; v < st->state.size(); ++v)
        {
            out.state[v].segment(static_cast<Eigen::Index>(s * shard),
                                 static_cast<Eigen::Index>(shard)) = st->state[v];
        }
    }
    return true;
}

Checkpoint
ShadowCluster::GetCheckpoint() const
{
    Checkpoint cp;
    bool ok = GetStateAfter(m_committed, cp);
    NS_ASSERT_MSG(ok, "committed state missing on a shard");
    return cp;
}

uint64_t
ShadowCluster::GetCheckpointBytes() const
{
    uint64_t p = m_trainer->GetModel()->GetParameterCount();
    uint32_t vectors = 1 + m_trainer->GetOptimizer(0)->GetStateVectors();
    return 4 * p * vectors + m_shadows.size() * (8 + 8 + 4);
}

void
ShadowCluster::StreamCheckpoint(RecoveredCallback cb)
{
    NS_ASSERT_MSG(m_recoveredCb.IsNull(), "a recovery is already streaming");
    m_recoveredCb = cb;
    const auto& workers = m_trainer->GetWorkers();
    m_piecesLeft = static_cast<uint32_t>(workers.size() * m_shadows.size());
    for (uint32_t w : workers)
    {
        m_received[w].assign(m_shadows.size(), nullptr);
    }
    m_readyCount.clear();
    for (uint32_t s = 0; s < m_shadows.size(); ++s)
    {
        m_shadows[s]->RollBackToCommitted();
        const ShardState& st = m_shadows[s]->GetCommitted();
        Writer wr;
        wr.Put(st.iteration);
        wr.Put(st.step);
        wr.Put(static_cast<uint32_t>(st.state.size()));
        wr.Put(st.params.data(), st.params.size());
        for (const auto& v : st.state)
        {
            wr.Put(v.data(), v.size());
        }
        MessageBytes piece = Share(std::move(wr.b));
        for (uint32_t w : workers)
        {
            m_transport->Send(m_ranks[s], w, m_channel, STATE, piece->size(), piece);
        }
    }
}

uint64_t
ShadowCluster::GetRepairRanges() const
{
    uint64_t n = 0;
    for (const auto& s : m_shadows)
    {
        n += s->GetRepairRanges();
    }
    return n;
}

uint64_t
ShadowCluster::GetRepairBytes() const
{
    uint64_t n = 0;
    for (const auto& s : m_shadows)
    {
        n += s->GetRepairBytes();
    }
    return n;
}

uint64_t
ShadowCluster::GetUnrepairable() const
{
    return m_unrepairable;
}

} // namespace ns3
