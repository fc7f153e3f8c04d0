// SPDX-License-Identifier: GPL-2.0-only
/*
 * SyntheticDataset: a seeded, learnable classification data set for RealModel.
 *
 * What it models. A random "teacher" (a Classes x Inputs matrix) labels samples
 * drawn from a standard normal distribution: label = argmax(teacher * x + noise).
 * Every number comes from ns-3 random-variable streams (attribute Stream), so a
 * run is reproducible and --RngRun changes it. Worker w of W trains on the
 * samples w, w+W, w+2W, ... (its shard); batch i of a worker is a fixed,
 * cyclic window of its shard, so the same iteration always sees the same data
 * (what makes recovery from a checkpoint reproduce an uninterrupted run).
 * A separate evaluation set measures accuracy.
 *
 * Left out: data loading time, shuffling between epochs, augmentation.
 */
#ifndef MLNET_SYNTHETIC_DATASET_H
#define MLNET_SYNTHETIC_DATASET_H

#include "ns3/object.h"

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief A seeded synthetic classification data set with per-worker shards.
 */
class SyntheticDataset : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    SyntheticDataset();
    ~SyntheticDataset() override;

    /**
     * \brief Draw the data set (call once before use; attributes fixed afterwards).
     * \param inputs features per sample
     * \param classes number of classes
     * Throws std::invalid_argument for impossible sizes.
     */
    void Generate(uint32_t inputs, uint32_t classes);

    /**
     * \brief A worker's training batch of an iteration.
     * \param worker worker index (0..workers-1)
     * \param workers number of workers (shards)
     * \param iteration iteration index
     * \param batch samples per batch
     * \param x receives the samples (one per column)
     * \param y receives the labels
     */
    void GetBatch(uint32_t worker,
                  uint32_t workers,
                  uint32_t iteration,
                  uint32_t batch,
                  Eigen::MatrixXf& x,
                  std::vector<uint32_t>& y) const;

    /// \return the evaluation samples (one per column)
    const Eigen::MatrixXf& GetEvalX() const;
    /// \return the evaluation labels
    const std::vector<uint32_t>& GetEvalY() const;
    /// \return number of training samples
    uint32_t GetSamples() const;

private:
    void Draw(uint32_t n, Eigen::MatrixXf& x, std::vector<uint32_t>& y) const;

    uint32_t m_samples{4096};      //!< attribute Samples
    uint32_t m_evalSamples{1024};  //!< attribute EvalSamples
    double m_noise{0.1};           //!< attribute LabelNoise
    int64_t m_stream{1000};        //!< attribute Stream
    Eigen::MatrixXf m_teacher;     //!< labelling matrix
    Eigen::MatrixXf m_x;           //!< training samples
    std::vector<uint32_t> m_y;     //!< training labels
    Eigen::MatrixXf m_evalX;       //!< evaluation samples
    std::vector<uint32_t> m_evalY; //!< evaluation labels
};

} // namespace ns3

#endif // MLNET_SYNTHETIC_DATASET_H
