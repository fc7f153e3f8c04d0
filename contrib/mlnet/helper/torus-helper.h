// SPDX-License-Identifier: GPL-2.0-only
/*
 * TorusHelper: a k-ary n-dimensional torus (wraparound links) or mesh (none)
 * whose nodes are the ranks themselves: each rank forwards transit traffic, as
 * in TPU-style direct-connect fabrics. Rank = x0 + k0*(x1 + k1*(x2 + ...)).
 * Every rank has up to 2n links of class "torus"; a dimension of size 2 has one
 * link per pair (its + and - neighbours coincide). Routing is dimension-order
 * (lowest dimension first, shorter way round), rerouted around failed links.
 */
#ifndef MLNET_TORUS_HELPER_H
#define MLNET_TORUS_HELPER_H

#include "ns3/fabric-helper.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Builds a k-ary n-D torus or mesh of ranks.
 */
class TorusHelper : public FabricHelper
{
public:
    /// \param dims size of each dimension (each >= 2)
    explicit TorusHelper(const std::vector<uint32_t>& dims);
    /// \brief Wraparound links (torus, default) or not (mesh).
    void SetWrap(bool wrap);
    Ptr<Cluster> Install() override;

    /**
     * \brief Parse "4x4x4" into {4,4,4}.
     * Throws std::invalid_argument for anything else.
     */
    static std::vector<uint32_t> ParseDims(const std::string& text);

private:
    std::vector<uint32_t> m_dims;
    bool m_wrap{true};
};

} // namespace ns3

#endif // MLNET_TORUS_HELPER_H
