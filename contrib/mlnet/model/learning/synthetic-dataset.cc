// SPDX-License-Identifier: GPL-2.0-only
#include "synthetic-dataset.h"

#include "ns3/double.h"
#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetSyntheticDataset");
NS_OBJECT_ENSURE_REGISTERED(SyntheticDataset);

TypeId
SyntheticDataset::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SyntheticDataset")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<SyntheticDataset>()
            .AddAttribute("Samples",
                          "Training samples (count), split over the workers.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&SyntheticDataset::m_samples),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("EvalSamples",
                          "Held-out samples used for accuracy (count).",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&SyntheticDataset::m_evalSamples),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("LabelNoise",
                          "Standard deviation of the noise added to the teacher's scores "
                          "before the arg-max (dimensionless).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&SyntheticDataset::m_noise),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Stream",
                          "First ns-3 random-variable stream used (three are used: teacher, "
                          "training set, evaluation set).",
                          IntegerValue(1000),
                          MakeIntegerAccessor(&SyntheticDataset::m_stream),
                          MakeIntegerChecker<int64_t>(0));
    return tid;
}

SyntheticDataset::SyntheticDataset() = default;
SyntheticDataset::~SyntheticDataset() = default;

void
SyntheticDataset::Generate(uint32_t inputs, uint32_t classes)
{
    if (inputs == 0 || classes < 2)
    {
        throw std::invalid_argument("SyntheticDataset: need inputs >= 1 and classes >= 2");
    }
    Ptr<NormalRandomVariable> n = CreateObject<NormalRandomVariable>();
    n->SetStream(m_stream);
    m_teacher.resize(classes, inputs);
    for (Eigen::Index i = 0; i < m_teacher.size(); ++i)
    {
        m_teacher.data()[i] = static_cast<float>(n->GetValue(0.0, 1.0));
    }
    Draw(m_samples, m_x, m_y);
    Draw(m_evalSamples, m_evalX, m_evalY);
}

void
SyntheticDataset::Draw(uint32_t count, Eigen::MatrixXf& x, std::vector<uint32_t>& y) const
{
    // Each call uses its own stream: training set m_stream+1, evaluation m_stream+2.
    int64_t stream = &x == &m_x ? m_stream + 1 : m_stream + 2;
    Ptr<NormalRandomVariable> n = CreateObject<NormalRandomVariable>();
    n->SetStream(stream);
    x.resize(m_teacher.cols(), count);
    y.assign(count, 0);
    Eigen::VectorXf noise(m_teacher.rows());
    for (uint32_t j = 0; j < count; ++j)
    {
        for (Eigen::Index i = 0; i < x.rows(); ++i)
        {
            x(i, j) = static_cast<float>(n->GetValue(0.0, 1.0));
        }
        for (Eigen::Index c = 0; c < noise.size(); ++c)
        {
            noise[c] = static_cast<float>(m_noise * n->GetValue(0.0, 1.0));
        }
        Eigen::VectorXf score = m_teacher * x.col(j) + noise;
        Eigen::Index best;
        score.maxCoeff(&best);
        y[j] = static_cast<uint32_t>(best);
    }
}

void
SyntheticDataset::GetBatch(uint32_t worker,
                           uint32_t workers,
                           uint32_t iteration,
                           uint32_t batch,
                           Eigen::MatrixXf& x,
                           std::vector<uint32_t>& y) const
{
    NS_ASSERT_MSG(m_x.cols() > 0, "call Generate first");
    NS_ASSERT(workers > 0 && worker < workers && batch > 0);
    uint32_t shard = m_samples / workers;
    if (shard == 0)
    {
        throw std::invalid_argument("SyntheticDataset: " + std::to_string(m_samples) +
                                    " samples cannot be split over " + std::to_string(workers) +
                                    " workers; raise Samples");
    }
    x.resize(m_x.rows(), batch);
    y.assign(batch, 0);
    uint64_t start = static_cast<uint64_t>(iteration) * batch;
    for (uint32_t j = 0; j < batch; ++j)
    {
        uint64_t local = (start + j) % shard;
        uint64_t global = local * workers + worker;
        x.col(j) = m_x.col(static_cast<Eigen::Index>(global));
        y[j] = m_y[global];
    }
}

const Eigen::MatrixXf&
SyntheticDataset::GetEvalX() const
{
    return m_evalX;
}

const std::vector<uint32_t>&
SyntheticDataset::GetEvalY() const
{
    return m_evalY;
}

uint32_t
SyntheticDataset::GetSamples() const
{
    return m_samples;
}

} // namespace ns3
