// SPDX-License-Identifier: GPL-2.0-only
#include "random-regular-topology.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptRandomRegularTopology");
NS_OBJECT_ENSURE_REGISTERED(RandomRegularTopology);

TypeId
RandomRegularTopology::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RandomRegularTopology")
            .SetParent<Object>()
            .SetGroupName("Topoopt")
            .AddConstructor<RandomRegularTopology>()
            .AddAttribute("Degree",
                          "NIC ports per server d (= number of optical planes; ports)",
                          UintegerValue(4),
                          MakeUintegerAccessor(&RandomRegularTopology::m_degree),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MatchingAttempts",
                          "Redraws of one plane's matching to avoid parallel circuits (count)",
                          UintegerValue(100),
                          MakeUintegerAccessor(&RandomRegularTopology::m_matchingAttempts),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("GraphAttempts",
                          "Redraws of the whole graph until it is connected (count)",
                          UintegerValue(100),
                          MakeUintegerAccessor(&RandomRegularTopology::m_graphAttempts),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RouteAllPairs",
                          "Give every pair a random shortest path in the plan (bool)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RandomRegularTopology::m_routeAllPairs),
                          MakeBooleanChecker());
    return tid;
}

RandomRegularTopology::RandomRegularTopology()
    : m_degree(4),
      m_matchingAttempts(100),
      m_graphAttempts(100),
      m_routeAllPairs(true),
      m_rng(CreateObject<UniformRandomVariable>())
{
}

void
RandomRegularTopology::DoDispose()
{
    m_rng = nullptr;
    Object::DoDispose();
}

int64_t
RandomRegularTopology::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint32_t
RandomRegularTopology::GetParallelCircuits() const
{
    return m_parallel;
}

TopologyPlan
RandomRegularTopology::Build(uint32_t n)
{
    const uint32_t d = m_degree;
    if (n < 2 || n % 2 != 0)
    {
        throw std::invalid_argument("RandomRegularTopology: " + std::to_string(n) +
                                    " servers; use an even n >= 2 (each plane is a perfect "
                                    "matching)");
    }
    if (d > n - 1)
    {
        throw std::invalid_argument("RandomRegularTopology: degree " + std::to_string(d) +
                                    " is larger than the " + std::to_string(n - 1) +
                                    " other servers; use Degree <= " + std::to_string(n - 1));
    }
    for (uint32_t attempt = 0; attempt < m_graphAttempts; ++attempt)
    {
        TopologyPlan plan(n, d);
        Eigen::MatrixXi counts = Eigen::MatrixXi::Zero(n, n);
        m_parallel = 0;
        for (uint32_t p = 0; p < d; ++p)
        {
            std::vector<uint32_t> order(n);
            uint32_t duplicates = 0;
            for (uint32_t t = 0; t < m_matchingAttempts; ++t)
            {
                for (uint32_t i = 0; i < n; ++i)
                {
                    order[i] = i;
                }
                for (uint32_t i = n - 1; i > 0; --i)
                {
                    std::swap(order[i], order[m_rng->GetInteger(0, i)]);
                }
                duplicates = 0;
                for (uint32_t i = 0; i < n; i += 2)
                {
                    duplicates += counts(order[i], order[i + 1]) > 0 ? 1 : 0;
                }
                if (duplicates == 0)
                {
                    break;
                }
            }
            m_parallel += duplicates;
            for (uint32_t i = 0; i < n; i += 2)
            {
                plan.AddCircuit(p, order[i], order[i + 1]);
                counts(order[i], order[i + 1])++;
                counts(order[i + 1], order[i])++;
            }
        }
        if (plan.IsConnected())
        {
            if (m_routeAllPairs)
            {
                plan.AddShortestPathRoutes(m_rng);
            }
            NS_LOG_INFO("random " << d << "-regular graph on " << n << " servers after "
                                  << attempt + 1 << " draws, diameter " << plan.Diameter());
            return plan;
        }
    }
    throw std::invalid_argument("RandomRegularTopology: no connected " + std::to_string(d) +
                                "-regular graph on " + std::to_string(n) + " servers in " +
                                std::to_string(m_graphAttempts) +
                                " draws; use Degree >= 2 or raise GraphAttempts");
}

} // namespace ns3
