// SPDX-License-Identifier: GPL-2.0-only
#include "torus-helper.h"

#include "ns3/fabric-registry.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

TorusHelper::TorusHelper(const std::vector<uint32_t>& dims)
    : m_dims(dims)
{
}

void
TorusHelper::SetWrap(bool wrap)
{
    m_wrap = wrap;
}

std::vector<uint32_t>
TorusHelper::ParseDims(const std::string& text)
{
    std::vector<uint32_t> dims;
    if (text.empty() || text.back() == 'x')
    {
        throw std::invalid_argument("torus dimensions '" + text + "' are not of the form 4x4x4");
    }
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, 'x'))
    {
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
            part.size() > 6)
        {
            throw std::invalid_argument("torus dimensions '" + text +
                                        "' are not of the form 4x4x4");
        }
        dims.push_back(static_cast<uint32_t>(std::stoul(part)));
    }
    if (dims.empty())
    {
        throw std::invalid_argument("torus dimensions are empty; give e.g. 4x4");
    }
    return dims;
}

Ptr<Cluster>
TorusHelper::Install()
{
    ValidateCommon();
    if (m_dims.empty())
    {
        throw std::invalid_argument("a torus needs at least one dimension");
    }
    uint64_t n = 1;
    for (uint32_t k : m_dims)
    {
        if (k < 2)
        {
            throw std::invalid_argument("every torus dimension needs size >= 2, got " +
                                        std::to_string(k));
        }
        n *= k;
    }
    if (n > 1u << 20)
    {
        throw std::invalid_argument("torus of " + std::to_string(n) + " ranks is too large");
    }
    Ptr<Cluster> cluster = CreateObject<Cluster>();
    NodeContainer nodes = CreateNodes(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        cluster->AddRankNode(nodes.Get(r));
    }
    uint32_t stride = 1;
    for (size_t d = 0; d < m_dims.size(); ++d)
    {
        uint32_t k = m_dims[d];
        for (uint32_t r = 0; r < n; ++r)
        {
            uint32_t c = (r / stride) % k;
            bool last = (c + 1 == k);
            if (last && (!m_wrap || k == 2))
            {
                continue; // mesh edge, or k = 2 where the wrap link would duplicate
            }
            uint32_t peer = last ? r - c * stride : r + stride;
            Connect(cluster, nodes.Get(r), nodes.Get(peer), "torus");
        }
        stride *= k;
    }
    FabricSpec spec;
    spec.kind = "torus";
    spec.dims = m_dims;
    spec.wrap = m_wrap;
    spec.routing = "dor";
    Finish(cluster, spec);
    return cluster;
}

namespace
{
/// A torus (wrap) or mesh of the request's dims; ranks, if given, must be their product.
std::shared_ptr<FabricHelper>
BuildTorus(const FabricRequest& r, bool wrap)
{
    uint64_t product = 1;
    std::string text;
    for (uint32_t k : r.dims)
    {
        product *= k;
        text += (text.empty() ? "" : "x") + std::to_string(k);
    }
    if (r.ranks != 0 && r.ranks != product)
    {
        throw std::invalid_argument(
            "--ranks=" + std::to_string(r.ranks) + " does not match --torusDims=" + text + " (" +
            std::to_string(product) + " ranks); drop --ranks or change the dimensions");
    }
    auto h = std::make_shared<TorusHelper>(r.dims);
    h->SetWrap(wrap);
    return h;
}

const FabricRegistration g_torus("torus",
                                 "k-ary n-D torus (wraparound), dimension-order routing",
                                 {"torus"},
                                 [](const FabricRequest& r) { return BuildTorus(r, true); });
const FabricRegistration g_mesh("mesh",
                                "k-ary n-D mesh (no wraparound)",
                                {"torus"},
                                [](const FabricRequest& r) { return BuildTorus(r, false); });
} // namespace

} // namespace ns3
