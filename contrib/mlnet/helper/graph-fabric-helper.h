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
 *
 * JSON inputs: the document is closed (keys ranks, switches, links, description; a
 * link object a, b, class, rate, delay); 2 <= ranks <= 2^20, switches <= 2^20, at
 * most 2^22 links; a rate is <number><unit> in (0, 100 Tbps], a delay
 * <number>(s|ms|us|ns|ps) in [0, 1 s]; every rank reaches rank 0 over the links
 * (Boost connected_components; a switch nothing reaches is allowed). Every error names
 * the file and the field ("net.json: links[3].rate: expected ...", "net.json: links:
 * rank 1 cannot be reached from rank 0; ...").
 */
#ifndef MLNET_GRAPH_FABRIC_HELPER_H
#define MLNET_GRAPH_FABRIC_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/fabric-helper.h"
#include "ns3/json-reader.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief One link of a graph document, its ends resolved to node indices.
 */
struct GraphLink
{
    bool aIsRank{true};    //!< end a is a rank (else a switch)
    uint32_t a{0};         //!< index of end a among ranks or switches
    bool bIsRank{true};    //!< end b is a rank (else a switch)
    uint32_t b{0};         //!< index of end b
    std::string linkClass; //!< link class ("graph" unless given)
    DataRate rate{0};      //!< link rate (0: the helper's)
    Time delay{-1};        //!< link delay (negative: the helper's)
};

/**
 * \brief A parsed and checked graph document.
 */
struct GraphDescription
{
    uint32_t ranks{0};            //!< number of ranks
    uint32_t switches{0};         //!< number of switches
    std::vector<GraphLink> links; //!< links in document order
};

/**
 * \brief Builds a fabric from a JSON edge list.
 */
class GraphFabricHelper : public FabricHelper
{
public:
    GraphFabricHelper();
    /**
     * \brief Use this JSON text (parsed and checked by Install).
     * \param text the document
     * \param name what to call it in messages
     */
    void SetJson(const std::string& text, const std::string& name = "graph text");
    /// \brief Read the JSON from a file (checked by Install; every message names the file).
    void ReadFile(const std::string& path);
    Ptr<Cluster> Install() override;

    /**
     * \brief Parse and check a graph document without building anything (the entry
     * point for fuzzing). Throws std::invalid_argument "<name>: <field>: ...".
     */
    static GraphDescription Parse(const std::string& text, const std::string& name);
    /// \brief Check a graph document already parsed (its root field).
    static GraphDescription Read(const JsonField& doc);

private:
    std::string m_text;
    std::string m_name{"graph text"};
    std::optional<JsonReader> m_file; //!< set by ReadFile
};

} // namespace ns3

#endif // MLNET_GRAPH_FABRIC_HELPER_H
