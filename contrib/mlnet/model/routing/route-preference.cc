// SPDX-License-Identifier: GPL-2.0-only
#include "route-preference.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRoutePreference");
NS_OBJECT_ENSURE_REGISTERED(RoutePreference);

TypeId
RoutePreference::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoutePreference").SetParent<Object>().SetGroupName("Mlnet");
    return tid;
}

RoutePreference::RoutePreference() = default;
RoutePreference::~RoutePreference() = default;

uint64_t
RoutePreference::Context(const Cluster& /* cluster */,
                         uint32_t /* nodeId */,
                         uint32_t dstRank) const
{
    return (uint64_t{1} << 32) | dstRank;
}

bool
RoutePreference::IgnoresDestination(const Cluster& /* cluster */,
                                    uint32_t /* nodeId */,
                                    const std::vector<uint32_t>& /* candidates */) const
{
    return false;
}

bool
RoutePreference::ContextsRepeat(const Cluster& /* cluster */,
                                uint32_t /* previousRank */,
                                uint32_t /* dstRank */,
                                std::vector<uint32_t>& except) const
{
    except.clear();
    return false;
}

} // namespace ns3
