// SPDX-License-Identifier: GPL-2.0-only
/*
 * ShadowNode: a Checkmate shadow, an application on a CPU node attached to the
 * fabric, that keeps one shard (a contiguous parameter range) of the model and
 * its optimizer state current from the gradients a GradientMirror clones to it.
 *
 * What it models. Clones of the all-gather packets of iteration t arrive tagged
 * (GradientTag: iteration, byte range). The shadow reassembles its shard's
 * reduced gradient sum per iteration (a byte bitmap; duplicates from
 * ReplicateAll are ignored), and once iteration t is complete and t-1 is
 * applied, spends a CPU time of ShardParameters x BytesPerParameter /
 * MemoryBandwidth applying the same averaging and the same Optimizer (same type,
 * attributes and step counter) as the workers. It then reports "ready t" to the
 * commit barrier (ShadowCluster) and keeps the state of t until t is committed
 * by every shard. A shard still incomplete RepairTimeout after its last clone
 * arrived, or when clones of a later iteration arrive, asks a worker for the
 * missing byte ranges (repair; the worker still holds the reduced gradient).
 *
 * Data paths. On the IPv4 path clones arrive on a UDP socket bound to Port; on the
 * fast data path (the node has FastForwarding, no IPv4) the node's FastForwarding
 * hands the shadow the frames for Port (SetPortDeliverCallback), the transport keeps
 * the rest. Either way the shadow reads the same payload and tag at the same instant.
 * At the flow level (a node with neither) a FluidGradientMirror hands it each clone
 * whole (ReceiveClone).
 *
 * Left out: the shadow's NIC-to-memory path and packet-processing CPU (only the
 * optimizer pass is timed); global-norm clipping and mixed-precision skipped
 * steps (not element-wise, see Optimizer).
 */
#ifndef CHECKMATE_SHADOW_NODE_H
#define CHECKMATE_SHADOW_NODE_H

#include "ns3/application.h"
#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/fast-forwarding.h"
#include "ns3/gradient-tag.h"
#include "ns3/nstime.h"
#include "ns3/optimizer.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <Eigen/Core>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief One shard's state at the end of an iteration (a checkpoint piece).
 */
struct ShardState
{
    int64_t iteration{-1};              //!< last iteration applied (-1: initial state)
    Eigen::VectorXf params;             //!< the shard's parameters
    uint64_t step{0};                   //!< optimizer step counter
    std::vector<Eigen::VectorXf> state; //!< optimizer state vectors of the shard
};

/**
 * \brief CPU shadow node keeping one shard of the model current (application).
 */
class ShadowNode : public Application
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ShadowNode();
    ~ShadowNode() override;

    /// Byte ranges [first, first+length) of the gradient vector.
    using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
    /// Shard `index` applied iteration t.
    using ReadyCallback = Callback<void, uint32_t, uint32_t>;
    /// Shard `index` misses these byte ranges of iteration t.
    using RepairCallback = Callback<void, uint32_t, uint32_t, const Ranges&>;

    /**
     * \brief Configure the shard (before the application starts).
     * \param index shard index
     * \param firstParam first parameter of the shard
     * \param initial the shard's initial parameters
     * \param optimizer a fresh optimizer of the workers' type and attributes
     * \param workers data-parallel workers (the gradient sum is divided by it)
     */
    void Configure(uint32_t index,
                   uint64_t firstParam,
                   const Eigen::VectorXf& initial,
                   Ptr<Optimizer> optimizer,
                   uint32_t workers);
    /// \brief Set the barrier's ready callback.
    void SetReadyCallback(ReadyCallback cb);
    /// \brief Set the repair-request callback.
    void SetRepairCallback(RepairCallback cb);

    /**
     * \brief A clone's gradient bytes: tag.length bytes at gradient byte tag.offset of
     * iteration tag.iteration (a packet's payload, or at the flow level a whole
     * message's contents, FluidGradientMirror).
     */
    void ReceiveClone(const GradientTag& tag, const uint8_t* gradient);
    /// \brief Repaired bytes of iteration t at gradient byte `offset`.
    void DeliverRepair(uint32_t iteration, uint64_t offset, const uint8_t* data, uint64_t length);
    /// \brief The barrier committed iteration t: keep its state as the checkpoint.
    void Commit(uint32_t iteration);
    /// \return the state after iteration t (committed or pending commit), or null
    const ShardState* GetState(int64_t iteration) const;
    /// \return the committed state
    const ShardState& GetCommitted() const;
    /**
     * \brief After a recovery from the committed checkpoint: drop everything newer
     * and expect the iteration after it next.
     */
    void RollBackToCommitted();

    /// \return CPU time of one optimizer pass over the shard
    Time GetApplyTime() const;
    /// \return shard length (parameters)
    uint64_t GetShardParameters() const;
    /// \return first byte of the shard in the gradient vector
    uint64_t GetFirstByte() const;
    /// \return gradient bytes received from clones (including duplicates)
    uint64_t GetReceivedBytes() const;
    /// \return clone bytes that were already present (ReplicateAll duplicates)
    uint64_t GetDuplicateBytes() const;
    /// \return repair requests sent (missing ranges, one per lost packet unless adjacent)
    uint64_t GetRepairRanges() const;
    /// \return bytes obtained by repair
    uint64_t GetRepairBytes() const;

protected:
    void DoDispose() override;

private:
    void StartApplication() override;
    void StopApplication() override;
    void HandleRead(Ptr<Socket> socket);
    /// Fast data path: a frame for Port (header removed).
    void HandleFrame(Ptr<Packet> p, const FastFrameHeader& h);
    /// One clone (transport header + gradient bytes, GradientTag).
    void Receive(Ptr<Packet> p);
    void Store(uint32_t iteration, uint64_t offset, const uint8_t* data, uint64_t length);
    void CheckRepair(uint32_t iteration);
    void TryApply();
    void ApplyDone(uint32_t iteration);

    /// Reassembly of one iteration's shard.
    struct Pending
    {
        std::vector<uint8_t> bytes; //!< the shard's gradient sum (bytes)
        std::vector<bool> got;      //!< per byte
        uint64_t have{0};           //!< bytes present
        EventId timer;              //!< repair timer
        bool requested{false};      //!< repair asked for
    };

    uint16_t m_port{9100};                   //!< attribute Port
    double m_bytesPerParam{28};              //!< attribute BytesPerParameter
    double m_memBandwidth{20e9};             //!< attribute MemoryBandwidth (B/s)
    Time m_repairTimeout{MicroSeconds(200)}; //!< attribute RepairTimeout

    uint32_t m_index{0};
    uint64_t m_first{0};
    uint32_t m_workers{1};
    Ptr<Optimizer> m_opt;
    Eigen::VectorXf m_params;
    Ptr<Socket> m_socket;       //!< IPv4 path
    Ptr<FastForwarding> m_fast; //!< fast data path
    std::map<uint32_t, Pending> m_pending;
    std::map<int64_t, ShardState> m_applied; //!< applied, not yet committed
    ShardState m_committed;
    uint32_t m_next{0}; //!< next iteration to apply
    bool m_applying{false};
    EventId m_applyEvent; //!< pending ApplyDone
    Time m_cpuFree;
    ReadyCallback m_readyCb;
    RepairCallback m_repairCb;
    uint64_t m_received{0};
    uint64_t m_duplicates{0};
    uint64_t m_repairRanges{0};
    uint64_t m_repairBytes{0};

    TracedCallback<uint32_t, Time> m_appliedTrace;    //!< iteration, CPU time
    TracedCallback<uint32_t, uint32_t> m_repairTrace; //!< iteration, ranges requested
    TracedCallback<uint32_t> m_commitTrace;           //!< iteration committed
};

} // namespace ns3

#endif // CHECKMATE_SHADOW_NODE_H
