// SPDX-License-Identifier: GPL-2.0-only
/*
 * TrainingWorkload: a data-parallel training job read from JSON (schema in
 * contrib/mlnet/doc/workload.md) and turned into an IterationGraph.
 *
 * What it models: per-layer forward and backward compute times, gradients grouped
 * into buckets in backward order as PyTorch DDP does (a bucket closes once its
 * bytes reach bucket_bytes), each bucket all-reduced as soon as the backward of its
 * last layer finished on every rank of the data-parallel group, the buckets of one
 * group all-reduced one after another (one communication stream), and an optional
 * optimizer step after the last all-reduce. With data < ranks the cluster runs
 * ranks/data independent replicas of the job, each on `data` consecutive ranks.
 *
 * What it leaves out: DDP's smaller first bucket and its bucket rebuilding after
 * the first iteration, model/pipeline parallelism (railonly and topoopt build
 * their own graphs), forward/backward overlap of the next iteration, and memory.
 *
 * It is a value type (like DataRate), not an ns-3 Object: it holds a description,
 * it does not take part in the simulation.
 */
#ifndef MLNET_TRAINING_WORKLOAD_H
#define MLNET_TRAINING_WORKLOAD_H

#include "ns3/iteration-graph.h"
#include "ns3/json-reader.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief One layer of a workload.
 */
struct WorkloadLayer
{
    std::string name;       //!< layer name (unique within the workload)
    Time forward;           //!< forward compute time per iteration, per rank
    Time backward;          //!< backward compute time per iteration, per rank
    uint64_t paramBytes{0}; //!< gradient bytes this layer contributes
};

/**
 * \brief One gradient bucket: layers (indexes into the layer list) in backward order.
 */
struct GradientBucket
{
    uint32_t index{0};            //!< bucket number, 0 = first all-reduced
    std::vector<uint32_t> layers; //!< layer indexes, in the order backward visits them
    uint64_t bytes{0};            //!< sum of the layers' param bytes
};

/**
 * \brief A data-parallel training job: layers, buckets, parallelism, collective.
 */
class TrainingWorkload
{
public:
    /// Predicted time of one bucket's all-reduce, from its bytes (analytical twin).
    using AllReduceTime = std::function<Time(uint64_t bytes)>;

    TrainingWorkload();

    /**
     * \brief Parse a workload document built in C++ (or taken from a larger document).
     * Throws std::invalid_argument with a one-line message
     * "<name>: <field path>: expected ..., got ..." naming the bad field.
     */
    static TrainingWorkload FromJson(const nlohmann::json& doc,
                                     const std::string& name = "workload");
    /**
     * \brief Parse JSON text (the entry point for fuzzing); `name` stands for the file
     * in messages. Size and nesting are bounded (JsonReader).
     */
    static TrainingWorkload FromString(const std::string& text,
                                       const std::string& name = "workload text");
    /// \brief Read and parse a file (every message starts with its path).
    static TrainingWorkload FromFile(const std::string& path);
    /// \brief Read a workload from a field of a parsed document (its root or a member).
    static TrainingWorkload Read(const JsonField& doc);

    /// \return the workload's name
    const std::string& GetName() const;
    /// \return the layers, in forward order
    const std::vector<WorkloadLayer>& GetLayers() const;
    /// \return the bucket size target (bytes)
    uint64_t GetBucketBytes() const;
    /// \return the optimizer step time (0 when absent)
    Time GetOptimizerTime() const;
    /// \return the data-parallel degree, or 0 meaning "all ranks"
    uint32_t GetDataDegree() const;
    /// \return the all-reduce algorithm name (default "ring")
    const std::string& GetAlgorithm() const;
    /// \return the sum of every layer's param bytes
    uint64_t GetTotalParamBytes() const;
    /// \return forward + backward + optimizer time of one rank (no communication)
    Time GetComputeTime() const;

    /// \return the gradient buckets, in the order they are all-reduced
    std::vector<GradientBucket> GetBuckets() const;
    /**
     * \brief The data-parallel groups on a cluster of nRanks ranks: nRanks/data groups
     * of `data` consecutive ranks. Throws std::invalid_argument if data does not
     * divide nRanks.
     */
    std::vector<std::vector<uint32_t>> GetDataParallelGroups(uint32_t nRanks) const;
    /**
     * \brief Build one iteration for a cluster of nRanks ranks (see the file comment).
     * Task names: "r<rank>/fwd/<layer>", "r<rank>/bwd/<layer>", "g<group>/allreduce/b<k>",
     * "r<rank>/optimizer".
     */
    IterationGraph BuildGraph(uint32_t nRanks) const;
    /**
     * \brief Analytical iteration time: the graph of BuildGraph run by
     * IterationGraph::Estimate with each bucket's all-reduce taking allReduceTime(bytes).
     */
    Time EstimateIterationTime(uint32_t nRanks, const AllReduceTime& allReduceTime) const;

private:
    std::string m_name;
    std::vector<WorkloadLayer> m_layers;
    uint64_t m_bucketBytes{26214400};
    Time m_optimizer;
    uint32_t m_data{0};
    std::string m_algorithm{"ring"};
};

} // namespace ns3

#endif // MLNET_TRAINING_WORKLOAD_H
