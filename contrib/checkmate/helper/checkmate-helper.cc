// SPDX-License-Identifier: GPL-2.0-only
#include "checkmate-helper.h"

#include "ns3/gradient-tag.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckmateHelper");

namespace
{
/// Label one packet of an iteration's ring all-reduce (one ring, one slice per chunk).
void
TagPacket(uint32_t job,
          uint32_t iteration,
          uint32_t members,
          uint64_t chunkBytes,
          const StepwiseCollective::PacketInfo& info,
          Ptr<Packet> packet)
{
    GradientTag tag;
    tag.job = job;
    tag.iteration = iteration;
    tag.bucket = 0;
    tag.ring = info.chain;
    bool gather = info.step >= members - 1;
    tag.phase = gather ? GradientTag::ALL_GATHER : GradientTag::REDUCE_SCATTER;
    tag.step = gather ? info.step - (members - 1) : info.step;
    tag.offset = info.seg.offset * info.unit + info.byteOffset;
    tag.length = info.length;
    tag.chunk = static_cast<uint32_t>(info.seg.offset * info.unit / chunkBytes);
    packet->AddPacketTag(tag);
}
} // namespace

CheckmateHelper::CheckmateHelper()
{
    m_mirrorFactory.SetTypeId(GradientMirror::GetTypeId());
    m_shadowFactory.SetTypeId(ShadowNode::GetTypeId());
}

void
CheckmateHelper::SetMirrorAttribute(const std::string& name, const AttributeValue& value)
{
    m_mirrorFactory.Set(name, value);
}

void
CheckmateHelper::SetShadowAttribute(const std::string& name, const AttributeValue& value)
{
    m_shadowFactory.Set(name, value);
}

void
CheckmateHelper::SetJob(uint32_t job)
{
    m_job = job;
}

Ptr<ShadowCluster>
CheckmateHelper::Install(Ptr<DataParallelTrainer> trainer,
                         Ptr<MessageTransport> transport,
                         const std::vector<uint32_t>& shadows)
{
    Ptr<Cluster> cluster = transport->GetCluster();
    const auto& workers = trainer->GetWorkers();
    std::set<uint32_t> workerSet(workers.begin(), workers.end());
    for (uint32_t s : shadows)
    {
        if (workerSet.count(s) || s >= cluster->GetNRanks())
        {
            throw std::invalid_argument("shadow rank " + std::to_string(s) +
                                        " must be a rank of the cluster that is not a worker");
        }
    }
    Ptr<ShadowCluster> sc = CreateObject<ShadowCluster>();
    sc->Install(trainer, transport, shadows, m_shadowFactory);
    m_mirrorFactory.Set("Job", UintegerValue(m_job));
    m_mirrors.clear();
    for (uint32_t i = 0; i < cluster->GetSwitchNodes().GetN(); ++i)
    {
        Ptr<GradientMirror> m = m_mirrorFactory.Create<GradientMirror>();
        m->Install(cluster->GetSwitchNodes().Get(i), cluster, workers);
        for (uint32_t s = 0; s < shadows.size(); ++s)
        {
            Ptr<ShadowNode> app = sc->GetShadows()[s];
            m->SetShard(app->GetFirstByte(),
                        4 * app->GetShardParameters(),
                        shadows[s],
                        cluster->GetRankAddress(shadows[s]));
        }
        m_mirrors.push_back(m);
    }
    uint32_t job = m_job;
    uint32_t members = static_cast<uint32_t>(workers.size());
    uint64_t chunkBytes = trainer->GetGradientBytes() / members;
    trainer->SetCollectiveHook(DataParallelTrainer::CollectiveHook(
        [job, members, chunkBytes](uint32_t iteration, Ptr<Collective> exchange) {
            Ptr<RingAllReduce> ar = DynamicCast<RingAllReduce>(exchange);
            if (!ar)
            {
                throw std::invalid_argument(
                    "checkmate mirrors the all-gather of a ring all-reduce; this job exchanges "
                    "gradients with " +
                    exchange->GetCollectiveName() + "/" + exchange->GetAlgorithmName());
            }
            ar->SetPacketTagger(MakeCallback(&TagPacket).Bind(job, iteration, members, chunkBytes));
        }));
    return sc;
}

const std::vector<Ptr<GradientMirror>>&
CheckmateHelper::GetMirrors() const
{
    return m_mirrors;
}

uint64_t
CheckmateHelper::GetMirroredBytes() const
{
    uint64_t n = 0;
    for (const auto& m : m_mirrors)
    {
        n += m->GetMirroredBytes();
    }
    return n;
}

} // namespace ns3
