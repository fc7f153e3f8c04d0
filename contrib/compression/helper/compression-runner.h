// SPDX-License-Identifier: GPL-2.0-only
/*
 * CompressionRunner: end-to-end utility of gradient compression (issue 7).
 *
 * Trains a RealModel data-parallel on an ideal switch with a CompressedTrainer and
 * one codec, and reports what the study asks for: bytes on the wire, iteration time,
 * the analytical communication time beside the measured one, time to a target
 * accuracy (null if never reached) and final accuracy. Sweep runs a grid of link
 * bandwidths x schemes, one simulation each (the caller's RunReport records them).
 * The data path (--dataPath, DataPathChoice) is the fast one unless ipv4 is asked
 * for: both give the same times and bit-identical models (compression-test.cc). At the
 * flow level auto builds no devices ("none": the fluid carries the encoded values).
 */
#ifndef COMPRESSION_COMPRESSION_RUNNER_H
#define COMPRESSION_COMPRESSION_RUNNER_H

#include "ns3/data-rate.h"
#include "ns3/gradient-codec.h"
#include "ns3/nstime.h"
#include "ns3/run-level.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief One compression-utility run's settings (the example's flags).
 */
struct CompressionConfig
{
    uint32_t workers{4};                 //!< data-parallel workers
    DataRate bandwidth{"10Gbps"};        //!< link rate of the ideal switch
    Time delay{MicroSeconds(1)};         //!< link delay
    uint32_t inputs{128};                //!< model inputs
    uint32_t hidden{128};                //!< model hidden units
    uint32_t classes{4};                 //!< model classes
    std::string scheme{"bf16"};          //!< bf16 | fp16 | fp32 | topk | quant | powersgd
    double density{0.01};                //!< TopK density
    uint32_t bits{4};                    //!< quantization bits
    uint32_t rank{4};                    //!< PowerSGD rank
    double targetAccuracy{0.8};          //!< accuracy that ends time-to-target
    uint32_t iterations{100};            //!< iterations to train
    Time computeTime{MicroSeconds(200)}; //!< forward + backward per iteration
    double memoryBandwidth{768e9};       //!< codec device memory bandwidth (B/s)
    double learningRate{0.05};           //!< SGD-momentum learning rate
    uint32_t batch{32};                  //!< samples per worker per iteration
    std::string dataPath{"auto"};        //!< --dataPath: auto | ipv4 | fast (DataPathChoice)
    RunLevel level{RunLevel::PACKET};    //!< packet, or flow (FluidMessageTransport)

    /// \brief Throw std::invalid_argument naming the bad flag and what would be valid.
    void Validate() const;
    /// \return the data path of the runs: auto is fast (the transport is udp), or none
    /// at the flow level
    std::string DataPath() const;
};

/**
 * \brief Runs compression-utility scenarios (see the file comment).
 */
class CompressionRunner
{
public:
    /**
     * \brief The codec a config names, with its parameters set (not yet configured).
     * Throws std::invalid_argument for an unknown scheme.
     */
    static Ptr<GradientCodec> MakeCodec(const CompressionConfig& config);
    /**
     * \brief Train once; the caller destroys the simulator afterwards.
     * \return the row: scheme, bandwidth_gbps, bytes_on_wire, iteration_s,
     * comm_s, analytical_comm_s, encode_s, decode_s, time_to_target_s,
     * iterations_to_target, final_accuracy, algorithm, ...
     * Throws std::invalid_argument for impossible settings.
     */
    static nlohmann::json Run(const CompressionConfig& config);
    /**
     * \brief Run every bandwidth x scheme (the other settings from base); each row
     * also carries tta_vs_bf16 and tta_vs_fp32 (time-to-target over the baseline's at
     * the same bandwidth; null when either never reached the target).
     * \param afterRun called after each run, before Simulator::Destroy
     */
    static nlohmann::json Sweep(const CompressionConfig& base,
                                const std::vector<DataRate>& bandwidths,
                                const std::vector<std::string>& schemes,
                                const std::function<void()>& afterRun);
    /// \return the items of a comma-separated list
    static std::vector<std::string> SplitList(const std::string& list);
};

} // namespace ns3

#endif // COMPRESSION_COMPRESSION_RUNNER_H
