// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-registry.h"

#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFabricRegistry");

namespace
{

/// One registered fabric.
struct Entry
{
    std::string description;           //!< one line for help texts
    std::vector<std::string> failable; //!< link classes random failures pick from
    FabricRegistry::Builder builder;   //!< request -> configured helper
};

/// The registry, created on first use (registrations run during static initialisation).
std::map<std::string, Entry>&
Entries()
{
    static std::map<std::string, Entry> entries;
    return entries;
}

const Entry&
Find(const std::string& name)
{
    auto it = Entries().find(name);
    if (it == Entries().end())
    {
        throw std::invalid_argument("unknown fabric '" + name +
                                    "'; valid: " + FabricRegistry::NameList());
    }
    return it->second;
}

} // namespace

void
FabricRegistry::Register(const std::string& name,
                         const std::string& description,
                         const std::vector<std::string>& failable,
                         Builder builder)
{
    NS_ASSERT_MSG(!Entries().count(name), "fabric '" << name << "' registered twice");
    Entries()[name] = Entry{description, failable, std::move(builder)};
}

bool
FabricRegistry::Has(const std::string& name)
{
    return Entries().count(name) > 0;
}

std::vector<std::string>
FabricRegistry::Names()
{
    std::vector<std::string> names;
    for (const auto& [name, entry] : Entries())
    {
        names.push_back(name);
    }
    return names;
}

std::string
FabricRegistry::NameList()
{
    std::string list;
    for (const auto& name : Names())
    {
        list += (list.empty() ? "" : ", ") + name;
    }
    return list;
}

std::string
FabricRegistry::Describe(const std::string& name)
{
    return Find(name).description;
}

std::vector<std::string>
FabricRegistry::FailableLinkClasses(const std::string& name)
{
    return Find(name).failable;
}

Ptr<Cluster>
FabricRegistry::Build(const FabricRequest& request, std::shared_ptr<FabricHelper>* helper)
{
    const Entry& entry = Find(request.fabric);
    std::shared_ptr<FabricHelper> h = entry.builder(request);
    h->SetLinkRate(request.linkRate);
    h->SetLinkDelay(request.linkDelay);
    h->SetLinkJitter(request.linkJitter);
    h->SetMtu(request.mtu);
    h->SetQueueSize(request.queue);
    h->SetSwitchEcn(request.ecn);
    h->SetDataPath(request.dataPath);
    h->SetPfc(request.pfc);
    h->SetLoadBalancing(request.loadBalancing);
    h->SetPartitions(request.partitions);
    NS_LOG_INFO("building " << request.fabric << " of " << request.ranks << " ranks");
    Ptr<Cluster> cluster = h->Install();
    if (helper)
    {
        *helper = h;
    }
    return cluster;
}

FabricRegistration::FabricRegistration(const std::string& name,
                                       const std::string& description,
                                       const std::vector<std::string>& failable,
                                       FabricRegistry::Builder builder)
{
    FabricRegistry::Register(name, description, failable, std::move(builder));
}

} // namespace ns3
