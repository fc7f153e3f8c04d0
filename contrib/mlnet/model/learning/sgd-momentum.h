// SPDX-License-Identifier: GPL-2.0-only
/*
 * SgdMomentum: stochastic gradient descent with heavy-ball momentum and L2
 * weight decay, PyTorch's formulation: buf = mu*buf + (g + wd*theta);
 * theta -= lr*buf. One state vector (the momentum buffer).
 *
 * Left out: Nesterov momentum and dampening.
 */
#ifndef MLNET_SGD_MOMENTUM_H
#define MLNET_SGD_MOMENTUM_H

#include "ns3/optimizer.h"

namespace ns3
{

/**
 * \brief SGD with momentum and weight decay.
 */
class SgdMomentum : public Optimizer
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    SgdMomentum();
    ~SgdMomentum() override;
    uint32_t GetStateVectors() const override;
    std::string GetName() const override;

protected:
    void DoStep(Eigen::Ref<Eigen::VectorXf> params,
                const Eigen::Ref<const Eigen::VectorXf>& grad,
                float lr,
                uint64_t step) override;

private:
    double m_momentum{0.9};    //!< attribute Momentum
    double m_weightDecay{0.0}; //!< attribute WeightDecay
};

} // namespace ns3

#endif // MLNET_SGD_MOMENTUM_H
