// SPDX-License-Identifier: GPL-2.0-only
#include "adamw.h"

#include "ns3/double.h"
#include "ns3/log.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetAdamW");
NS_OBJECT_ENSURE_REGISTERED(AdamW);

TypeId
AdamW::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AdamW")
                            .SetParent<Optimizer>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<AdamW>()
                            .AddAttribute("Beta1",
                                          "First-moment decay (dimensionless, 0..1).",
                                          DoubleValue(0.9),
                                          MakeDoubleAccessor(&AdamW::m_beta1),
                                          MakeDoubleChecker<double>(0, 1))
                            .AddAttribute("Beta2",
                                          "Second-moment decay (dimensionless, 0..1).",
                                          DoubleValue(0.999),
                                          MakeDoubleAccessor(&AdamW::m_beta2),
                                          MakeDoubleChecker<double>(0, 1))
                            .AddAttribute("Epsilon",
                                          "Denominator guard (dimensionless, > 0).",
                                          DoubleValue(1e-8),
                                          MakeDoubleAccessor(&AdamW::m_epsilon),
                                          MakeDoubleChecker<double>(0))
                            .AddAttribute("WeightDecay",
                                          "Decoupled weight decay (dimensionless, per step, "
                                          "scaled by the learning rate).",
                                          DoubleValue(0.01),
                                          MakeDoubleAccessor(&AdamW::m_weightDecay),
                                          MakeDoubleChecker<double>(0));
    return tid;
}

AdamW::AdamW() = default;
AdamW::~AdamW() = default;

uint32_t
AdamW::GetStateVectors() const
{
    return 2;
}

std::string
AdamW::GetName() const
{
    return "adamw";
}

void
AdamW::DoStep(Eigen::Ref<Eigen::VectorXf> params,
              const Eigen::Ref<const Eigen::VectorXf>& grad,
              float lr,
              uint64_t step)
{
    const float b1 = static_cast<float>(m_beta1);
    const float b2 = static_cast<float>(m_beta2);
    const float eps = static_cast<float>(m_epsilon);
    const float wd = static_cast<float>(m_weightDecay);
    const float c1 = static_cast<float>(1.0 - std::pow(m_beta1, static_cast<double>(step)));
    const float c2 = static_cast<float>(1.0 - std::pow(m_beta2, static_cast<double>(step)));
    Eigen::VectorXf& m = m_state[0];
    Eigen::VectorXf& v = m_state[1];
    m.array() = b1 * m.array() + (1.0f - b1) * grad.array();
    v.array() = b2 * v.array() + (1.0f - b2) * grad.array().square();
    // The square root goes through std::sqrt on every element: Eigen's vectorized
    // sqrt (EIGEN_FAST_MATH) is an rsqrt approximation, so a vector's result would
    // depend on where each element sits in a SIMD packet, and a shard (a Checkmate
    // shadow) would not reproduce the full vector bit for bit.
    auto exactSqrt = [](float x) { return std::sqrt(x); };
    params.array() -= lr * ((m.array() / c1) / ((v.array() / c2).unaryExpr(exactSqrt) + eps) +
                            wd * params.array());
}

} // namespace ns3
