// SPDX-License-Identifier: GPL-2.0-only
/*
 * DataParallelTrainer: real data-parallel training over the simulated network.
 *
 * What it models. W workers (ranks of a Cluster) each hold a full copy of a
 * RealModel's parameters and their own Optimizer. Iteration i: every worker
 * computes the real gradient of its batch of the SyntheticDataset (shard w);
 * after ComputeTime (the stand-in for forward + backward on a GPU) the
 * gradients are summed by a ring all-reduce that carries the real floats in its
 * packets (RingAllReduce over the MessageTransport); each worker divides the
 * sum by W (Average) and applies its optimizer. Loss (mean of the workers' batch
 * losses) and accuracy (held-out set, after the update) are recorded with the
 * simulated times. Because every worker applies the same averaged gradient with
 * the same optimizer, all copies stay bit-identical.
 *
 * Hooks for the systems built on it: the all-reduce of each iteration can be
 * configured before it starts (e.g. to tag its packets: contrib/checkmate; to
 * change the gradient exchange: subclass and override CreateExchange); a pause
 * after an iteration models a checkpoint stall; a failure can be injected at the
 * end of an iteration's compute; Restore rolls every worker back to a checkpoint.
 * The reduced gradient sum of the last few iterations stays available
 * (GetReducedGradient), as it does in GPU memory until it is overwritten.
 *
 * Left out: overlap of communication with backward (the all-reduce starts when
 * compute ends), gradient bucketing (one bucket), GPU memory limits.
 */
#ifndef MLNET_DATA_PARALLEL_TRAINER_H
#define MLNET_DATA_PARALLEL_TRAINER_H

#include "ns3/callback.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/optimizer.h"
#include "ns3/real-model.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/synthetic-dataset.h"
#include "ns3/traced-callback.h"

#include <Eigen/Core>
#include <map>
#include <vector>

namespace ns3
{

/**
 * \brief What one training iteration did.
 */
struct TrainerIterationRecord
{
    uint32_t iteration{0}; //!< iteration index
    Time start;            //!< compute started
    Time computeEnd;       //!< all-reduce started
    Time reduceEnd;        //!< all-reduce finished, update applied
    Time end;              //!< next iteration may start (after any pause)
    double loss{0};        //!< mean batch loss of the workers (before the update)
    double accuracy{0};    //!< held-out accuracy after the update
};

/**
 * \brief Data-parallel training of a RealModel with real gradients in the packets.
 */
class DataParallelTrainer : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    DataParallelTrainer();
    ~DataParallelTrainer() override;

    /// Called with each iteration's gradient exchange after its Setup and inputs, before Start.
    using CollectiveHook = Callback<void, uint32_t, Ptr<Collective>>;
    /// Returns the pause after an iteration's update (e.g. a checkpoint stall).
    using PauseHook = Callback<Time, uint32_t>;
    /// Called when training stops: the next iteration to run, and whether a failure stopped it.
    using StopCallback = Callback<void, uint32_t, bool>;

    /**
     * \brief Bind to a network, a model, data and an optimizer.
     * \param transport installed transport
     * \param workers the workers' ranks (>= 2)
     * \param model the model (shape attributes set)
     * \param data the data set (Generate is called here)
     * \param optimizer factory of the optimizer (type and attributes), one per worker
     * Throws std::invalid_argument for impossible combinations.
     */
    void Setup(Ptr<MessageTransport> transport,
               const std::vector<uint32_t>& workers,
               Ptr<RealModel> model,
               Ptr<SyntheticDataset> data,
               const ObjectFactory& optimizer);

    /**
     * \brief Run iterations [first, last) from now on, back to back.
     * Throws std::invalid_argument when last <= first.
     */
    void Run(uint32_t first, uint32_t last);

    /// \brief Make the worker fail when iteration `iteration` finishes computing.
    void SetFailure(uint32_t iteration);
    /// \brief Set the per-iteration all-reduce hook.
    void SetCollectiveHook(CollectiveHook hook);
    /// \brief Set the pause hook.
    void SetPauseHook(PauseHook hook);
    /// \brief Called when an iteration starts computing (e.g. to send checkpoint traffic).
    void SetIterationStartHook(Callback<void, uint32_t> hook);
    /// \brief Set the stop callback.
    void SetStopCallback(StopCallback cb);

    /**
     * \brief Roll every worker back to a checkpoint.
     * \param params parameters
     * \param step optimizer step counter
     * \param state optimizer state vectors
     */
    void Restore(const Eigen::VectorXf& params,
                 uint64_t step,
                 const std::vector<Eigen::VectorXf>& state);

    /// \return worker w's parameters
    const Eigen::VectorXf& GetParameters(uint32_t worker) const;
    /// \return worker w's optimizer
    Ptr<Optimizer> GetOptimizer(uint32_t worker) const;
    /// \return the all-reduced gradient sum of an iteration, or null if no longer held
    const Eigen::VectorXf* GetReducedGradient(uint32_t iteration) const;
    /// \return the records of the iterations run so far (in order)
    const std::vector<TrainerIterationRecord>& GetRecords() const;
    /// \return the worker ranks
    const std::vector<uint32_t>& GetWorkers() const;
    /// \return the model
    Ptr<RealModel> GetModel() const;
    /// \return the transport bound by Setup
    Ptr<MessageTransport> GetTransport() const;
    /// \return the optimizer factory
    const ObjectFactory& GetOptimizerFactory() const;
    /// \return the gradient payload of one all-reduce (4 x parameters, bytes)
    uint64_t GetGradientBytes() const;
    /// \return true while iterations are being run
    bool IsRunning() const;

    /// \return the averaged gradient: sum / workers (the one rule workers and shadows share)
    static Eigen::VectorXf Average(const Eigen::VectorXf& sum, uint32_t workers);

protected:
    void DoDispose() override;
    /**
     * \brief The gradient exchange of an iteration, set up and with its inputs (default:
     * a RingAllReduce of the gradients). Override to change the exchange (e.g. a
     * compressed one); GetExchangeOutput then turns its result into the gradient sum.
     */
    virtual Ptr<Collective> CreateExchange(uint32_t iteration,
                                           const std::vector<Eigen::VectorXf>& grads);
    /// \return worker w's gradient SUM after the exchange (default: the collective's output)
    virtual Eigen::VectorXf GetExchangeOutput(Ptr<Collective> exchange, uint32_t worker) const;

private:
    void StartIteration(uint32_t i);
    void ComputeDone(uint32_t i);
    void ReduceDone(uint32_t i, Ptr<Collective> c);
    void NextIteration(uint32_t i);

    Time m_computeTime{MilliSeconds(1)}; //!< attribute ComputeTime
    uint32_t m_batch{32};                //!< attribute BatchSize
    int64_t m_initStream{500};           //!< attribute InitStream
    uint32_t m_keep{4};                  //!< attribute KeepGradients

    Ptr<MessageTransport> m_transport;
    std::vector<uint32_t> m_workers;
    Ptr<RealModel> m_model;
    Ptr<SyntheticDataset> m_data;
    ObjectFactory m_optFactory;
    std::vector<Eigen::VectorXf> m_params;
    std::vector<Ptr<Optimizer>> m_opts;
    std::vector<Eigen::VectorXf> m_grads;
    std::map<uint32_t, Eigen::VectorXf> m_reduced;
    std::vector<TrainerIterationRecord> m_records;
    TrainerIterationRecord m_current;
    Ptr<Collective> m_exchange;
    uint32_t m_last{0};
    bool m_running{false};
    bool m_failArmed{false};
    uint32_t m_failAt{0};
    CollectiveHook m_collectiveHook;
    PauseHook m_pauseHook;
    StopCallback m_stopCb;
    Callback<void, uint32_t> m_startHook;

    /// iteration, loss, accuracy, iteration time (s)
    TracedCallback<uint32_t, double, double, Time> m_iterationTrace;
    /// iteration at which the failure struck
    TracedCallback<uint32_t> m_failureTrace;
};

} // namespace ns3

#endif // MLNET_DATA_PARALLEL_TRAINER_H
