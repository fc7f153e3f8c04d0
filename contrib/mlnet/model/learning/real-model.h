// SPDX-License-Identifier: GPL-2.0-only
/*
 * RealModel: a small real neural network (a one-hidden-layer perceptron with tanh,
 * or multinomial logistic regression when Hidden = 0) trained on real data, so
 * that the gradients mlnet's collectives carry are real numbers.
 *
 * What it models. All parameters live in ONE flat Eigen::VectorXf laid out
 * [W1 (Hidden x Inputs, column-major), b1 (Hidden), W2 (Classes x Hidden), b2
 * (Classes)] (logistic regression: [W (Classes x Inputs), b (Classes)]), so the
 * gradient vector maps 1:1 onto an all-reduce buffer of 4 x GetParameterCount()
 * bytes. The loss is the mean softmax cross-entropy over a batch; Gradient
 * returns its exact derivative (backpropagation, float arithmetic, the loss
 * accumulated in double). The size is configurable (Inputs, Hidden, Classes),
 * which scales the traffic.
 *
 * Left out: GPU kernels and mixed precision (float32 throughout), dropout,
 * normalization layers; compute time is not derived from FLOPs (see
 * DataParallelTrainer::ComputeTime).
 */
#ifndef MLNET_REAL_MODEL_H
#define MLNET_REAL_MODEL_H

#include "ns3/object.h"

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief A real MLP / logistic-regression model with a flat parameter vector.
 */
class RealModel : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RealModel();
    ~RealModel() override;

    /// \return number of parameters (floats)
    uint64_t GetParameterCount() const;
    /// \return inputs per sample
    uint32_t GetInputs() const;
    /// \return number of classes
    uint32_t GetClasses() const;
    /// \return hidden width (0: logistic regression)
    uint32_t GetHidden() const;

    /**
     * \brief Initial parameters: weights uniform in +-1/sqrt(fan-in) drawn from an
     * ns-3 UniformRandomVariable on stream `stream`, biases zero.
     */
    Eigen::VectorXf InitialParameters(int64_t stream) const;

    /**
     * \brief Mean cross-entropy of a batch.
     * \param params parameters (GetParameterCount floats)
     * \param x samples, one per column (Inputs rows)
     * \param y labels (0..Classes-1), one per column of x
     * \return the loss
     */
    double Loss(const Eigen::VectorXf& params,
                const Eigen::MatrixXf& x,
                const std::vector<uint32_t>& y) const;
    /**
     * \brief Gradient of Loss with respect to params (backpropagation).
     * \param loss if not null, receives the batch loss
     */
    Eigen::VectorXf Gradient(const Eigen::VectorXf& params,
                             const Eigen::MatrixXf& x,
                             const std::vector<uint32_t>& y,
                             double* loss = nullptr) const;
    /// \return fraction of samples whose arg-max class equals the label
    double Accuracy(const Eigen::VectorXf& params,
                    const Eigen::MatrixXf& x,
                    const std::vector<uint32_t>& y) const;

    /// \brief Throw std::invalid_argument when the shape is impossible.
    void Validate() const;

private:
    /// Class scores (Classes x batch); hidden activations returned in h if not null.
    Eigen::MatrixXf Forward(const Eigen::VectorXf& params,
                            const Eigen::MatrixXf& x,
                            Eigen::MatrixXf* h) const;
    void CheckBatch(const Eigen::VectorXf& params,
                    const Eigen::MatrixXf& x,
                    const std::vector<uint32_t>& y) const;

    uint32_t m_inputs{16}; //!< attribute Inputs
    uint32_t m_hidden{32}; //!< attribute Hidden
    uint32_t m_classes{4}; //!< attribute Classes
};

} // namespace ns3

#endif // MLNET_REAL_MODEL_H
