// SPDX-License-Identifier: GPL-2.0-only
/*
 * LlmIterationModel: closed-form iteration time of an LlmWorkload (Megatron-LM
 * TP/PP/DP, optional MoE) on a rail fabric, the analytical number printed beside
 * every packet-level run.
 *
 * What it models (Narayanan et al., SC'21, and the rail-only paper's forwarding
 * argument; every communication term is alpha-beta with the transport's
 * packetization, the twin's Packetization: a message of x bytes puts
 * W(x) = x + ceil(x/P)*O wire bytes on a link and needs (W + (h-1)*F1)*8/R + h*d
 * over h store-and-forward hops; x is a share of a total and need not be whole):
 *  - compute: Megatron's 72*B*s*l*h^2*(1 + s/(6h) + V/(12lh)) FLOPs at the workload's
 *    sustained FLOP/s, split into per-stage forward (F_s) and backward (B_s = 2 F_s)
 *    micro-batch slots;
 *  - TP: per layer and micro-batch 4 ring all-reduces of b*s*h elements (2 in MoE
 *    layers) over NVLink, 2(t-1) steps of n/t;
 *  - PP: per micro-batch and stage boundary a b*s*h/t send over the NIC and a TP
 *    all-gather, forward and backward;
 *  - pipeline: (m-1)*max_s(F_s+B_s) + sum_s(F_s+B_s) + 2(p-1)*T_pp, i.e. the
 *    (p-1)/m bubble of 1F1B/GPipe (bubble_s reports (p-1) slots);
 *  - DP: the hierarchical ring all-reduce of stage 0's gradients after the pipeline
 *    drains (no overlap with backward, as the workload's graph);
 *  - MoE all-to-all (4 per MoE layer and micro-batch, over a stage of G GPUs, c per
 *    HB domain, Dg domains, m bytes per pair): a flat all-to-all is NIC-bound,
 *    (G-c)*m over the NIC; the two-phase one adds the HB shuffle (c-1)*Dg*m over
 *    NVLink before the (Dg-1)*c*m rail phase. Its overhead over flat is
 *    (c-1)*Dg/(c*(Dg-1)) * B_n/B_h, the reference's (B_n/B_h)*N/(N-K) up to (K-1)/K.
 *    HbBidirectional counts B_h as both directions of NVLink (the paper's earlier
 *    version) instead of one.
 *
 * What it leaves out: contention between concurrent collectives of different groups,
 * queueing, failures (a failed rail is seen only at packet level and by the twin),
 * multi-tier rails' extra hops beyond NicHops.
 */
#ifndef RAILONLY_LLM_ITERATION_MODEL_H
#define RAILONLY_LLM_ITERATION_MODEL_H

#include "ns3/data-rate.h"
#include "ns3/llm-workload.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packetization.h"
#include "ns3/traced-callback.h"

#include <nlohmann/json.hpp>

namespace ns3
{

/**
 * \brief Terms of one closed-form iteration estimate (seconds).
 */
struct LlmIterationEstimate
{
    double computeS{0};           //!< FLOP count / (N * sustained FLOP/s)
    double pipelineS{0};          //!< pipeline phase incl. bubble, TP, PP and MoE communication
    double bubbleS{0};            //!< (p-1) micro-batch slots of the slowest stage
    double tpS{0};                //!< TP all-reduce time on the critical path
    double ppS{0};                //!< PP hop time on the critical path
    double dpS{0};                //!< exposed DP all-reduce
    double moeS{0};               //!< MoE all-to-all time on the critical path
    double moeAllToAllS{0};       //!< one MoE all-to-all as configured (0 when dense)
    double moeFlatAllToAllS{0};   //!< the same all-to-all flat (rail-optimized baseline)
    double moeOverhead{0};        //!< moeAllToAllS / moeFlatAllToAllS - 1
    double moeOverheadFormula{0}; //!< (B_n/B_h) * N/(N-K) with N = G, K = c
    double totalS{0};             //!< pipelineS + dpS

    /// \return the terms as a JSON object (keys as the members, snake_case)
    nlohmann::json ToJson() const;
};

/**
 * \brief Closed-form Megatron iteration time on HB domains + rails (see file comment).
 */
class LlmIterationModel : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Signature of the Estimated trace.
    typedef void (*EstimatedTracedCallback)(const LlmIterationEstimate& estimate);

    LlmIterationModel();
    ~LlmIterationModel() override;

    /**
     * \brief Set the packetization (as AlphaBetaModel::SetPacketization).
     * \param maxPayload application bytes per packet (> 0; throws std::invalid_argument)
     * \param overhead wire bytes added per packet
     */
    void SetPacketization(uint32_t maxPayload, uint32_t overhead);
    /// \brief Set the packetization (the twin's Packetization, e.g. built from a transport).
    void SetPacketization(const Packetization& packetization);

    /// \return the closed-form estimate of one iteration of `workload`
    LlmIterationEstimate Estimate(Ptr<const LlmWorkload> workload) const;

    /// \return time of an x-byte message over h hops of rate R, delay d
    double MessageTime(double bytes, uint32_t hops, double rateBps, double delay) const;
    /// \return one all-to-all of m bytes per pair over G GPUs, c per domain (flat or two-phase)
    double AllToAllTime(uint32_t groupSize, uint32_t perDomain, double m, bool hierarchical) const;
    /// \return B_h in bit/s as counted (HbRate, or twice it with HbBidirectional)
    double GetHbBps() const;

protected:
    void DoDispose() override;

private:
    double RingAllReduceHb(uint32_t n, double bytes) const;
    double RingAllReduceNic(uint32_t n, double bytes) const;

    DataRate m_hbRate{"3600Gbps"};
    DataRate m_nicRate{"400Gbps"};
    Time m_hbDelay{NanoSeconds(25)};
    Time m_nicDelay{NanoSeconds(500)};
    uint32_t m_nicHops{2};
    bool m_hbBidirectional{false};
    Packetization m_packetization; //!< P, O (the twin's; UDP at MTU 9000 by default)
    TracedCallback<const LlmIterationEstimate&> m_estimatedTrace;
};

} // namespace ns3

#endif // RAILONLY_LLM_ITERATION_MODEL_H
