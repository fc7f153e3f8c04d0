// SPDX-License-Identifier: GPL-2.0-only
/*
 * AdamW: Adam with decoupled weight decay (Loshchilov & Hutter), PyTorch's
 * formulation: m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2;
 * theta -= lr*( (m/(1-b1^t)) / (sqrt(v/(1-b2^t)) + eps) + wd*theta ).
 * Two state vectors (m, v); the bias corrections use the step counter t.
 *
 * Left out: AMSGrad, fused/foreach kernels (numerically equivalent, not bit-equal).
 */
#ifndef MLNET_ADAMW_H
#define MLNET_ADAMW_H

#include "ns3/optimizer.h"

namespace ns3
{

/**
 * \brief AdamW optimizer.
 */
class AdamW : public Optimizer
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    AdamW();
    ~AdamW() override;
    uint32_t GetStateVectors() const override;
    std::string GetName() const override;

protected:
    void DoStep(Eigen::Ref<Eigen::VectorXf> params,
                const Eigen::Ref<const Eigen::VectorXf>& grad,
                float lr,
                uint64_t step) override;

private:
    double m_beta1{0.9};        //!< attribute Beta1
    double m_beta2{0.999};      //!< attribute Beta2
    double m_epsilon{1e-8};     //!< attribute Epsilon
    double m_weightDecay{0.01}; //!< attribute WeightDecay
};

} // namespace ns3

#endif // MLNET_ADAMW_H
