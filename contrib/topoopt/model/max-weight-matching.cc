#include "max-weight-matching.h"

#include "ns3/log.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/maximum_weighted_matching.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptMaxWeightMatching");

namespace
{
using EdgeProperty = boost::property<boost::edge_weight_t, int64_t>;
using MatchGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                         boost::no_property, EdgeProperty>;
constexpr double kLevels = 1048576.0; // 2^20 demand quanta for the largest demand
} // namespace

MaxWeightMatching::MaxWeightMatching(Ptr<UniformRandomVariable> rng)
    : m_rng(rng)
{
    NS_ASSERT_MSG(rng, "MaxWeightMatching needs a random stream");
}

uint32_t MaxWeightMatching::GetRepairs() const
{
    return m_repairs;
}

uint32_t MaxWeightMatching::GetBoostCalls() const
{
    return m_boostCalls;
}

double MaxWeightMatching::Weight(const Eigen::MatrixXd& w,
                                 const std::vector<std::pair<uint32_t, uint32_t>>& pairs)
{
    double sum = 0;
    for (const auto& p : pairs)
    {
        sum += w(p.first, p.second) + w(p.second, p.first);
    }
    return sum;
}

std::vector<std::pair<uint32_t, uint32_t>> MaxWeightMatching::Solve(
    const Eigen::MatrixXd& weight, const std::vector<uint32_t>& vertices)
{
    const size_t m = vertices.size();
    if (m % 2 != 0)
    {
        throw std::invalid_argument("MaxWeightMatching: " + std::to_string(m) +
                                    " vertices have no perfect matching; give an even count");
    }
    if (weight.rows() != weight.cols())
    {
        throw std::invalid_argument("MaxWeightMatching: the weight matrix must be square");
    }
    for (uint32_t v : vertices)
    {
        if (v >= weight.rows())
        {
            throw std::invalid_argument("MaxWeightMatching: vertex " + std::to_string(v) +
                                        " out of range of the weight matrix");
        }
    }
    // Symmetric weights of the sub-problem.
    Eigen::MatrixXd w(m, m);
    double wmax = 0;
    for (size_t a = 0; a < m; ++a)
    {
        for (size_t b = 0; b < m; ++b)
        {
            double x =
                a == b ? 0.0 : weight(vertices[a], vertices[b]) + weight(vertices[b], vertices[a]);
            if (!std::isfinite(x) || x < 0)
            {
                throw std::invalid_argument("MaxWeightMatching: weights must be finite and >= 0");
            }
            w(a, b) = x;
            wmax = std::max(wmax, x);
        }
    }
    std::vector<int64_t> mate(m, -1);
    if (m == 0)
    {
        return {};
    }
    if (wmax == 0)
    {
        // Every perfect matching is optimal: draw one at random (Fisher-Yates).
        std::vector<uint32_t> order(m);
        for (size_t i = 0; i < m; ++i)
        {
            order[i] = i;
        }
        for (size_t i = m - 1; i > 0; --i)
        {
            std::swap(order[i], order[m_rng->GetInteger(0, i)]);
        }
        for (size_t i = 0; i < m; i += 2)
        {
            mate[order[i]] = order[i + 1];
            mate[order[i + 1]] = order[i];
        }
    }
    else
    {
        const double quantum = wmax / kLevels;
        Eigen::Matrix<int64_t, Eigen::Dynamic, Eigen::Dynamic> q(m, m);
        int64_t sum = 0;
        for (size_t a = 0; a < m; ++a)
        {
            for (size_t b = 0; b < m; ++b)
            {
                q(a, b) = std::llround(w(a, b) / quantum);
                if (a < b)
                {
                    sum += q(a, b);
                }
            }
        }
        // Weight = (C + q) * K + jitter, C > sum of demands forces a perfect matching;
        // jitter < K / (m/2 + 1) keeps a matching's total jitter below one quantum.
        const int64_t c = sum + 1;
        int64_t scale = int64_t(1) << 27;
        while (scale > 1024 && (c + static_cast<int64_t>(kLevels)) > (int64_t(1) << 58) / scale)
        {
            scale >>= 1;
        }
        const uint32_t jitterRange = static_cast<uint32_t>(scale / (int64_t(m) / 2 + 1));
        MatchGraph g(m);
        for (size_t a = 0; a < m; ++a)
        {
            for (size_t b = a + 1; b < m; ++b)
            {
                int64_t jitter = jitterRange > 1 ? m_rng->GetInteger(0, jitterRange - 1) : 0;
                boost::add_edge(a, b, EdgeProperty((c + q(a, b)) * scale + jitter), g);
            }
        }
        std::vector<boost::graph_traits<MatchGraph>::vertex_descriptor> bm(m);
        boost::maximum_weighted_matching(g, bm.data());
        ++m_boostCalls;
        for (size_t a = 0; a < m; ++a)
        {
            if (bm[a] != boost::graph_traits<MatchGraph>::null_vertex())
            {
                mate[a] = bm[a];
            }
        }
        // Boost 1.74 may return an imperfect matching on bad inputs: pair leftovers.
        std::vector<uint32_t> free;
        for (size_t a = 0; a < m; ++a)
        {
            if (mate[a] < 0)
            {
                free.push_back(a);
            }
        }
        if (!free.empty())
        {
            NS_LOG_WARN("Boost returned an imperfect matching; pairing " << free.size()
                                                                         << " leftovers");
            ++m_repairs;
            for (size_t i = 0; i + 1 < free.size(); i += 2)
            {
                mate[free[i]] = free[i + 1];
                mate[free[i + 1]] = free[i];
            }
        }
        // 2-opt repair (boostorg/graph#399).
        bool improved = true;
        bool repaired = false;
        while (improved)
        {
            improved = false;
            for (size_t a = 0; a < m; ++a)
            {
                for (size_t c2 = 0; c2 < m; ++c2)
                {
                    int64_t b = mate[a];
                    int64_t d = mate[c2];
                    if (c2 == a || b == static_cast<int64_t>(c2))
                    {
                        continue;
                    }
                    double cur = w(a, b) + w(c2, d);
                    double tol = 1e-12 * std::max(1.0, cur);
                    if (w(a, c2) + w(b, d) > cur + tol)
                    {
                        mate[a] = c2;
                        mate[c2] = a;
                        mate[b] = d;
                        mate[d] = b;
                        improved = repaired = true;
                    }
                    else if (w(a, d) + w(b, c2) > cur + tol)
                    {
                        mate[a] = d;
                        mate[d] = a;
                        mate[b] = c2;
                        mate[c2] = b;
                        improved = repaired = true;
                    }
                }
            }
        }
        if (repaired)
        {
            NS_LOG_INFO("2-opt improved Boost's matching");
            ++m_repairs;
        }
    }
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (size_t a = 0; a < m; ++a)
    {
        NS_ASSERT(mate[a] >= 0);
        if (static_cast<int64_t>(a) < mate[a])
        {
            uint32_t x = vertices[a];
            uint32_t y = vertices[mate[a]];
            pairs.emplace_back(std::min(x, y), std::max(x, y));
        }
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

} // namespace ns3
