// SPDX-License-Identifier: GPL-2.0-only
#include "real-model.h"

#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRealModel");
NS_OBJECT_ENSURE_REGISTERED(RealModel);

TypeId
RealModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RealModel")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<RealModel>()
            .AddAttribute("Inputs",
                          "Features per sample (count, >= 1).",
                          UintegerValue(16),
                          MakeUintegerAccessor(&RealModel::m_inputs),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Hidden",
                          "Width of the tanh hidden layer (count); 0 gives multinomial "
                          "logistic regression.",
                          UintegerValue(32),
                          MakeUintegerAccessor(&RealModel::m_hidden),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Classes",
                          "Output classes (count, >= 2).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&RealModel::m_classes),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RealModel::RealModel() = default;
RealModel::~RealModel() = default;

void
RealModel::Validate() const
{
    if (m_inputs == 0)
    {
        throw std::invalid_argument("RealModel: Inputs must be >= 1");
    }
    if (m_classes < 2)
    {
        throw std::invalid_argument("RealModel: Classes must be >= 2, got " +
                                    std::to_string(m_classes));
    }
}

uint64_t
RealModel::GetParameterCount() const
{
    uint64_t d = m_inputs;
    uint64_t k = m_classes;
    uint64_t h = m_hidden;
    return h == 0 ? k * d + k : h * d + h + k * h + k;
}

uint32_t
RealModel::GetInputs() const
{
    return m_inputs;
}

uint32_t
RealModel::GetClasses() const
{
    return m_classes;
}

uint32_t
RealModel::GetHidden() const
{
    return m_hidden;
}

Eigen::VectorXf
RealModel::InitialParameters(int64_t stream) const
{
    Validate();
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(stream);
    Eigen::VectorXf p = Eigen::VectorXf::Zero(static_cast<Eigen::Index>(GetParameterCount()));
    auto fill = [&](Eigen::Index offset, Eigen::Index count, double fanIn) {
        double a = 1.0 / std::sqrt(fanIn);
        for (Eigen::Index i = 0; i < count; ++i)
        {
            p[offset + i] = static_cast<float>(u->GetValue(-a, a));
        }
    };
    Eigen::Index d = m_inputs;
    Eigen::Index k = m_classes;
    Eigen::Index h = m_hidden;
    if (h == 0)
    {
        fill(0, k * d, d);
    }
    else
    {
        fill(0, h * d, d);
        fill(h * d + h, k * h, h);
    }
    return p;
}

void
RealModel::CheckBatch(const Eigen::VectorXf& params,
                      const Eigen::MatrixXf& x,
                      const std::vector<uint32_t>& y) const
{
    NS_ASSERT_MSG(static_cast<uint64_t>(params.size()) == GetParameterCount(),
                  "parameter vector of " << params.size() << " floats, model has "
                                         << GetParameterCount());
    NS_ASSERT_MSG(x.rows() == m_inputs, "samples have " << x.rows() << " features");
    NS_ASSERT_MSG(static_cast<size_t>(x.cols()) == y.size() && !y.empty(), "bad batch");
}

Eigen::MatrixXf
RealModel::Forward(const Eigen::VectorXf& params,
                   const Eigen::MatrixXf& x,
                   Eigen::MatrixXf* h) const
{
    Eigen::Index d = m_inputs;
    Eigen::Index k = m_classes;
    Eigen::Index hw = m_hidden;
    if (hw == 0)
    {
        Eigen::Map<const Eigen::MatrixXf> w(params.data(), k, d);
        Eigen::Map<const Eigen::VectorXf> b(params.data() + k * d, k);
        return (w * x).colwise() + b;
    }
    Eigen::Map<const Eigen::MatrixXf> w1(params.data(), hw, d);
    Eigen::Map<const Eigen::VectorXf> b1(params.data() + hw * d, hw);
    Eigen::Map<const Eigen::MatrixXf> w2(params.data() + hw * d + hw, k, hw);
    Eigen::Map<const Eigen::VectorXf> b2(params.data() + hw * d + hw + k * hw, k);
    Eigen::MatrixXf a = ((w1 * x).colwise() + b1).array().tanh().matrix();
    Eigen::MatrixXf z = (w2 * a).colwise() + b2;
    if (h)
    {
        *h = std::move(a);
    }
    return z;
}

namespace
{
/// Softmax of each column, in place; returns the summed cross-entropy (double).
double
SoftmaxCrossEntropy(Eigen::MatrixXf& z, const std::vector<uint32_t>& y)
{
    double loss = 0;
    for (Eigen::Index j = 0; j < z.cols(); ++j)
    {
        float m = z.col(j).maxCoeff();
        z.col(j) = (z.col(j).array() - m).exp().matrix();
        float sum = z.col(j).sum();
        z.col(j) /= sum;
        loss -= std::log(std::max(static_cast<double>(z(y[j], j)), 1e-30));
    }
    return loss;
}
} // namespace

double
RealModel::Loss(const Eigen::VectorXf& params,
                const Eigen::MatrixXf& x,
                const std::vector<uint32_t>& y) const
{
    CheckBatch(params, x, y);
    Eigen::MatrixXf z = Forward(params, x, nullptr);
    return SoftmaxCrossEntropy(z, y) / static_cast<double>(y.size());
}

Eigen::VectorXf
RealModel::Gradient(const Eigen::VectorXf& params,
                    const Eigen::MatrixXf& x,
                    const std::vector<uint32_t>& y,
                    double* loss) const
{
    CheckBatch(params, x, y);
    Eigen::MatrixXf a;
    Eigen::MatrixXf p = Forward(params, x, &a);
    double l = SoftmaxCrossEntropy(p, y);
    if (loss)
    {
        *loss = l / static_cast<double>(y.size());
    }
    // dL/dz = (softmax - onehot) / batch
    float inv = 1.0f / static_cast<float>(y.size());
    for (Eigen::Index j = 0; j < p.cols(); ++j)
    {
        p(y[j], j) -= 1.0f;
    }
    p *= inv;
    Eigen::Index d = m_inputs;
    Eigen::Index k = m_classes;
    Eigen::Index hw = m_hidden;
    Eigen::VectorXf g(params.size());
    if (hw == 0)
    {
        Eigen::Map<Eigen::MatrixXf>(g.data(), k, d) = p * x.transpose();
        g.segment(k * d, k) = p.rowwise().sum();
        return g;
    }
    Eigen::Map<const Eigen::MatrixXf> w2(params.data() + hw * d + hw, k, hw);
    Eigen::MatrixXf da = w2.transpose() * p;
    Eigen::MatrixXf dpre = (da.array() * (1.0f - a.array().square())).matrix();
    Eigen::Map<Eigen::MatrixXf>(g.data(), hw, d) = dpre * x.transpose();
    g.segment(hw * d, hw) = dpre.rowwise().sum();
    Eigen::Map<Eigen::MatrixXf>(g.data() + hw * d + hw, k, hw) = p * a.transpose();
    g.segment(hw * d + hw + k * hw, k) = p.rowwise().sum();
    return g;
}

double
RealModel::Accuracy(const Eigen::VectorXf& params,
                    const Eigen::MatrixXf& x,
                    const std::vector<uint32_t>& y) const
{
    CheckBatch(params, x, y);
    Eigen::MatrixXf z = Forward(params, x, nullptr);
    uint32_t right = 0;
    for (Eigen::Index j = 0; j < z.cols(); ++j)
    {
        Eigen::Index best;
        z.col(j).maxCoeff(&best);
        right += static_cast<uint32_t>(best) == y[j] ? 1 : 0;
    }
    return static_cast<double>(right) / static_cast<double>(y.size());
}

} // namespace ns3
