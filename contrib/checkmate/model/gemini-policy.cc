// SPDX-License-Identifier: GPL-2.0-only
#include "gemini-policy.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckmateGeminiPolicy");
NS_OBJECT_ENSURE_REGISTERED(GeminiPolicy);

TypeId
GeminiPolicy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GeminiPolicy")
            .SetParent<Object>()
            .SetGroupName("Checkmate")
            .AddConstructor<GeminiPolicy>()
            .AddAttribute("Replicas",
                          "Copies of each checkpoint shard, counting the owner's (count, >= 2).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&GeminiPolicy::m_replicas),
                          MakeUintegerChecker<uint32_t>(2))
            .AddAttribute("IdleUtilization",
                          "Fraction of the NIC's idle time per iteration that checkpoint "
                          "traffic may use (0..1].",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&GeminiPolicy::m_idleUse),
                          MakeDoubleChecker<double>(1e-9, 1));
    return tid;
}

GeminiPolicy::GeminiPolicy() = default;
GeminiPolicy::~GeminiPolicy() = default;

uint64_t
GeminiPolicy::GetBytesPerWorker(uint64_t checkpointBytes, uint32_t workers) const
{
    NS_ASSERT(workers > 0);
    return (m_replicas - 1) * ((checkpointBytes + workers - 1) / workers);
}

uint32_t
GeminiPolicy::ChooseInterval(uint64_t checkpointBytes,
                             uint32_t workers,
                             DataRate rate,
                             Time idle) const
{
    double idleBytes = m_idleUse * rate.GetBitRate() / 8.0 * idle.GetSeconds();
    if (idleBytes <= 0)
    {
        throw std::invalid_argument("Gemini needs idle network time per iteration; the "
                                    "all-reduce fills the whole iteration");
    }
    double k = std::ceil(GetBytesPerWorker(checkpointBytes, workers) / idleBytes);
    return k < 1 ? 1 : static_cast<uint32_t>(k);
}

} // namespace ns3
