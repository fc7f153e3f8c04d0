// SPDX-License-Identifier: GPL-2.0-only
#include "torus-all-reduce.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/string.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTorusAllReduce");
NS_OBJECT_ENSURE_REGISTERED(TorusAllReduce);

TypeId
TorusAllReduce::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TorusAllReduce")
            .SetParent<StepwiseCollective>()
            .SetGroupName("Mlnet")
            .AddConstructor<TorusAllReduce>()
            .AddAttribute("Dims",
                          "Torus dims as k0xk1x... (ranks per dimension, dimension 0 fastest); "
                          "empty: the cluster's torus FabricSpec. SetDims overrides it.",
                          StringValue(""),
                          MakeStringAccessor(&TorusAllReduce::m_dimsAttr),
                          MakeStringChecker());
    return tid;
}

TorusAllReduce::TorusAllReduce() = default;
TorusAllReduce::~TorusAllReduce() = default;

void
TorusAllReduce::SetDims(const std::vector<uint32_t>& dims)
{
    m_dims = dims;
}

std::string
TorusAllReduce::GetCollectiveName() const
{
    return "allreduce";
}

std::string
TorusAllReduce::GetAlgorithmName() const
{
    return "torus";
}

std::vector<uint32_t>
TorusAllReduce::GetDims() const
{
    return ResolveDims();
}

std::vector<uint32_t>
TorusAllReduce::ResolveDims() const
{
    if (!m_dims.empty())
    {
        return m_dims;
    }
    if (!m_dimsAttr.empty())
    {
        std::vector<uint32_t> dims;
        std::stringstream ss(m_dimsAttr);
        std::string item;
        while (std::getline(ss, item, 'x'))
        {
            try
            {
                size_t used = 0;
                unsigned long k = std::stoul(item, &used);
                if (used != item.size())
                {
                    throw std::invalid_argument(item);
                }
                dims.push_back(static_cast<uint32_t>(k));
            }
            catch (const std::exception&)
            {
                throw std::invalid_argument("torus Dims '" + m_dimsAttr +
                                            "' is not of the form k0xk1x..., e.g. 4x4");
            }
        }
        return dims;
    }
    const FabricSpec& spec = m_transport->GetCluster()->GetFabricSpec();
    if (spec.kind != "torus")
    {
        throw std::invalid_argument(
            "torus all-reduce needs the torus dimensions: the fabric is '" + spec.kind +
            "', not 'torus'; call SetDims({k0,k1,...}) or set ns3::TorusAllReduce::Dims=4x4");
    }
    return spec.dims;
}

bool
TorusAllReduce::Wraps() const
{
    const FabricSpec& spec = m_transport->GetCluster()->GetFabricSpec();
    return spec.kind != "torus" || spec.wrap;
}

void
TorusAllReduce::ValidateConfig() const
{
    auto dims = ResolveDims();
    uint64_t product = 1;
    std::string shape;
    for (uint32_t k : dims)
    {
        if (k == 0)
        {
            throw std::invalid_argument("torus dims must be >= 1 each");
        }
        product *= k;
        shape += (shape.empty() ? "" : "x") + std::to_string(k);
    }
    if (dims.empty() || product != m_ranks.size())
    {
        throw std::invalid_argument("torus dims " + shape + " hold " + std::to_string(product) +
                                    " ranks but the communicator has " +
                                    std::to_string(m_ranks.size()) +
                                    "; give dims whose product is the number of ranks");
    }
}

uint32_t
TorusAllReduce::Neighbour(uint32_t member,
                          const std::vector<uint32_t>& dims,
                          uint32_t dim,
                          int32_t delta) const
{
    uint32_t stride = 1;
    for (uint32_t d = 0; d < dim; ++d)
    {
        stride *= dims[d];
    }
    uint32_t k = dims[dim];
    uint32_t x = (member / stride) % k;
    uint32_t y = static_cast<uint32_t>((static_cast<int64_t>(x) + delta + k) % k);
    return member - x * stride + y * stride;
}

bool
TorusAllReduce::HopFailed(uint32_t memberA, uint32_t memberB) const
{
    Ptr<Cluster> cluster = m_transport->GetCluster();
    uint32_t a = cluster->GetRankNode(m_ranks[memberA])->GetId();
    uint32_t b = cluster->GetRankNode(m_ranks[memberB])->GetId();
    bool any = false;
    bool allFailed = true;
    for (uint32_t id : cluster->GetLinksOfNode(a))
    {
        const ClusterLink& l = cluster->GetLink(id);
        if ((l.nodeA == a && l.nodeB == b) || (l.nodeA == b && l.nodeB == a))
        {
            any = true;
            allFailed = allFailed && l.failed;
        }
    }
    return any && allFailed;
}

bool
TorusAllReduce::IsRingDegraded(uint32_t member, uint32_t dim) const
{
    auto dims = ResolveDims();
    NS_ASSERT(dim < dims.size() && member < m_ranks.size());
    if (!Wraps())
    {
        return true;
    }
    uint32_t m = member;
    for (uint32_t i = 0; i < dims[dim]; ++i)
    {
        uint32_t next = Neighbour(m, dims, dim, +1);
        if (next != m && HopFailed(m, next))
        {
            return true;
        }
        m = next;
    }
    return false;
}

void
TorusAllReduce::EnsureLayout() const
{
    if (m_layoutBuilt)
    {
        return;
    }
    m_layoutDims = ResolveDims();
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    const uint32_t nd = static_cast<uint32_t>(m_layoutDims.size());
    m_degraded.assign(static_cast<size_t>(n) * nd, false);
    for (uint32_t m = 0; m < n; ++m)
    {
        for (uint32_t d = 0; d < nd; ++d)
        {
            m_degraded[static_cast<size_t>(m) * nd + d] =
                m_layoutDims[d] > 1 && IsRingDegraded(m, d);
        }
    }
    m_steps = 0;
    for (uint32_t k : m_layoutDims)
    {
        m_steps += 2 * (k - 1);
    }
    m_layoutBuilt = true;
}

std::vector<uint32_t>
TorusAllReduce::ChainLengths(uint32_t /* member */) const
{
    EnsureLayout();
    return {m_steps, m_steps}; // one chain per half of the buffer
}

void
TorusAllReduce::BuildStep(uint32_t m, uint32_t h, uint32_t t, Step& out) const
{
    EnsureLayout();
    const auto& dims = m_layoutDims;
    const uint32_t nd = static_cast<uint32_t>(dims.size());
    // The step's dimension and its place in that dimension's ring: reduce-scatter,
    // dimension 0 first, then all-gather in reverse dimension order.
    uint32_t dim = nd;
    uint32_t local = t;
    bool reduce = true;
    for (uint32_t d = 0; d < nd && dim == nd; ++d)
    {
        if (local + 1 < dims[d])
        {
            dim = d;
        }
        else
        {
            local -= dims[d] - 1;
        }
    }
    for (uint32_t d = nd; dim == nd && d-- > 0;)
    {
        if (local + 1 < dims[d])
        {
            dim = d;
            reduce = false;
        }
        else
        {
            local -= dims[d] - 1;
        }
    }
    NS_ASSERT_MSG(dim < nd, "step " << t << " beyond the torus all-reduce's " << m_steps);
    // The piece of the member's half that the dimension's ring splits: the half, cut
    // down by the member's coordinate in every dimension before it.
    Segment level = SplitPart({0, GetUnits()}, 2, h);
    uint32_t rest = m;
    for (uint32_t d = 0; d < dim; ++d)
    {
        level = SplitPart(level, dims[d], rest % dims[d]);
        rest /= dims[d];
    }
    const uint32_t k = dims[dim];
    const int64_t x = rest % k;
    // Chain 0 runs every ring in the + direction, chain 1 in the - direction, except
    // rings that run as a line (a failed hop or no wrap-around).
    const int32_t dir = (h == 0 || m_degraded[static_cast<size_t>(m) * nd + dim]) ? 1 : -1;
    // Position x sends chunk x - dir*(t+1) and receives chunk x - dir*(t+2) in step t
    // of a dimension's reduce-scatter (it ends owning chunk x); x - dir*t and
    // x - dir*(t+1) in its all-gather.
    const int64_t ahead = reduce ? 1 : 0;
    auto chunk = [&](int64_t back) {
        return static_cast<uint32_t>(((x - dir * back) % k + k) % k);
    };
    out.sends.assign(1, {Neighbour(m, dims, dim, dir), SplitPart(level, k, chunk(local + ahead))});
    out.recvs.assign(
        1,
        {Neighbour(m, dims, dim, -dir), SplitPart(level, k, chunk(local + ahead + 1)), reduce});
}

uint64_t
TorusAllReduce::MessageCount() const
{
    return OneSendPerStepCount();
}

bool
TorusAllReduce::ReceiveReduces(uint32_t /* member */,
                               uint32_t /* chain */,
                               uint32_t step,
                               uint32_t /* from */) const
{
    EnsureLayout();
    return step < m_steps / 2;
}

} // namespace ns3
