// SPDX-License-Identifier: GPL-2.0-only
/*
 * FluidTransfers: see fluid-transfers.h.
 */
#include "fluid-transfers.h"

#include "line-rate-transfers.h"
#include "max-min-transfers.h"

namespace ns3
{

std::string
ToString(FluidSharing sharing)
{
    return sharing == FluidSharing::LINE_RATE ? "line-rate" : "max-min";
}

std::unique_ptr<FluidTransfers>
FluidTransfers::Create(FluidSharing sharing,
                       std::vector<double> capacity,
                       uint32_t nicBacklogPackets)
{
    if (sharing == FluidSharing::LINE_RATE)
    {
        return std::make_unique<LineRateTransfers>(std::move(capacity), nicBacklogPackets);
    }
    return std::make_unique<MaxMinTransfers>(std::move(capacity), nicBacklogPackets);
}

void
FluidTransfers::SetBuffers(std::vector<double> /* bytes */, std::vector<bool> /* drop */)
{
}

FluidTransfers::Moved
FluidTransfers::SetRoute(uint32_t /* handle */,
                         double /* t */,
                         const FluidNetwork::LinkShares& /* route */,
                         uint32_t /* senderLinks */)
{
    return {};
}

bool
FluidTransfers::IsSending(uint32_t /* handle */) const
{
    return false;
}

double
FluidTransfers::GetLost(uint32_t /* handle */) const
{
    return 0;
}

FluidTransfers::LinkQueue
FluidTransfers::GetLinkQueue(uint32_t /* key */) const
{
    return {};
}

} // namespace ns3
