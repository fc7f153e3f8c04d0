// SPDX-License-Identifier: GPL-2.0-only
#include "sgd-momentum.h"

#include "ns3/double.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetSgdMomentum");
NS_OBJECT_ENSURE_REGISTERED(SgdMomentum);

TypeId
SgdMomentum::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SgdMomentum")
                            .SetParent<Optimizer>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<SgdMomentum>()
                            .AddAttribute("Momentum",
                                          "Momentum coefficient mu (dimensionless, 0..1).",
                                          DoubleValue(0.9),
                                          MakeDoubleAccessor(&SgdMomentum::m_momentum),
                                          MakeDoubleChecker<double>(0, 1))
                            .AddAttribute("WeightDecay",
                                          "L2 weight decay added to the gradient "
                                          "(dimensionless, per step).",
                                          DoubleValue(0.0),
                                          MakeDoubleAccessor(&SgdMomentum::m_weightDecay),
                                          MakeDoubleChecker<double>(0));
    return tid;
}

SgdMomentum::SgdMomentum() = default;
SgdMomentum::~SgdMomentum() = default;

uint32_t
SgdMomentum::GetStateVectors() const
{
    return 1;
}

std::string
SgdMomentum::GetName() const
{
    return "sgd-momentum";
}

void
SgdMomentum::DoStep(Eigen::Ref<Eigen::VectorXf> params,
                    const Eigen::Ref<const Eigen::VectorXf>& grad,
                    float lr,
                    uint64_t /* step */)
{
    const float mu = static_cast<float>(m_momentum);
    const float wd = static_cast<float>(m_weightDecay);
    Eigen::VectorXf& buf = m_state[0];
    buf.array() = mu * buf.array() + (grad.array() + wd * params.array());
    params.array() -= lr * buf.array();
}

} // namespace ns3
