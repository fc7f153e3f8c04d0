// SPDX-License-Identifier: GPL-2.0-only
/*
 * TraceNames: the names under which the suite's cluster-wide models are reachable
 * by ns-3 Config paths.
 *
 * A model that spans many nodes (a Cluster, a transport installed on a cluster, a
 * collective run by a runner, a training driver, a trainer, an OCS plane) is added
 * to ns-3's Names when it is set up, so that
 *   Config::Connect("/Names/Transport/PacketSent", ...)
 * reaches it whoever created it. Per-node models are aggregated to their node
 * instead (FastForwarding, GradientMirror) or are applications (ShadowNode), and are
 * reached through /NodeList/<i>/...
 *
 * Names are unique within one simulation: the first object of a role gets the bare
 * name ("Transport"), the k-th "Transport-k". At Simulator::Destroy the names are
 * cleared (ns-3 3.37's Names has no removal of single names, so Names::Clear() is
 * called: a name always refers to an object of the simulation that is ending), so a
 * program that runs several simulations gets the same names in each, and no object
 * outlives its simulation through Names.
 *
 * Not covered: models created and used inside one call (analytic models such as
 * TopoOptSearch or RailCostModel): the caller holds them and connects on the object.
 */
#ifndef MLNET_TRACE_NAMES_H
#define MLNET_TRACE_NAMES_H

#include "ns3/object.h"

#include <string>

namespace ns3
{

/**
 * \brief Registers cluster-wide models with ns-3's Names, one simulation at a time.
 */
class TraceNames
{
public:
    /**
     * \brief Give object a unique name built from role ("Transport", "Transport-2", ...)
     * unless it has a name already; the names are cleared at Simulator::Destroy.
     * \return the object's Config path prefix, "/Names/<name>"
     */
    static std::string Register(Ptr<Object> object, const std::string& role);
    /// \return "/Names/<name>" of a registered object, or "" if it has none
    static std::string PathOf(Ptr<Object> object);
    /// \brief Forget every name now (also done at Simulator::Destroy).
    static void Clear();
};

} // namespace ns3

#endif // MLNET_TRACE_NAMES_H
