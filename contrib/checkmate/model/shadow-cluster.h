// SPDX-License-Identifier: GPL-2.0-only
/*
 * ShadowCluster: the shadow nodes of one training job, their commit barrier,
 * their repair path and the recovery service that streams the checkpoint back.
 *
 * What it models. The model's P parameters are split into Sh contiguous shards,
 * each a whole number of all-reduce chunks (the workers' N chunks are dealt out
 * N/Sh per shadow), so every mirrored packet belongs to exactly one shard.
 * Control traffic uses the job's MessageTransport (so it is reliable and costs
 * real bytes on the fabric):
 *  - commit barrier, two phases: every shard sends READY(t) to the coordinator
 *    (shard 0) after applying t; when all shards are ready the coordinator
 *    commits t (the checkpoint of iteration t exists) and sends COMMIT(t) to the
 *    others, which then drop older state;
 *  - repair: a shard missing byte ranges of t asks worker (shard index mod N)
 *    for them; the worker answers from the reduced gradient it still holds;
 *  - recovery: every shadow streams its committed shard (parameters, optimizer
 *    state and step: 4 x (1 + state vectors) bytes per parameter) to every
 *    worker; the workers restore from the bytes they received.
 *
 * Left out: shadow failures (the shadow cluster is assumed to stay up), NACK
 * implosion control, persistence of the shadow state to storage.
 */
#ifndef CHECKMATE_SHADOW_CLUSTER_H
#define CHECKMATE_SHADOW_CLUSTER_H

#include "ns3/cluster.h"
#include "ns3/data-parallel-trainer.h"
#include "ns3/message-transport.h"
#include "ns3/object.h"
#include "ns3/shadow-node.h"
#include "ns3/traced-callback.h"

#include <Eigen/Core>
#include <map>
#include <vector>

namespace ns3
{

/**
 * \brief A full checkpoint: parameters, optimizer step and state, iteration.
 */
struct Checkpoint
{
    int64_t iteration{-1};              //!< last iteration included (-1: initial)
    Eigen::VectorXf params;             //!< parameters
    uint64_t step{0};                   //!< optimizer step counter
    std::vector<Eigen::VectorXf> state; //!< optimizer state vectors
};

/**
 * \brief Shadows of one job: sharding, commit barrier, repair and recovery streaming.
 */
class ShadowCluster : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ShadowCluster();
    ~ShadowCluster() override;

    /// Called when a recovery stream has arrived at every worker.
    using RecoveredCallback = Callback<void, const Checkpoint&>;

    /**
     * \brief Create one ShadowNode per shadow rank and shard the model.
     * \param trainer the job (Setup done)
     * \param transport its transport
     * \param shadows ranks of the shadow CPU nodes (>= 1)
     * \param shadowFactory factory of the ShadowNode applications (attributes)
     * Throws std::invalid_argument when there is no shadow, the model does not
     * split into N equal chunks, or the shadows do not divide the N chunks.
     */
    void Install(Ptr<DataParallelTrainer> trainer,
                 Ptr<MessageTransport> transport,
                 const std::vector<uint32_t>& shadows,
                 const ObjectFactory& shadowFactory);

    /// \return the shadow applications (index = shard)
    const std::vector<Ptr<ShadowNode>>& GetShadows() const;
    /// \return the shadows' ranks
    const std::vector<uint32_t>& GetShadowRanks() const;
    /// \return last committed iteration (-1: none yet)
    int64_t GetCommittedIteration() const;
    /// \return commit time of each committed iteration
    const std::map<uint32_t, Time>& GetCommitTimes() const;
    /// \return the committed checkpoint, assembled from the shards
    Checkpoint GetCheckpoint() const;
    /// \return the state after iteration t assembled from the shards, if every shard has it
    bool GetStateAfter(int64_t iteration, Checkpoint& out) const;

    /**
     * \brief Stream the committed checkpoint to every worker over the network.
     * \param cb called (once) with the checkpoint as the workers received it
     */
    void StreamCheckpoint(RecoveredCallback cb);
    /// \return checkpoint bytes one recovery streams to one worker
    uint64_t GetCheckpointBytes() const;

    /// \return repair ranges requested (all shards)
    uint64_t GetRepairRanges() const;
    /// \return repaired bytes (all shards)
    uint64_t GetRepairBytes() const;
    /// \return repair requests a worker could not serve (gradient already dropped)
    uint64_t GetUnrepairable() const;

protected:
    void DoDispose() override;

private:
    enum Kind : uint32_t
    {
        READY = 1,
        COMMIT = 2,
        REPAIR_REQUEST = 3,
        REPAIR_DATA = 4,
        STATE = 5,
    };

    void OnReady(uint32_t shard, uint32_t iteration);
    void OnRepairNeeded(uint32_t shard, uint32_t iteration, const ShadowNode::Ranges& ranges);
    void OnMessage(const Message& msg);
    void CoordinatorReady(uint32_t iteration);
    void Commit(uint32_t iteration);

    Ptr<DataParallelTrainer> m_trainer;
    Ptr<MessageTransport> m_transport;
    std::vector<uint32_t> m_ranks;
    std::vector<Ptr<ShadowNode>> m_shadows;
    std::map<uint32_t, uint32_t> m_shardOfRank;
    uint32_t m_channel{0};
    std::map<uint32_t, uint32_t> m_readyCount; //!< coordinator: iteration -> shards ready
    int64_t m_committed{-1};
    std::map<uint32_t, Time> m_commitTimes;
    uint64_t m_unrepairable{0};
    // recovery
    RecoveredCallback m_recoveredCb;
    std::map<uint32_t, std::vector<MessageBytes>> m_received; //!< worker rank -> shard pieces
    uint32_t m_piecesLeft{0};

    TracedCallback<uint32_t, Time> m_commitTrace; //!< iteration, commit time
};

} // namespace ns3

#endif // CHECKMATE_SHADOW_CLUSTER_H
