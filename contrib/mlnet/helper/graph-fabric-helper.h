// SPDX-License-Identifier: GPL-2.0-only
/*
 * GraphFabricHelper: any fabric given as a JSON edge list.
 *
 *   { "ranks": 4, "switches": 1,
 *     "links": [ ["r0", "s0"],
 *                {"a": "r1", "b": "s0", "class": "host-tor",
 *                 "rate": "200Gbps", "delay": "2us"}, ... ] }
 *
 * Nodes are named r<i> (rank i, 0 <= i < ranks) and s<j> (switch j). A link is a
 * pair of names or an object; class, rate and delay are optional (defaults:
 * "graph", the helper's link rate and delay). Parallel links are allowed and
 * stay separate links. Routing is flow-hash ECMP over shortest paths, with
 * ranks forwarding transit traffic when a shortest path crosses them.
 */
#ifndef MLNET_GRAPH_FABRIC_HELPER_H
#define MLNET_GRAPH_FABRIC_HELPER_H

#include "ns3/fabric-helper.h"

#include <string>

namespace ns3
{

/**
 * \brief Builds a fabric from a JSON edge list.
 */
class GraphFabricHelper : public FabricHelper
{
public:
    GraphFabricHelper();
    /// \brief Use this JSON text (throws std::invalid_argument if it does not parse).
    void SetJson(const std::string& text);
    /// \brief Read the JSON from a file (throws std::invalid_argument on failure).
    void ReadFile(const std::string& path);
    Ptr<Cluster> Install() override;

private:
    std::string m_text;
};

} // namespace ns3

#endif // MLNET_GRAPH_FABRIC_HELPER_H
