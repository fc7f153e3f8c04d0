// SPDX-License-Identifier: GPL-2.0-only
/*
 * TorusAllReduce: dimension-ordered bidirectional ring all-reduce on a k-ary
 * n-D torus (the "bucket" algorithm; Jain & Sabharwal, ICS 2010; TPU pods).
 *
 * What it models. Members sit on a torus of dims k0 x k1 x ...; member index
 * = x0 + k0*(x1 + k1*(x2 ...)), dimension 0 fastest. The vector is split into two
 * halves that run as two independent flows in opposite directions round every
 * ring. Reduce-scatter runs along dimension 0 rings (k0-1 steps), then along
 * dimension 1 rings on the piece each member now owns (k times smaller), and so
 * on; the all-gather then runs in reverse dimension order. In a ring, position x
 * ends the reduce-scatter owning chunk x whatever the direction, so flows of
 * different directions compose. 2*sum(k_d - 1) steps; each member sends
 * 2(N-1)/N x S bytes in total.
 *
 * Degraded dimensions. When the fabric has no wraparound (FabricSpec::wrap is
 * false, a mesh) every ring of every dimension is a line; when one hop of a ring
 * has failed (every direct rank-to-rank link between two ring neighbours in the
 * Cluster link registry has ClusterLink::failed set) that ring is a line. A line
 * runs both halves in the same (+) direction: one unidirectional logical ring
 * whose wrap message is routed by the fabric over k-1 hops. The decision is
 * per ring, so one failed link degrades only the rings through it.
 *
 * Left out: n concurrent pipelines with rotated dimension order, and choosing
 * the dimension order after a failure (both are alternatives the analytical
 * model discusses); links through switches are not inspected for failures.
 */
#ifndef MLNET_TORUS_ALL_REDUCE_H
#define MLNET_TORUS_ALL_REDUCE_H

#include "ns3/stepwise-collective.h"

namespace ns3
{

/**
 * \brief Dimension-ordered bidirectional all-reduce on a torus or mesh.
 */
class TorusAllReduce : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TorusAllReduce();
    ~TorusAllReduce() override;

    /**
     * \brief Lay the members out on these dims (product = number of members).
     * Empty (default): attribute Dims, else the cluster's FabricSpec dims when
     * its kind is "torus".
     */
    void SetDims(const std::vector<uint32_t>& dims);
    /// \return the dims in use (after Setup)
    std::vector<uint32_t> GetDims() const;
    /**
     * \brief Whether the ring of dimension d through a member runs as a line (unidirectional).
     * Valid after Setup.
     */
    bool IsRingDegraded(uint32_t member, uint32_t dim) const;

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;

protected:
    void ValidateConfig() const override;
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
    /// Closed form: one message per member, half and step.
    uint64_t MessageCount() const override;
    /// \return whether step `step` adds what it receives: the reduce-scatter's
    /// sum(k_d - 1) steps do, the all-gather's do not (without generating the step)
    bool ReceiveReduces(uint32_t member,
                        uint32_t chain,
                        uint32_t step,
                        uint32_t from) const override;

private:
    std::vector<uint32_t> ResolveDims() const;
    bool Wraps() const;
    bool HopFailed(uint32_t memberA, uint32_t memberB) const;
    uint32_t Neighbour(uint32_t member,
                       const std::vector<uint32_t>& dims,
                       uint32_t dim,
                       int32_t delta) const;

    /// Resolve the dims and which rings run as lines, once (at Setup's first step).
    void EnsureLayout() const;

    std::vector<uint32_t> m_dims; //!< SetDims
    std::string m_dimsAttr;       //!< attribute Dims, e.g. "4x2"
    mutable bool m_layoutBuilt{false};
    mutable std::vector<uint32_t> m_layoutDims; //!< ResolveDims(), kept
    mutable std::vector<bool> m_degraded;       //!< [member * dims + d]: IsRingDegraded
    mutable uint32_t m_steps{0};                //!< steps per chain
};

} // namespace ns3

#endif // MLNET_TORUS_ALL_REDUCE_H
