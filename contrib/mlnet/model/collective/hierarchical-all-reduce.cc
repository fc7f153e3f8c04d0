// SPDX-License-Identifier: GPL-2.0-only
#include "hierarchical-all-reduce.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetHierarchicalAllReduce");
NS_OBJECT_ENSURE_REGISTERED(HierarchicalAllReduce);

TypeId
HierarchicalAllReduce::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HierarchicalAllReduce")
            .SetParent<StepwiseCollective>()
            .SetGroupName("Mlnet")
            .AddConstructor<HierarchicalAllReduce>()
            .AddAttribute("GroupSize",
                          "Members per group (a server's or an HB domain's ranks), "
                          "consecutive members forming a group; must divide the "
                          "communicator. 0: the fabric's HB domain size (rail fabrics).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HierarchicalAllReduce::m_groupSizeAttr),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

HierarchicalAllReduce::HierarchicalAllReduce() = default;
HierarchicalAllReduce::~HierarchicalAllReduce() = default;

uint32_t
HierarchicalAllReduce::GetGroupSize() const
{
    if (m_groupSizeAttr > 0 || !m_transport)
    {
        return m_groupSizeAttr;
    }
    return m_transport->GetCluster()->GetFabricSpec().domainSize;
}

std::string
HierarchicalAllReduce::GetCollectiveName() const
{
    return "allreduce";
}

std::string
HierarchicalAllReduce::GetAlgorithmName() const
{
    return "hierarchical";
}

void
HierarchicalAllReduce::ValidateConfig() const
{
    const uint32_t g = GetGroupSize();
    const auto n = static_cast<uint32_t>(m_ranks.size());
    if (g == 0)
    {
        throw std::invalid_argument(
            "hierarchical all-reduce needs its group size: the fabric '" +
            m_transport->GetCluster()->GetFabricSpec().kind +
            "' has no HB domains; set ns3::HierarchicalAllReduce::GroupSize (e.g. "
            "--groupSize=8, the ranks of one server)");
    }
    if (n % g != 0)
    {
        throw std::invalid_argument("hierarchical all-reduce: a group size of " +
                                    std::to_string(g) + " does not divide the " +
                                    std::to_string(n) +
                                    " ranks; give a group size that divides them");
    }
}

std::vector<uint32_t>
HierarchicalAllReduce::ChainLengths(uint32_t /* member */) const
{
    const uint32_t g = GetGroupSize();
    const auto groups = static_cast<uint32_t>(m_ranks.size()) / g;
    return {2 * (g - 1) + 2 * (groups - 1)};
}

void
HierarchicalAllReduce::BuildStep(uint32_t member,
                                 uint32_t /* chain */,
                                 uint32_t step,
                                 Step& out) const
{
    const uint32_t g = GetGroupSize();
    const auto m = static_cast<uint32_t>(m_ranks.size()) / g;
    const uint32_t group = member / g;
    const uint32_t local = member % g;
    const Segment all{0, GetUnits()};
    if (step < g - 1 || step >= g - 1 + 2 * (m - 1))
    {
        // Phases 1 and 3: the steps of a ring all-reduce over the group, its first
        // G - 1 (reduce-scatter) then its last G - 1 (all-gather).
        const RingChunks k = RingAllReduceStep(local, g, step < g - 1 ? step : step - 2 * (m - 1));
        out.sends.assign(1, {group * g + (local + 1) % g, SplitPart(all, g, k.send)});
        out.recvs.assign(1, {group * g + (local + g - 1) % g, SplitPart(all, g, k.recv), k.reduce});
        return;
    }
    // Phase 2: a ring all-reduce of chunk `local` over the groups, position = group.
    const RingChunks k = RingAllReduceStep(group, m, step - (g - 1));
    const Segment own = SplitPart(all, g, local);
    out.sends.assign(1, {((group + 1) % m) * g + local, SplitPart(own, m, k.send)});
    out.recvs.assign(1, {((group + m - 1) % m) * g + local, SplitPart(own, m, k.recv), k.reduce});
}

uint64_t
HierarchicalAllReduce::MessageCount() const
{
    return OneSendPerStepCount();
}

bool
HierarchicalAllReduce::ReceiveReduces(uint32_t /* member */,
                                      uint32_t /* chain */,
                                      uint32_t step,
                                      uint32_t /* from */) const
{
    const uint32_t g = GetGroupSize();
    const auto m = static_cast<uint32_t>(m_ranks.size()) / g;
    return step < (g - 1) + (m - 1);
}

} // namespace ns3
