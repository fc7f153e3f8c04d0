// SPDX-License-Identifier: GPL-2.0-only
/*
 * HbDomainHelper: one high-bandwidth (HB) domain alone — K GPUs joined by a
 * non-blocking NVSwitch node over links of class "nvlink" (per-GPU rate and delay
 * as in RailFabricHelper: 3600 Gbps per direction and 25 ns by default; K = 8 for
 * a DGX H100, up to 256 for a GH200 NVLink Switch System). Useful to time
 * intra-domain collectives (tensor parallelism) in isolation.
 *
 * What it leaves out: NVSwitch internals (one output-queued node) and NVLink
 * protocol overheads beyond PPP framing.
 */
#ifndef RAILONLY_HB_DOMAIN_HELPER_H
#define RAILONLY_HB_DOMAIN_HELPER_H

#include "ns3/rail-fabric-helper.h"

namespace ns3
{

/**
 * \brief Builds one HB domain: K GPUs on an NVSwitch.
 */
class HbDomainHelper : public RailFabricHelper
{
public:
    /// \param domainSize GPUs in the domain K (>= 2)
    explicit HbDomainHelper(uint32_t domainSize);
    Ptr<Cluster> Install() override;
};

} // namespace ns3

#endif // RAILONLY_HB_DOMAIN_HELPER_H
