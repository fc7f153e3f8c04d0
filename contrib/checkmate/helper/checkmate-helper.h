// SPDX-License-Identifier: GPL-2.0-only
/*
 * CheckmateHelper: wires Checkmate onto a training job running on an mlnet
 * Cluster (ideal switch or fat-tree): a GradientMirror on every switch, the
 * shadow nodes (ShadowCluster, one ShadowNode per shadow rank), and a packet
 * tagger on every all-reduce of the job's DataParallelTrainer that labels its
 * packets with GradientTag (job, iteration, bucket, ring, phase, step, chunk,
 * byte range).
 *
 * The shadows are ranks of the Cluster that take no part in training (e.g. the
 * last ranks of an IdealSwitchHelper or FatTreeHelper built with N + Sh ranks),
 * so they are addressed and routed like any host. A mirror acts only on packets
 * entering the fabric at its switch, so each packet is cloned once. It works on
 * both data paths (FabricHelper::SetDataPath): the mirrors and shadows find the
 * IPv4 stack or the fast path's FastForwarding on their nodes.
 *
 * At the flow level (a FluidMessageTransport) one FluidGradientMirror stands for
 * the switches' mirrors: the all-reduce reports each message with its tag, and the
 * mirror copies the selected ones from the sender's switch to their shadow.
 */
#ifndef CHECKMATE_HELPER_H
#define CHECKMATE_HELPER_H

#include "ns3/cluster.h"
#include "ns3/data-parallel-trainer.h"
#include "ns3/fluid-gradient-mirror.h"
#include "ns3/gradient-mirror.h"
#include "ns3/message-transport.h"
#include "ns3/object-factory.h"
#include "ns3/shadow-cluster.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Installs gradient tagging, mirroring switches and shadow nodes.
 */
class CheckmateHelper
{
public:
    CheckmateHelper();

    /**
     * \brief Set an attribute of every GradientMirror (e.g. "Mode"), and of the flow
     * level's FluidGradientMirror, which has the same attributes.
     */
    void SetMirrorAttribute(const std::string& name, const AttributeValue& value);
    /// \brief Set an attribute of every ShadowNode (e.g. "MemoryBandwidth").
    void SetShadowAttribute(const std::string& name, const AttributeValue& value);
    /// \brief Job number written into the tags (default 0).
    void SetJob(uint32_t job);

    /**
     * \brief Install Checkmate on a job.
     * \param trainer the job (Setup done, not yet running)
     * \param transport its transport: one that calls the packet hook (UdpMessageTransport)
     *        or, at the flow level, a FluidMessageTransport
     * \param shadows ranks of the shadow nodes (not workers)
     * \return the shadow cluster
     * Throws std::invalid_argument for bad configurations (see ShadowCluster::Install).
     */
    Ptr<ShadowCluster> Install(Ptr<DataParallelTrainer> trainer,
                               Ptr<MessageTransport> transport,
                               const std::vector<uint32_t>& shadows);

    /// \return the mirrors installed (one per switch; none at the flow level)
    const std::vector<Ptr<GradientMirror>>& GetMirrors() const;
    /// \return the flow level's mirror (null at the packet level)
    Ptr<FluidGradientMirror> GetFluidMirror() const;
    /// \return gradient bytes cloned by all mirrors (or copied, at the flow level)
    uint64_t GetMirroredBytes() const;

private:
    /// The flow level: one mirror for the fabric, the all-reduce's messages reported to it.
    void InstallFluid(Ptr<DataParallelTrainer> trainer,
                      Ptr<FluidMessageTransport> transport,
                      Ptr<ShadowCluster> sc,
                      const std::vector<uint32_t>& shadows);

    ObjectFactory m_mirrorFactory;
    ObjectFactory m_fluidMirrorFactory;
    Ptr<FluidGradientMirror> m_fluidMirror;
    ObjectFactory m_shadowFactory;
    uint32_t m_job{0};
    std::vector<Ptr<GradientMirror>> m_mirrors;
};

} // namespace ns3

#endif // CHECKMATE_HELPER_H
