// SPDX-License-Identifier: GPL-2.0-only
#include "llm-iteration-model.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailonlyLlmIterationModel");
NS_OBJECT_ENSURE_REGISTERED(LlmIterationModel);

nlohmann::json
LlmIterationEstimate::ToJson() const
{
    return {{"compute_s", computeS},
            {"pipeline_s", pipelineS},
            {"bubble_s", bubbleS},
            {"tp_s", tpS},
            {"pp_s", ppS},
            {"dp_s", dpS},
            {"moe_s", moeS},
            {"moe_alltoall_s", moeAllToAllS},
            {"moe_flat_alltoall_s", moeFlatAllToAllS},
            {"moe_overhead", moeOverhead},
            {"moe_overhead_formula", moeOverheadFormula},
            {"total_s", totalS}};
}

TypeId
LlmIterationModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LlmIterationModel")
            .SetParent<Object>()
            .SetGroupName("Railonly")
            .AddConstructor<LlmIterationModel>()
            .AddAttribute("HbRate",
                          "NVLink rate per GPU, one direction (bit/s)",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&LlmIterationModel::m_hbRate),
                          MakeDataRateChecker())
            .AddAttribute("NicRate",
                          "NIC (rail link) rate (bit/s)",
                          DataRateValue(DataRate("400Gbps")),
                          MakeDataRateAccessor(&LlmIterationModel::m_nicRate),
                          MakeDataRateChecker())
            .AddAttribute("HbDelay",
                          "propagation delay of one GPU-NVSwitch link (s)",
                          TimeValue(NanoSeconds(25)),
                          MakeTimeAccessor(&LlmIterationModel::m_hbDelay),
                          MakeTimeChecker())
            .AddAttribute("NicDelay",
                          "propagation delay of one rail link (s)",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&LlmIterationModel::m_nicDelay),
                          MakeTimeChecker())
            .AddAttribute("NicHops",
                          "hops between two GPUs of one rail (2: one rail switch, 4: 2-tier)",
                          UintegerValue(2),
                          MakeUintegerAccessor(&LlmIterationModel::m_nicHops),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("HbBidirectional",
                          "count B_h as both NVLink directions (2 x HbRate), as the paper's "
                          "earlier version did, instead of one direction (bool)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&LlmIterationModel::m_hbBidirectional),
                          MakeBooleanChecker())
            .AddTraceSource("Estimated",
                            "an iteration was estimated: the LlmIterationEstimate",
                            MakeTraceSourceAccessor(&LlmIterationModel::m_estimatedTrace),
                            "ns3::LlmIterationModel::EstimatedTracedCallback");
    return tid;
}

LlmIterationModel::LlmIterationModel() = default;
LlmIterationModel::~LlmIterationModel() = default;

void
LlmIterationModel::DoDispose()
{
    Object::DoDispose();
}

void
LlmIterationModel::SetPacketization(uint32_t maxPayload, uint32_t overhead)
{
    SetPacketization(Packetization(maxPayload, overhead));
}

void
LlmIterationModel::SetPacketization(const Packetization& packetization)
{
    m_packetization = packetization;
}

double
LlmIterationModel::GetHbBps() const
{
    return double(m_hbRate.GetBitRate()) * (m_hbBidirectional ? 2.0 : 1.0);
}

double
LlmIterationModel::MessageTime(double bytes, uint32_t hops, double rateBps, double delay) const
{
    if (bytes <= 0)
    {
        return 0;
    }
    double wire = m_packetization.GetFluidWireBytes(bytes);
    double first = m_packetization.GetFluidFirstFrameBytes(bytes);
    return (wire + (hops - 1) * first) * 8.0 / rateBps + hops * delay;
}

double
LlmIterationModel::RingAllReduceHb(uint32_t n, double bytes) const
{
    if (n < 2)
    {
        return 0;
    }
    return 2.0 * (n - 1) * MessageTime(bytes / n, 2, GetHbBps(), m_hbDelay.GetSeconds());
}

double
LlmIterationModel::RingAllReduceNic(uint32_t n, double bytes) const
{
    if (n < 2)
    {
        return 0;
    }
    return 2.0 * (n - 1) *
           MessageTime(bytes / n, m_nicHops, m_nicRate.GetBitRate(), m_nicDelay.GetSeconds());
}

double
LlmIterationModel::AllToAllTime(uint32_t g, uint32_t c, double m, bool hierarchical) const
{
    const double bn = m_nicRate.GetBitRate();
    const double bh = GetHbBps();
    const double dn = m_nicDelay.GetSeconds();
    const double dh = m_hbDelay.GetSeconds();
    if (g < 2 || c == 0)
    {
        return 0;
    }
    auto wire = [this](double x) { return m_packetization.GetFluidWireBytes(x); };
    auto latency = [this](double x, uint32_t h, double r, double d) {
        return (h - 1) * m_packetization.GetFluidFirstFrameBytes(x) * 8.0 / r + h * d;
    };
    const uint32_t domains = g / c;
    if (domains <= 1)
    {
        return (g - 1) * wire(m) * 8.0 / bh + latency(m, 2, bh, dh);
    }
    if (!hierarchical || c == 1)
    {
        // Every pair at once: the NIC carries the G - c remote blocks, NVLink the rest.
        return std::max((g - c) * wire(m) * 8.0 / bn + latency(m, m_nicHops, bn, dn),
                        (c - 1) * wire(m) * 8.0 / bh + latency(m, 2, bh, dh));
    }
    double shuffle = (c - 1) * wire(domains * m) * 8.0 / bh + latency(domains * m, 2, bh, dh);
    double rail = (domains - 1) * wire(c * m) * 8.0 / bn + latency(c * m, m_nicHops, bn, dn);
    return shuffle + rail;
}

LlmIterationEstimate
LlmIterationModel::Estimate(Ptr<const LlmWorkload> w) const
{
    const LlmModelConfig& c = w->GetConfig();
    Ptr<MegatronMapper> map = w->GetMapper();
    const uint32_t t = c.tp;
    const uint32_t p = c.pp;
    const uint32_t k = map->GetDomainSize();
    const uint32_t lps = w->GetLayersPerStage();
    const double bn = m_nicRate.GetBitRate();
    const double bh = GetHbBps();
    LlmIterationEstimate e;
    e.computeS = w->GetIterationFlops() / (double(map->GetNGpus()) * w->GetSustainedFlops());

    // MoE all-to-all over one stage: G GPUs, c of them per HB domain.
    const uint32_t g = t * c.dp;
    std::map<uint32_t, uint32_t> perDomain;
    for (uint32_t r : map->GetStageRanks(0))
    {
        perDomain[r / k]++;
    }
    const uint32_t cnt = perDomain.begin()->second;
    if (c.IsMoe())
    {
        double m = w->GetMoeBytesPerPair();
        e.moeAllToAllS = AllToAllTime(g, cnt, m, w->IsHierarchicalAllToAll());
        e.moeFlatAllToAllS = AllToAllTime(g, cnt, m, false);
        e.moeOverhead = e.moeAllToAllS / e.moeFlatAllToAllS - 1.0;
        e.moeOverheadFormula = g > cnt ? bn / bh * double(g) / double(g - cnt) : 0.0;
    }

    const double tpAr = t > 1 ? RingAllReduceHb(t, w->GetTpAllReduceBytes()) : 0.0;
    double maxSlot = 0;
    double sumSlots = 0;
    double maxTp = 0;
    double maxMoe = 0;
    for (uint32_t s = 0; s < p; ++s)
    {
        double compute = 0;
        double tp = 0;
        double moe = 0;
        for (uint32_t l = s * lps; l < (s + 1) * lps; ++l)
        {
            compute += 3.0 * w->GetLayerForwardTime(l).GetSeconds();
            tp += (c.IsMoeLayer(l) ? 2.0 : 4.0) * tpAr;
            moe += c.IsMoeLayer(l) ? 4.0 * e.moeAllToAllS : 0.0;
        }
        if (s + 1 == p)
        {
            compute += 3.0 * w->GetLogitForwardTime().GetSeconds();
        }
        double slot = compute + tp + moe;
        sumSlots += slot;
        if (slot > maxSlot)
        {
            maxSlot = slot;
            maxTp = tp;
            maxMoe = moe;
        }
    }
    const uint32_t m = c.microBatches;
    double hop = 0;
    if (p > 1)
    {
        double x = w->GetPpBytesPerRank();
        hop = MessageTime(x, m_nicHops, bn, m_nicDelay.GetSeconds()) +
              (t > 1 ? (t - 1) * MessageTime(x, 2, bh, m_hbDelay.GetSeconds()) : 0.0);
    }
    e.ppS = 2.0 * (p - 1) * hop;
    e.bubbleS = (p - 1) * maxSlot;
    e.tpS = (m + p - 1) * maxTp;
    e.moeS = (m + p - 1) * maxMoe;
    e.pipelineS = (m - 1) * maxSlot + sumSlots + e.ppS;

    // DP: stage 0's gradients (it drains last), hierarchical over c members per domain.
    if (c.dp > 1)
    {
        double n = w->GetDpBytes(0);
        std::map<uint32_t, uint32_t> dpPerDomain;
        for (uint32_t dp = 0; dp < c.dp; ++dp)
        {
            dpPerDomain[map->GetRank(0, dp, 0) / k]++;
        }
        uint32_t dc = dpPerDomain.begin()->second;
        uint32_t dd = dpPerDomain.size();
        if (dd == 1)
        {
            e.dpS = RingAllReduceHb(c.dp, n);
        }
        else if (dc == 1)
        {
            e.dpS = RingAllReduceNic(c.dp, n);
        }
        else
        {
            double part = std::ceil(n / dc);
            double hb = (dc - 1) * MessageTime(part, 2, bh, m_hbDelay.GetSeconds());
            e.dpS = 2.0 * hb + RingAllReduceNic(dd, part);
        }
    }
    e.totalS = e.pipelineS + e.dpS;
    m_estimatedTrace(e);
    NS_LOG_INFO("iteration " << e.totalS << " s (compute " << e.computeS << " s, DP " << e.dpS
                             << " s)");
    return e;
}

} // namespace ns3
