// SPDX-License-Identifier: GPL-2.0-only
/*
 * Collective: base of every collective operation (all-reduce, all-gather, ...).
 *
 * One Collective object runs the per-rank state machines of all its members (as
 * an ns-3 helper drives all nodes of a scenario): it registers a channel on the
 * MessageTransport, sends each member's messages and reacts to their arrival.
 * Members are ranks of the Cluster, listed in the communicator's order; member i
 * is ranks[i]. Many collectives may run concurrently over one transport.
 *
 * Sizes. For all-reduce, reduce-scatter, all-gather and broadcast, Setup's bytes
 * is the size of the full vector each rank holds (all-gather: the gathered
 * result; each member contributes bytes/N). For all-to-all it is the bytes each
 * member sends to each other member. For send/recv it is the message size.
 *
 * Real values. With SetInput the collective carries float values in its packets
 * and reduces them for real (bytes must then be 4 x the number of floats); the
 * result is read with GetOutput. Without inputs, bytes are virtual.
 */
#ifndef MLNET_COLLECTIVE_H
#define MLNET_COLLECTIVE_H

#include "ns3/callback.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <Eigen/Core>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief What one collective did: the per-collective record written to results.
 */
struct CollectiveRecord
{
    std::string collective; //!< "allreduce", "allgather", "reducescatter", "alltoall", ...
    std::string algorithm;  //!< "ring", "hd", "torus", "pairwise", "direct", ...
    uint32_t ranks{0};      //!< communicator size
    uint64_t bytes{0};      //!< Setup's bytes (see the file comment)
    Time start;             //!< Start() time
    Time end;               //!< time the last member finished
};

/**
 * \brief One message of a collective's schedule (ranks, not member indexes).
 *
 * Dependencies (used by the dependency-aware twin, AlphaBetaModel::Predict). A
 * message belongs to step `step` of chain `chain` of its sender's program, and its
 * receiver awaits it in the same step of the same chain. The sender issues it once
 * it has completed steps 0..step-1 of that chain: every message addressed to the
 * sender with the same chain and a smaller step has arrived, and the sender has
 * reduced those marked `reduce` (gamma x bytes each, reductions of one rank one
 * after the other). This is exactly StepwiseCollective's engine rule. A message whose
 * step is kStepOfSchedule (the default, e.g. a schedule written by hand) takes the
 * index of its CollectiveStep as its step, in chain 0, and its receiver reduces the
 * CollectiveStep's reduceBytes after that step: the schedule read as lock-step
 * programs.
 */
struct ScheduledMessage
{
    /// Value of `step` meaning "the index of the CollectiveStep holding the message".
    static constexpr uint32_t kStepOfSchedule = 0xffffffffu;

    uint32_t src{0};   //!< sending rank
    uint32_t dst{0};   //!< receiving rank
    uint64_t bytes{0}; //!< application bytes
    uint32_t chain{0}; //!< chain of the sender's (and receiver's) program it belongs to
    uint32_t step{kStepOfSchedule}; //!< step of that chain (see the struct comment)
    bool reduce{false};             //!< the receiver adds it into its buffer (costs gamma x bytes)
};

/**
 * \brief One step of a collective's schedule: messages that are in flight together.
 *
 * The schedule is the algorithm written down as data; the analytical twin
 * (AlphaBetaModel) times it on the fabric, the packet-level run executes the
 * same algorithm message by message (data-driven, not in lock-step).
 */
struct CollectiveStep
{
    std::vector<ScheduledMessage> messages; //!< messages of this step
    uint64_t reduceBytes{0};                //!< bytes each receiver reduces after the step
};

/**
 * \brief Base class of all collective operations.
 */
class Collective : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Called once when every member has finished.
    using DoneCallback = Callback<void, Ptr<Collective>>;

    Collective();
    ~Collective() override;

    /**
     * \brief Bind to a transport and a communicator.
     * \param transport installed transport
     * \param ranks communicator: member i is rank ranks[i]; at least 2, no repeats
     * \param bytes size as defined in the file comment
     * Throws std::invalid_argument with a user-facing message when the
     * combination is impossible (e.g. halving-doubling on 6 ranks).
     */
    virtual void Setup(Ptr<MessageTransport> transport,
                       const std::vector<uint32_t>& ranks,
                       uint64_t bytes);

    /// \brief Give member i its real input vector (enables real-valued payloads).
    void SetInput(uint32_t member, const Eigen::VectorXf& values);
    /// \return member i's real output vector (after completion)
    const Eigen::VectorXf& GetOutput(uint32_t member) const;
    /// \return whether real values are carried
    bool HasRealPayload() const;

    /// \brief Set the completion callback.
    void SetDoneCallback(DoneCallback cb);
    /// \brief Start now (all members start together).
    void Start();

    /**
     * \return true once every member finished. In a distributed run (DistributedSession)
     * this process knows only its local members: true once every local member finished.
     */
    bool IsDone() const;
    /**
     * \return whether a member runs in this process: its rank's node belongs to this
     * process's partition (always true unless the run is distributed over MPI)
     */
    bool IsLocalMember(uint32_t member) const;
    /// \return whether a member finished (in this process)
    bool IsMemberDone(uint32_t member) const;
    /// \return the time a member finished (zero until it does)
    Time GetMemberEnd(uint32_t member) const;
    /// \return the record (start, end, bytes, ...)
    CollectiveRecord GetRecord() const;
    /// \return end - start
    Time GetDuration() const;

    /// \return the collective's name, e.g. "allreduce"
    virtual std::string GetCollectiveName() const = 0;
    /// \return the algorithm's name, e.g. "ring"
    virtual std::string GetAlgorithmName() const = 0;
    /**
     * \brief The algorithm's messages, step by step, for the analytical twin.
     * Valid after Setup. The bytes per message equal what the packet-level run sends.
     */
    virtual std::vector<CollectiveStep> GetSchedule() const = 0;
    /// \return the Label attribute, or "<collective>-<algorithm>" when it is empty
    std::string GetLabel() const;
    /// \brief Set the Label attribute (before Start: the channel is registered with it).
    void SetLabel(const std::string& label);
    /// \return the reduction time per byte (gamma) in use
    double GetReductionTimePerByte() const;
    /// \return the communicator (member i is rank i of the vector)
    const std::vector<uint32_t>& GetRanks() const;

protected:
    void DoDispose() override;
    /// Subclass hook: send the first messages of every member.
    virtual void DoStart() = 0;
    /// Subclass hook: a message for this collective arrived.
    virtual void HandleMessage(const Message& msg) = 0;

    /**
     * Send from member to member on this collective's channel. A member that is not
     * local (IsLocalMember) sends nothing: its own process runs it.
     */
    void SendToMember(uint32_t fromMember,
                      uint32_t toMember,
                      uint32_t tag,
                      uint64_t bytes,
                      MessageBytes data = nullptr);
    /// \return the channel registered on the transport (valid once started)
    uint32_t GetChannel() const;
    /// Member index of a rank.
    uint32_t MemberOf(uint32_t rank) const;
    /// Mark one member finished; the collective ends when all are.
    void MemberDone(uint32_t member);

    Ptr<MessageTransport> m_transport;  //!< transport in use
    std::vector<uint32_t> m_ranks;      //!< communicator
    uint64_t m_bytes{0};                //!< size (see file comment)
    std::vector<Eigen::VectorXf> m_in;  //!< real inputs (empty when virtual)
    std::vector<Eigen::VectorXf> m_out; //!< real outputs
    double m_reduceTimePerByte{0};      //!< attribute ReductionTimePerByte (gamma, s/B)
    std::string m_label;                //!< attribute Label

private:
    void Receive(const Message& msg);

    uint32_t m_channel{0};
    std::vector<bool> m_memberDone;
    std::vector<Time> m_memberEnd; //!< finish time per member
    std::vector<bool> m_local;     //!< member's node is in this process's partition
    uint32_t m_localCount{0};      //!< members local to this process
    uint32_t m_doneCount{0};       //!< local members finished
    Time m_start;
    Time m_end;
    bool m_started{false};
    bool m_done{false};
    DoneCallback m_doneCb;
    TracedCallback<Ptr<const Collective>> m_startTrace; //!< collective started
    TracedCallback<Ptr<const Collective>> m_doneTrace;  //!< collective finished
    TracedCallback<uint32_t, Time> m_memberDoneTrace;   //!< member, time
};

} // namespace ns3

#endif // MLNET_COLLECTIVE_H
