// SPDX-License-Identifier: GPL-2.0-only
/*
 * Optimizer: base of the element-wise optimizers that update a flat parameter
 * vector from an averaged gradient (SgdMomentum, AdamW), with a step counter and
 * a learning-rate schedule (linear warm-up, then optional cosine decay).
 *
 * What it models. The optimizer owns its state vectors (momentum; Adam's first
 * and second moments), each as long as the parameter range it was initialized
 * for. Every update is element-wise, so an optimizer initialized for a slice of
 * the parameters (a Checkmate shadow shard) computes bit for bit what the
 * full-vector optimizer computes on that slice, provided it sees the same step
 * counter: the schedule depends on the step only.
 *
 * Left out: global-norm gradient clipping (not element-wise: it would need a
 * cross-shard reduction), mixed-precision loss scaling and skipped steps.
 */
#ifndef MLNET_OPTIMIZER_H
#define MLNET_OPTIMIZER_H

#include "ns3/object.h"

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Base of element-wise optimizers with a step counter and an LR schedule.
 */
class Optimizer : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    Optimizer();
    ~Optimizer() override;

    /// \brief Zero the state for `n` parameters and the step counter.
    void Initialize(uint64_t n);
    /**
     * \brief One update: increments the step counter, then updates params in place.
     * \param params parameters (Initialize's n floats)
     * \param grad gradient (same length)
     */
    void Step(Eigen::Ref<Eigen::VectorXf> params, const Eigen::Ref<const Eigen::VectorXf>& grad);

    /// \return updates applied so far (the step counter)
    uint64_t GetStep() const;
    /// \return the learning rate used by update number `step` (1-based)
    double GetLearningRate(uint64_t step) const;
    /// \return the state vectors (copies)
    const std::vector<Eigen::VectorXf>& GetState() const;
    /// \brief Replace state and step counter (restore from a checkpoint).
    void SetState(uint64_t step, const std::vector<Eigen::VectorXf>& state);
    /// \return number of state vectors per parameter (SGD-momentum 1, AdamW 2)
    virtual uint32_t GetStateVectors() const = 0;
    /// \return short name, e.g. "adamw"
    virtual std::string GetName() const = 0;

protected:
    void DoDispose() override;
    /**
     * \brief The update rule.
     * \param params parameters to update in place
     * \param grad gradient
     * \param lr learning rate of this step
     * \param step this update's number (1-based)
     */
    virtual void DoStep(Eigen::Ref<Eigen::VectorXf> params,
                        const Eigen::Ref<const Eigen::VectorXf>& grad,
                        float lr,
                        uint64_t step) = 0;

    std::vector<Eigen::VectorXf> m_state; //!< state vectors

private:
    double m_lr{0.05};      //!< attribute LearningRate
    uint32_t m_warmup{0};   //!< attribute WarmupSteps
    uint32_t m_decay{0};    //!< attribute DecaySteps
    double m_minLrRatio{0}; //!< attribute MinLearningRateRatio
    uint64_t m_step{0};     //!< updates applied
};

} // namespace ns3

#endif // MLNET_OPTIMIZER_H
