// SPDX-License-Identifier: GPL-2.0-only
/*
 * StepwiseCollective: the execution engine shared by mlnet's collective algorithms.
 *
 * What it models. Each algorithm writes itself down once, as a program per
 * member: a few independent chains (rings, slices, halves of a torus flow), each
 * a sequence of steps; a step sends some messages and then waits for some
 * messages, which it reduces (adds) or copies into the member's buffer. The
 * engine runs the programs data-driven, not in lock-step: a member enters step
 * g+1 of a chain (and issues its sends) as soon as every message step g waits
 * for has arrived and, if it reduced data, its reduction time (gamma x bytes,
 * attribute Collective::ReductionTimePerByte) has elapsed. Messages that arrive
 * before their receiver reached their step are buffered, keyed by (tag, sender).
 * Reductions of one member are serialized on one compute resource (a reduction
 * starts when the previous one of that member ended).
 *
 * The same program yields GetSchedule(): step g of the schedule is every send of
 * step g of every chain of every member, so the analytical twin times exactly
 * the bytes the packet-level run sends. Every ScheduledMessage also carries its
 * chain, its program step g and whether its receiver reduces it: all the
 * dependency-aware twin (AlphaBetaModel::Predict) needs to replay this engine's
 * rule (a send of step g of chain c waits for the receives of steps < g of c).
 *
 * Sizes are split in units: 4 bytes (one float) when bytes is a multiple of 4,
 * otherwise 1 byte; so a virtual run and a real-valued run of the same size send
 * the same messages. Real payloads copy float segments into the message bytes
 * and reduce them with Eigen in the order fixed by the program (deterministic).
 *
 * Left out: memory copies and kernel launch costs (only gamma is modelled),
 * limited buffer slots (a sender never waits for receiver credit), and
 * contention between reductions and communication on the host.
 */
#ifndef MLNET_STEPWISE_COLLECTIVE_H
#define MLNET_STEPWISE_COLLECTIVE_H

#include "ns3/collective.h"

#include <functional>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \brief Base of collectives written as per-member step programs (see file comment).
 *
 * Subclasses write their program either whole (BuildProgram) or one step at a time
 * (ChainLengths and BuildStep, so no whole program is ever held: a run keeps each
 * member's current step of each chain only), and the name getters; they may refine the
 * real-payload buffers through GetInputLength(), MakeWorkBuffer() and
 * FinishMember(), and validate their configuration in ValidateConfig().
 */
class StepwiseCollective : public Collective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    StepwiseCollective();
    ~StepwiseCollective() override;

    /**
     * \brief Bind to a transport and a communicator, validate the algorithm's configuration.
     * Configure the algorithm (attributes, SetRings, SetDims, ...) before Setup.
     */
    void Setup(Ptr<MessageTransport> transport,
               const std::vector<uint32_t>& ranks,
               uint64_t bytes) override;

    std::vector<CollectiveStep> GetSchedule() const override;

    /// A contiguous range of the member's buffer, in units (see GetUnit()).
    struct Segment
    {
        uint64_t offset{0}; //!< first unit
        uint64_t length{0}; //!< units
    };

    /// One message a step sends.
    struct SendOp
    {
        uint32_t to{0}; //!< receiving member
        Segment seg;    //!< sent part of the sender's buffer
    };

    /// One message a step waits for.
    struct RecvOp
    {
        uint32_t from{0};   //!< sending member
        Segment seg;        //!< part of the receiver's buffer it lands in
        bool reduce{false}; //!< add into the buffer (true) or overwrite it (false)
    };

    /// One step of one chain of one member: issue the sends, then wait for the receives.
    struct Step
    {
        std::vector<SendOp> sends; //!< issued when the step is entered
        std::vector<RecvOp> recvs; //!< awaited before the next step

        /// \return units the step's receives add into the buffer (those marked reduce)
        uint64_t ReducedUnits() const
        {
            uint64_t units = 0;
            for (const RecvOp& r : recvs)
            {
                units += r.reduce ? r.seg.length : 0;
            }
            return units;
        }
    };

    /// Chains of one member; chain c must mean the same chain on every member.
    using MemberProgram = std::vector<std::vector<Step>>;
    /// Programs of all members (index = member).
    using Program = std::vector<MemberProgram>;

    /// Where one data packet of the collective sits in the program (see SetPacketTagger).
    struct PacketInfo
    {
        uint32_t fromMember{0}; //!< sending member
        uint32_t toMember{0};   //!< receiving member
        uint32_t chain{0};      //!< chain of the program
        uint32_t step{0};       //!< step of that chain
        Segment seg;            //!< the message's segment of the buffer (units)
        uint32_t unit{4};       //!< bytes per unit
        uint64_t byteOffset{0}; //!< offset of the packet's payload within the message (bytes)
        uint32_t length{0};     //!< payload bytes of the packet
    };

    /// Called for every data packet the collective's messages become.
    using PacketTagger = Callback<void, const PacketInfo&, Ptr<Packet>>;

    /**
     * \brief Label the collective's packets (e.g. with a packet tag naming the
     * phase and chunk, as contrib/checkmate's mirroring switch needs).
     *
     * Set before Start. Works on transports that call MessageTransport's packet
     * hook (UdpMessageTransport); the tagger may add packet tags only.
     */
    void SetPacketTagger(PacketTagger tagger);

    /// Called for every message the collective sends, with its place in the program
    /// (a PacketInfo of the whole message: byteOffset 0, length its bytes) and its real
    /// contents (null for virtual bytes).
    using MessageObserver = Callback<void, const PacketInfo&, const MessageBytes&>;

    /**
     * \brief Watch the collective's messages as they are sent (e.g. contrib/checkmate's
     * mirror at the flow level, where no packet exists to tag).
     *
     * Set before Start. Called just before each message is handed to the transport, on
     * every transport. Messages of more than 4 GiB cannot be described (length is 32
     * bits): sending one throws std::length_error while an observer is set.
     */
    void SetMessageObserver(MessageObserver observer);

    /**
     * \brief The steps of each chain of a member's program (valid after Setup), for a
     * reader that walks the program step by step (the twin's TimelineReplay).
     * \param member the member (index into GetRanks())
     * \return steps per chain (its size is the chains)
     */
    std::vector<uint32_t> GetChainLengths(uint32_t member) const;
    /**
     * \brief Generate one step of a member's program (valid after Setup).
     * \param member the member
     * \param chain the chain
     * \param step the step of that chain
     * \param out set to the step (cleared first)
     */
    void GetStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const;
    /**
     * \brief Count the program's messages, generating its steps one at a time (none
     * kept), up to a limit (valid after Setup).
     * \param limit stop counting once the count exceeds it (at most UINT64_MAX - 1)
     * \return the messages the program sends, or limit + 1 when it sends more
     */
    uint64_t CountMessages(uint64_t limit = UINT64_MAX - 1) const;

    /**
     * \brief Whether member `member` adds the message from member `from` into its
     * buffer in step `step` of chain `chain` (its RecvOp's reduce): the flag of
     * GetSchedule's messages and of the twin's kept timings. The step must exist
     * (GetChainLengths). By default the receiver's step is generated to look; an
     * algorithm whose answer does not depend on the step overrides it (a step of a
     * direct all-to-all holds n - 1 receives).
     */
    virtual bool ReceiveReduces(uint32_t member,
                                uint32_t chain,
                                uint32_t step,
                                uint32_t from) const;

    /**
     * \brief GetSchedule() one step at a time: step g of the schedule is every member's
     * sends of step g of each of its chains (member by member, then chain), with the
     * largest bytes one member reduces in it; steps that send nothing are left out. It
     * holds the members' chain lengths only.
     */
    class ScheduleCursor
    {
    public:
        /**
         * \param program a collective after Setup (it must outlive the cursor)
         * \param reduceFlags fill each ScheduledMessage's reduce (asks the receiver's
         *        step: ReceiveReduces), else leave it false
         */
        ScheduleCursor(const StepwiseCollective& program, bool reduceFlags);
        /**
         * \brief Write the schedule's next step into `out` (cleared first).
         * \return false after the last step (`out` then empty)
         */
        bool Next(CollectiveStep& out);

    private:
        const StepwiseCollective& m_program;
        bool m_reduceFlags;
        std::vector<std::vector<uint32_t>> m_lengths; //!< per member: steps per chain
        uint32_t m_steps{0};                          //!< the longest chain's steps
        uint32_t m_next{0};                           //!< the program step to write next
        Step m_step;                                  //!< scratch
    };

    /// \return bytes per unit: 4 when bytes is a multiple of 4, else 1
    uint32_t GetUnit() const;
    /// \return the size in units
    uint64_t GetUnits() const;

    /**
     * \brief Split a range as evenly as possible into parts (the first ones get one unit more).
     * \param range the range to split
     * \param parts number of parts (> 0)
     * \return the parts, in order
     */
    static std::vector<Segment> Split(Segment range, uint32_t parts);

protected:
    void DoDispose() override;
    void DoStart() override;
    void HandleMessage(const Message& msg) override;

    /// \brief Throw std::invalid_argument when the configuration is impossible.
    virtual void ValidateConfig() const;
    /**
     * \return the algorithm's whole program for the current configuration; by default
     * assembled from ChainLengths() and BuildStep(). Override this or those two.
     */
    virtual Program BuildProgram() const;
    /**
     * \brief Steps of each chain of a member's program (its size is the chains).
     * By default from BuildProgram(), built once and kept: override it with BuildStep()
     * so the program is generated step by step.
     */
    virtual std::vector<uint32_t> ChainLengths(uint32_t member) const;
    /**
     * \brief Write step `step` of chain `chain` of a member's program into `out`
     * (cleared first). By default from the kept BuildProgram().
     */
    virtual void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const;
    /**
     * \brief Units of the program's shortest message (0: one would be empty, which
     * Setup refuses; UINT64_MAX: the program sends nothing). By default every step is
     * generated to find it; an algorithm whose shortest message has a closed form
     * overrides it, so that Setup does not write the program down once more.
     */
    virtual uint64_t ShortestMessageUnits() const;
    /**
     * \brief The program's messages in closed form, for CountMessages (the twin asks it
     * of every collective it predicts). By default UINT64_MAX: unknown, and
     * CountMessages generates the steps to count them; an algorithm whose every step
     * sends a known number of messages overrides it.
     */
    virtual uint64_t MessageCount() const;
    /**
     * \brief MessageCount of a program in which every member has member 0's chains and
     * sends one message in each of their steps (the rings, halving-doubling, the torus
     * and hierarchical all-reduces): N times the sum of ChainLengths(0).
     */
    uint64_t OneSendPerStepCount() const;
    /**
     * \brief Part i of a range split as evenly as possible into parts (Split()[i],
     * without building the others).
     */
    static Segment SplitPart(Segment range, uint32_t parts, uint32_t i);
    /**
     * \brief Parts [first, first + count) of a range split as evenly as possible into
     * parts, joined into one segment (they are contiguous).
     */
    static Segment SplitRange(Segment range, uint32_t parts, uint32_t first, uint32_t count);

    /// The chunks of one step of a ring all-reduce (see RingAllReduceStep).
    struct RingChunks
    {
        uint32_t send{0};   //!< chunk sent to the next position
        uint32_t recv{0};   //!< chunk awaited from the previous position
        bool reduce{false}; //!< added into the buffer (else copied)
    };

    /**
     * \brief Step t (0 <= t < 2 (n - 1)) of a ring all-reduce over n positions, at
     * position pos: it sends chunk (pos - t - 1) mod n to pos + 1 and awaits chunk
     * (pos - t - 2) mod n from pos - 1, adding it for the first n - 1 steps (the
     * reduce-scatter: position pos ends owning chunk pos) and copying it for the last
     * n - 1 (the all-gather). A ring reduce-scatter is steps 0..n-2, a ring all-gather
     * steps n-1..2n-3.
     */
    static RingChunks RingAllReduceStep(uint32_t pos, uint32_t n, uint32_t t);
    /// Visits one step of one chain of one member: member, chain, step, the step;
    /// returns false to stop the walk.
    using StepVisitor = std::function<bool(uint32_t, uint32_t, uint32_t, const Step&)>;
    /**
     * \brief Generate every step of the program, one at a time (BuildStep into one
     * scratch step), member by member, chain by chain, in step order, until the
     * visitor returns false.
     */
    void ForEachStep(const StepVisitor& visit) const;
    /// \return the number of floats member m's input must hold (real payloads)
    virtual uint64_t GetInputLength(uint32_t member) const;
    /// \return the initial buffer of member m (default: its input)
    virtual Eigen::VectorXf MakeWorkBuffer(uint32_t member) const;
    /// \brief Turn member m's buffer into its output (default: the buffer is the output).
    virtual void FinishMember(uint32_t member);
    /**
     * \brief Reduce a received segment into the buffer (real payloads): dst += src by
     * default. Override for packed formats whose 32-bit words are not floats (e.g.
     * two bf16 values or integer lanes per word, see PackedRingAllReduce).
     * \param dst the receiver's buffer segment
     * \param src the received words (dst.size() of them)
     */
    virtual void ReduceSegment(Eigen::Ref<Eigen::VectorXf> dst, const float* src) const;

private:
    void CheckProgram() const;
    /// Load the step at the cursor of member m's chain c, and count its receives not
    /// arrived yet. With virtual payloads the step keeps only the totals of its
    /// receives (the messages that came early are taken then), and one of more than
    /// kKeptOps receives gives their memory back (a direct all-to-all's n - 1).
    void LoadStep(uint32_t m, uint32_t c);
    const Program& WholeProgram() const;
    /// Issue the sends of the loaded step at the cursor of member m's chain c. A step
    /// of more than kKeptOps sends gives their memory back once they are issued (a
    /// direct all-to-all's n - 1 per member: 24 MB at 1024 ranks); a narrower one
    /// keeps the capacity for the next step.
    void EnterStep(uint32_t m, uint32_t c);
    static constexpr size_t kKeptOps = 64; //!< see LoadStep and EnterStep
    void Advance(uint32_t m, uint32_t c);
    void Resume(uint32_t m, uint32_t c);
    void ChainFinished(uint32_t m);
    static uint64_t Key(uint32_t tag, uint32_t fromMember);
    void OnPacket(const Message& msg, uint64_t offset, Ptr<Packet> packet);

    PacketTagger m_tagger;      //!< optional packet labeller
    MessageObserver m_observer; //!< optional message watcher

    /// Where one chain of one member is: one record per chain, so a member holds a
    /// single vector however many things are tracked per chain.
    struct ChainState
    {
        Step current;        //!< the step at the cursor (when loaded)
        uint32_t length{0};  //!< steps in the chain (ChainLengths)
        uint32_t cursor{0};  //!< the current step
        uint32_t missing{0}; //!< receives of the loaded step not arrived yet
        /// Virtual payloads only (nothing but a message's size is read): the loaded
        /// step's bytes to receive, of them to reduce, and the bytes of its messages
        /// taken so far (counted as they arrive, not kept)
        uint64_t expectedBytes{0};
        uint64_t reducedBytes{0};
        uint64_t takenBytes{0};
        bool computing{false}; //!< a reduction of the step before the cursor runs
    };

    mutable Program m_whole;                       //!< BuildProgram(), for the default BuildStep
    mutable bool m_wholeBuilt{false};              //!< m_whole is the current program
    std::vector<std::vector<ChainState>> m_chains; //!< [member][chain]
    Step m_scratch;                                //!< OnPacket's step
    mutable Step m_peer;                           //!< ReceiveReduces' step
    uint32_t m_stride{1};                          //!< tag = chain * stride + step
    std::vector<uint32_t> m_chainsLeft;            //!< per member
    std::vector<Time> m_computeFree;               //!< per member: reductions end

    /// What a step takes from an arrived message (a Message, less its addressing and
    /// times), kept until its step is loaded (virtual payloads: a message for the
    /// loaded step is only counted; a direct all-to-all of 1024 ranks would otherwise
    /// keep a million at once) or completes (real payloads).
    struct Arrived
    {
        uint64_t bytes{0}; //!< application bytes
        MessageBytes data; //!< real contents, or null
    };

    std::vector<std::unordered_map<uint64_t, Arrived>> m_arrived; //!< per member, by Key
    std::unordered_map<uint32_t, uint32_t> m_memberOfRank;        //!< rank -> member

    /// Fires when a member completes a step of a chain: member, chain, step.
    TracedCallback<uint32_t, uint32_t, uint32_t> m_stepTrace;
};

} // namespace ns3

#endif // MLNET_STEPWISE_COLLECTIVE_H
