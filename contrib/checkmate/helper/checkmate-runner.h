// SPDX-License-Identifier: GPL-2.0-only
/*
 * CheckmateRunner: the checkmate-recovery scenario as a reusable harness.
 *
 * One call trains the same real job (RealModel + SyntheticDataset +
 * DataParallelTrainer, real gradients in the packets) several times on the same
 * fabric (N workers + Sh shadow CPU nodes on an ideal switch or a fat-tree):
 * first with no checkpointing ("none", the ideal baseline), then under the
 * requested checkpoint scheme(s) -- Checkmate (mirroring switch + shadows),
 * CheckFreq, Gemini, or none -- optionally with a worker failure at a given
 * iteration followed by recovery from the scheme's last checkpoint. Every
 * figure of the result is measured in these runs: iteration times, checkpoint
 * interval, throughput overhead against the baseline run, repeated iterations,
 * recovery time, mirrored and repaired bytes, and whether the shadow copy is
 * bit-identical to the workers after every committed iteration.
 *
 * Data path (--dataPath, DataPathChoice): auto runs on the fast data path (the job's
 * transport is udp) unless FlowMonitor needs IPv4; both paths give the same times,
 * bytes, clones, losses, repairs and checkpoints (mirror-fast-path-test.cc). The
 * results document says which in meta.data_path.
 *
 * Level (--level): packet, or flow, where the job's transport is a
 * FluidMessageTransport standing in for udp (auto builds no devices) and Checkmate's
 * mirrors are one FluidGradientMirror; the workers and the shadows train on the same
 * real values, so the shadow copy is still checked bit for bit; lost clones
 * (--mirrorLoss, the dropClone hook) are the packets a copy stands for.
 */
#ifndef CHECKMATE_RUNNER_H
#define CHECKMATE_RUNNER_H

#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/trace-options.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \brief Parameters of a checkmate-recovery run (the example's flags).
 */
struct CheckmateRunConfig
{
    uint32_t workers{4};           //!< data-parallel workers (N)
    uint32_t shadows{1};           //!< shadow CPU nodes (Sh); must divide N
    std::string fabric{"ideal"};   //!< ideal | fattree
    std::string rate{"100Gbps"};   //!< link rate
    std::string delay{"1us"};      //!< link delay
    uint32_t inputs{32};           //!< model inputs
    uint32_t hidden{64};           //!< hidden width (0: logistic regression)
    uint32_t classes{4};           //!< classes
    uint32_t batch{32};            //!< samples per worker per iteration
    uint32_t iterations{20};       //!< iterations to train
    std::string mode{"checkmate"}; //!< checkmate | checkfreq | gemini | none | all
    int64_t failAt{-1};            //!< iteration at whose end of compute a worker fails (-1: none)
    bool failRandom{false}; //!< draw failAt uniformly in [1, iterations-1] (ns-3 RNG, --RngRun)
    std::string replicate{"once"};      //!< once | all (Checkmate mirroring mode)
    std::string optimizer{"adamw"};     //!< adamw | sgd
    double learningRate{0.01};          //!< peak learning rate
    std::string compute{"1ms"};         //!< compute time per iteration
    double shadowMemoryBandwidth{20e9}; //!< shadow DRAM bandwidth (B/s)
    std::string restart{"0s"};          //!< fixed restart time of a recovery (process restart)
    int64_t dropClone{-1};              //!< test hook: drop clone #0 of this iteration (-1: none)
    double mirrorLoss{0};               //!< --mirrorLoss: probability a clone is lost (0 <= p <= 1)
    std::string dataPath{"auto"};       //!< --dataPath: auto | ipv4 | fast (DataPathChoice)
    RunLevel level{RunLevel::PACKET};   //!< packet, or flow (FluidMessageTransport)
    TraceOptions traces;                //!< --pcap, --pcapClass, --flowmon

    /// \brief Throw std::invalid_argument naming the bad flag.
    void Validate() const;
    /// \return mirrorLoss, checked to be a probability (throws std::invalid_argument naming the
    /// flag)
    double MirrorLossRate() const;
    /// \return the model's parameter count
    uint64_t Parameters() const;
    /**
     * \return the data path the runs use: auto is fast (the transport is udp) unless
     * --flowmon asks for IPv4, and none at the flow level (DataPathChoice); throws
     * naming --dataPath
     */
    std::string DataPath() const;
};

/**
 * \brief Runs the checkmate-recovery scenario.
 */
class CheckmateRunner
{
public:
    /**
     * \brief Run it; adds "iterations", "summary" (and for mode=all "modes") to the
     * report and returns the same document section.
     * Throws std::invalid_argument for bad configurations.
     */
    static nlohmann::json Run(const CheckmateRunConfig& config, RunReport& report);
};

} // namespace ns3

#endif // CHECKMATE_RUNNER_H
