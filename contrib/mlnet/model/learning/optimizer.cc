// SPDX-License-Identifier: GPL-2.0-only
#include "optimizer.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetOptimizer");
NS_OBJECT_ENSURE_REGISTERED(Optimizer);

TypeId
Optimizer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Optimizer")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddAttribute("LearningRate",
                          "Peak learning rate (dimensionless, > 0).",
                          DoubleValue(0.05),
                          MakeDoubleAccessor(&Optimizer::m_lr),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("WarmupSteps",
                          "Linear warm-up: update s uses LearningRate x min(1, s/WarmupSteps) "
                          "(steps; 0 = none).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&Optimizer::m_warmup),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DecaySteps",
                          "Cosine decay after warm-up, reaching MinLearningRateRatio x "
                          "LearningRate after this many steps (steps; 0 = constant).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&Optimizer::m_decay),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MinLearningRateRatio",
                          "Floor of the cosine decay as a fraction of LearningRate.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&Optimizer::m_minLrRatio),
                          MakeDoubleChecker<double>(0, 1));
    return tid;
}

Optimizer::Optimizer() = default;
Optimizer::~Optimizer() = default;

void
Optimizer::DoDispose()
{
    m_state.clear();
    Object::DoDispose();
}

void
Optimizer::Initialize(uint64_t n)
{
    m_state.assign(GetStateVectors(), Eigen::VectorXf::Zero(static_cast<Eigen::Index>(n)));
    m_step = 0;
}

double
Optimizer::GetLearningRate(uint64_t step) const
{
    double lr = m_lr;
    if (m_warmup > 0 && step < m_warmup)
    {
        return lr * static_cast<double>(step) / m_warmup;
    }
    if (m_decay > 0)
    {
        double s = static_cast<double>(std::min<uint64_t>(step - m_warmup, m_decay));
        double cosine = 0.5 * (1.0 + std::cos(M_PI * s / m_decay));
        lr = lr * (m_minLrRatio + (1.0 - m_minLrRatio) * cosine);
    }
    return lr;
}

void
Optimizer::Step(Eigen::Ref<Eigen::VectorXf> params, const Eigen::Ref<const Eigen::VectorXf>& grad)
{
    NS_ASSERT_MSG(!m_state.empty() || GetStateVectors() == 0, "call Initialize first");
    NS_ASSERT_MSG(params.size() == grad.size() &&
                      (m_state.empty() || m_state[0].size() == params.size()),
                  "optimizer initialized for " << (m_state.empty() ? 0 : m_state[0].size())
                                               << " parameters, got " << params.size());
    ++m_step;
    DoStep(params, grad, static_cast<float>(GetLearningRate(m_step)), m_step);
}

uint64_t
Optimizer::GetStep() const
{
    return m_step;
}

const std::vector<Eigen::VectorXf>&
Optimizer::GetState() const
{
    return m_state;
}

void
Optimizer::SetState(uint64_t step, const std::vector<Eigen::VectorXf>& state)
{
    if (state.size() != GetStateVectors())
    {
        throw std::invalid_argument(GetName() + " needs " + std::to_string(GetStateVectors()) +
                                    " state vectors, got " + std::to_string(state.size()));
    }
    m_state = state;
    m_step = step;
}

} // namespace ns3
