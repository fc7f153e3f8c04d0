// SPDX-License-Identifier: GPL-2.0-only
#include "ecn-marker.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetEcnMarker");
NS_OBJECT_ENSURE_REGISTERED(EcnMarker);

TypeId
EcnMarker::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EcnMarker")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<EcnMarker>()
            .AddAttribute("Kmin",
                          "Queue below or at which no frame is marked (bytes): 400 KB, "
                          "HPCC's ns-3 DCQCN setting for 100 Gbps links (KMIN_MAP); the DCQCN "
                          "paper's 5 KB was for 40 Gbps.",
                          UintegerValue(400000),
                          MakeUintegerAccessor(&EcnMarker::m_kMin),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Kmax",
                          "Queue above which every ECN-capable frame is marked (bytes): "
                          "1600 KB, HPCC's 100 Gbps setting (KMAX_MAP; DCQCN paper at 40 "
                          "Gbps: 200 KB). Must exceed Kmin.",
                          UintegerValue(1600000),
                          MakeUintegerAccessor(&EcnMarker::m_kMax),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Pmax",
                          "Marking probability at Kmax, the top of the linear ramp: 0.2, "
                          "HPCC's 100 Gbps setting (PMAX_MAP; DCQCN paper: 0.01).",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&EcnMarker::m_pMax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddTraceSource("Mark",
                            "A frame was marked CE: bytes queued ahead of it.",
                            MakeTraceSourceAccessor(&EcnMarker::m_markTrace),
                            "ns3::EcnMarker::MarkTracedCallback");
    return tid;
}

EcnMarker::EcnMarker()
    : m_draw(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

EcnMarker::~EcnMarker() = default;

void
EcnMarker::DoDispose()
{
    m_draw = nullptr;
    Object::DoDispose();
}

void
EcnMarker::Validate() const
{
    if (m_kMin >= m_kMax || m_pMax <= 0)
    {
        throw std::invalid_argument("EcnMarker: Kmin (" + std::to_string(m_kMin) +
                                    " bytes) must be below Kmax (" + std::to_string(m_kMax) +
                                    " bytes) and Pmax (" + std::to_string(m_pMax) +
                                    ") above 0; fix the ns3::EcnMarker attributes");
    }
}

double
EcnMarker::GetProbability(uint64_t queuedBytes) const
{
    Validate();
    if (queuedBytes <= m_kMin)
    {
        return 0.0;
    }
    if (queuedBytes > m_kMax)
    {
        return 1.0;
    }
    return m_pMax * static_cast<double>(queuedBytes - m_kMin) /
           static_cast<double>(m_kMax - m_kMin);
}

bool
EcnMarker::ShouldMark(uint64_t queuedBytes)
{
    double p = GetProbability(queuedBytes);
    // No draw at the certain ends: the stream only advances on the ramp.
    bool mark = p >= 1.0 || (p > 0.0 && m_draw->GetValue() < p);
    if (mark)
    {
        ++m_marks;
        m_markTrace(queuedBytes);
    }
    return mark;
}

uint64_t
EcnMarker::GetMarks() const
{
    return m_marks;
}

int64_t
EcnMarker::AssignStreams(int64_t stream)
{
    m_draw->SetStream(stream);
    return 1;
}

} // namespace ns3
