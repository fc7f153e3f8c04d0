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
/// Label one packet of an iteration's ring all-reduce.
void
TagPacket(uint32_t job,
          uint32_t iteration,
          uint32_t members,
          uint64_t chunkBytes,
          const StepwiseCollective::PacketInfo& info,
          Ptr<Packet> packet)
{
    packet->AddPacketTag(GradientTag::ForRingAllReduce(job, iteration, members, chunkBytes, info));
}

/// The job's exchange as the ring all-reduce Checkmate mirrors; throws for another one.
Ptr<RingAllReduce>
RingExchange(Ptr<Collective> exchange)
{
    Ptr<RingAllReduce> ar = DynamicCast<RingAllReduce>(exchange);
    if (!ar)
    {
        throw std::invalid_argument("checkmate mirrors the all-gather of a ring all-reduce; "
                                    "this job exchanges gradients with " +
                                    exchange->GetCollectiveName() + "/" +
                                    exchange->GetAlgorithmName());
    }
    return ar;
}
} // namespace

CheckmateHelper::CheckmateHelper()
{
    m_mirrorFactory.SetTypeId(GradientMirror::GetTypeId());
    m_fluidMirrorFactory.SetTypeId(FluidGradientMirror::GetTypeId());
    m_shadowFactory.SetTypeId(ShadowNode::GetTypeId());
}

void
CheckmateHelper::SetMirrorAttribute(const std::string& name, const AttributeValue& value)
{
    m_mirrorFactory.Set(name, value);
    m_fluidMirrorFactory.Set(name, value); // the same attributes, the same meaning
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
    Ptr<FluidMessageTransport> fluid = DynamicCast<FluidMessageTransport>(transport);
    Ptr<ShadowCluster> sc = CreateObject<ShadowCluster>();
    sc->Install(trainer, transport, shadows, m_shadowFactory);
    m_mirrors.clear();
    m_fluidMirror = nullptr;
    if (fluid)
    {
        InstallFluid(trainer, fluid, sc, shadows);
        return sc;
    }
    m_mirrorFactory.Set("Job", UintegerValue(m_job));
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
            Ptr<RingAllReduce> ar = RingExchange(exchange);
            ar->SetPacketTagger(MakeCallback(&TagPacket).Bind(job, iteration, members, chunkBytes));
        }));
    return sc;
}

void
CheckmateHelper::InstallFluid(Ptr<DataParallelTrainer> trainer,
                              Ptr<FluidMessageTransport> transport,
                              Ptr<ShadowCluster> sc,
                              const std::vector<uint32_t>& shadows)
{
    m_fluidMirrorFactory.Set("Job", UintegerValue(m_job));
    Ptr<FluidGradientMirror> m = m_fluidMirrorFactory.Create<FluidGradientMirror>();
    m->Install(transport);
    for (uint32_t s = 0; s < shadows.size(); ++s)
    {
        Ptr<ShadowNode> app = sc->GetShadows()[s];
        m->SetShard(app->GetFirstByte(), 4 * app->GetShardParameters(), shadows[s], app);
    }
    m_fluidMirror = m;
    const uint32_t job = m_job;
    const auto& workers = trainer->GetWorkers();
    const uint32_t members = static_cast<uint32_t>(workers.size());
    const uint64_t chunkBytes = trainer->GetGradientBytes() / members;
    trainer->SetCollectiveHook(DataParallelTrainer::CollectiveHook(
        [job, members, chunkBytes, m](uint32_t iteration, Ptr<Collective> exchange) {
            Ptr<RingAllReduce> ar = RingExchange(exchange);
            // The collective outlives its observer: a plain pointer to its ranks.
            const std::vector<uint32_t>* ranks = &ar->GetRanks();
            ar->SetMessageObserver(
                StepwiseCollective::MessageObserver([job, iteration, members, chunkBytes, m, ranks](
                                                        const StepwiseCollective::PacketInfo& info,
                                                        const MessageBytes& data) {
                    m->Mirror(
                        (*ranks)[info.fromMember],
                        GradientTag::ForRingAllReduce(job, iteration, members, chunkBytes, info),
                        data);
                }));
        }));
}

const std::vector<Ptr<GradientMirror>>&
CheckmateHelper::GetMirrors() const
{
    return m_mirrors;
}

Ptr<FluidGradientMirror>
CheckmateHelper::GetFluidMirror() const
{
    return m_fluidMirror;
}

uint64_t
CheckmateHelper::GetMirroredBytes() const
{
    uint64_t n = m_fluidMirror ? m_fluidMirror->GetMirroredBytes() : 0;
    for (const auto& m : m_mirrors)
    {
        n += m->GetMirroredBytes();
    }
    return n;
}

} // namespace ns3
