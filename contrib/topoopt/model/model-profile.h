// SPDX-License-Identifier: GPL-2.0-only
/*
 * ModelProfile: a DNN model as TopoOpt's strategy search and cluster runs see it,
 * read from JSON (workloads/models/<name>.json, schema in
 * doc/profiles.md).
 *
 * What it models. Per layer, in forward order: forward and backward compute time
 * of one server (four GPUs run as one "big GPU", each on its per-GPU batch, as
 * the reference does), the parameter (= gradient) bytes, and whether the layer
 * is embedding-like (a table that may be placed on one server, model parallel,
 * instead of being replicated and all-reduced); an embedding layer also carries
 * the bytes of its output for one server's batch (what its owner sends to every
 * other server in forward, and receives back as gradient in backward). The
 * shared fields (name, forward_us, backward_us, param_bytes, bucket_bytes,
 * optimizer_us) are those of mlnet's workload format and are validated by
 * TrainingWorkload; a profile adds format/version, batch sizes, the embedding
 * flag and activation bytes.
 *
 * What it leaves out: memory, activation traffic of non-embedding layers (no
 * tensor or pipeline parallelism of dense layers), intra-server communication.
 * The shipped numbers are derived from layer shapes and an assumed GPU
 * throughput (workloads/models/make-profiles.py), not measured.
 */
#ifndef TOPOOPT_MODEL_PROFILE_H
#define TOPOOPT_MODEL_PROFILE_H

#include "ns3/json-reader.h"
#include "ns3/nstime.h"
#include "ns3/training-workload.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief One layer of a model profile.
 */
struct ProfileLayer
{
    std::string name;            //!< unique layer name
    Time forward;                //!< forward compute time of one server's batch
    Time backward;               //!< backward compute time of one server's batch
    uint64_t paramBytes{0};      //!< parameter (gradient) bytes
    bool embedding{false};       //!< may be placed on one server (model parallel)
    uint64_t activationBytes{0}; //!< embedding: output bytes for one server's batch
};

/**
 * \brief A model's per-layer compute and parameter profile (value type).
 */
class ModelProfile
{
public:
    ModelProfile();

    /**
     * \brief Parse a profile document built in C++. Throws std::invalid_argument
     * "<name>: <field path>: expected ..., got ..." naming the bad field.
     */
    static ModelProfile FromJson(const nlohmann::json& doc,
                                 const std::string& name = "model profile");
    /**
     * \brief Parse JSON text (the entry point for fuzzing); `name` stands for the file
     * in messages. Size and nesting are bounded (JsonReader).
     */
    static ModelProfile FromString(const std::string& text,
                                   const std::string& name = "model profile text");
    /// \brief Read a profile file (every message starts with its path).
    static ModelProfile FromFile(const std::string& path);
    /// \brief Read a profile from a field of a parsed document.
    static ModelProfile Read(const JsonField& doc);
    /**
     * \brief Load a shipped profile by name (dlrm, bert, candle-uno, vgg16, resnet50,
     * ncf) from the profile folder (environment TOPOOPT_PROFILE_DIR, else the
     * shipped workloads/models, installed or in the source tree: DataFile::Find). Throws
     * std::invalid_argument for an unknown name, listing the known ones.
     */
    static ModelProfile FromName(const std::string& name);
    /// \return the names of the shipped profiles
    static std::vector<std::string> KnownModels();
    /// \return the folder FromName reads
    static std::string ProfileDirectory();

    /// \return the model name
    const std::string& GetName() const;
    /// \return the layers, in forward order
    const std::vector<ProfileLayer>& GetLayers() const;
    /// \return the per-GPU batch size the times are for (0 if not given)
    uint32_t GetBatchPerGpu() const;
    /// \return the gradient bucket size target (bytes)
    uint64_t GetBucketBytes() const;
    /// \return the sum of every layer's parameter bytes
    uint64_t GetTotalParamBytes() const;
    /// \return indexes of the embedding-like layers
    std::vector<uint32_t> GetEmbeddingLayers() const;

    /**
     * \brief A scaled copy: every byte count times bytesFactor (at least 1 byte where
     * it was non-zero) and every time times timeFactor (for small test runs).
     * Throws std::invalid_argument unless both factors are in (0, 1e6].
     */
    ModelProfile Scaled(double bytesFactor, double timeFactor) const;

    /**
     * \brief The data-parallel part as an mlnet TrainingWorkload: the layers with
     * dataParallel[i] true, in order, with this profile's bucket size (used for its
     * DDP bucketing rule). Throws std::invalid_argument if no layer is selected or
     * the vector's size is not the layer count.
     */
    TrainingWorkload ToWorkload(const std::vector<bool>& dataParallel) const;

    /// \return the profile as JSON (round-trips through FromJson)
    nlohmann::json ToJson() const;

private:
    std::string m_name;
    std::string m_description;
    uint32_t m_batchPerGpu{0};
    uint32_t m_gpusPerServer{1};
    uint64_t m_bucketBytes{26214400};
    std::vector<ProfileLayer> m_layers;
};

} // namespace ns3

#endif // TOPOOPT_MODEL_PROFILE_H
