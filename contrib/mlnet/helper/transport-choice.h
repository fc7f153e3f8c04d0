// SPDX-License-Identifier: GPL-2.0-only
/*
 * TransportChoice: the --transport rule of every scenario -- its names, its help text,
 * the transport each name makes, and what a name implies for the fabric.
 *
 *   roce   RoceMessageTransport: queue pairs paced by DCQCN, over a lossless fabric:
 *          choosing it turns on priority flow control (Lossless) and the switches' ECN
 *          marking (SwitchEcn) and needs the fast data path (NeedsFast). The default of
 *          the training scenarios, as real clusters run RoCEv2.
 *   udp    UdpMessageTransport: line rate, NACK/probe repair, no congestion control
 *          (clean alpha-beta validation on uncontended fabrics)
 *   tcp    TcpMessageTransport with NewReno (IPv4 data path)
 *   dctcp  TcpMessageTransport with TcpDctcp (IPv4 data path); switches mark ECN:
 *          choosing it turns on the switches' RED-ECN marking unless --ecn=false is
 *          given explicitly (SwitchEcn)
 *
 * The data path each needs is DataPathChoice's rule (NeedsIpv4: tcp and dctcp;
 * NeedsFast: roce).
 * Left out: transports of other modules (they add their names here).
 */
#ifndef MLNET_TRANSPORT_CHOICE_H
#define MLNET_TRANSPORT_CHOICE_H

#include "ns3/message-transport.h"
#include "ns3/ptr.h"
#include "ns3/run-level.h"
#include "ns3/scenario-command-line.h"

#include <string>
#include <vector>

namespace ns3
{

struct FabricRequest;

/**
 * \brief The --transport flag: roce | udp | tcp | dctcp, the transport it makes and the
 * fabric settings it implies.
 */
class TransportChoice
{
public:
    /// \return the accepted names: roce, udp, tcp, dctcp
    static const std::vector<std::string>& Names();
    /// \return the flag's help text
    static std::string Help();
    /// \brief Register --transport on `cmd`, stored in `value`.
    static void AddToCommandLine(ScenarioCommandLine& cmd, std::string& value);
    /// \brief Throw std::invalid_argument naming --transport unless `name` is one of Names().
    static void Check(const std::string& name);
    /**
     * \brief Make the transport a name stands for (not yet installed). Throws
     * std::invalid_argument naming the valid names for another name.
     */
    static Ptr<MessageTransport> Create(const std::string& name);
    /**
     * \brief Make the transport of a name at a run level: at the flow level a
     * FluidMessageTransport standing in for it (its packetization and flow keys, no
     * packets); otherwise Create(name).
     */
    static Ptr<MessageTransport> Create(const std::string& name, RunLevel level);
    /// \return true when the transport runs on the IPv4 data path only (tcp, dctcp)
    static bool NeedsIpv4(const std::string& name);
    /// \return true when the transport runs on the fast data path only (roce)
    static bool NeedsFast(const std::string& name);
    /// \return true when the transport expects a lossless fabric: PFC on (roce)
    static bool Lossless(const std::string& name);
    /**
     * \brief Whether switches mark ECN for a run: dctcp (RED) and roce (EcnMarker, for
     * DCQCN) turn it on unless --ecn=false was given; otherwise the --ecn flag decides.
     * \param transport the run's transport
     * \param ecnFlag the value of --ecn (false where a scenario has no such flag)
     * \param ecnGiven true when --ecn was given on the command line
     * \return true when the switches mark
     */
    static bool SwitchEcn(const std::string& transport,
                          bool ecnFlag = false,
                          bool ecnGiven = false);
    /**
     * \brief Set the switch ECN marking (SwitchEcn) and PFC of a fabric request whose
     * data path is set: what `transport` implies (marking for dctcp and roce, PFC for
     * roce, the lossless transport) unless the flag was given, and what the flags ask.
     * A fabric without devices (data path "none", the flow level's) gets no marking (no
     * queue to mark) and records PFC (FabricSpec::lossless: its full ports hold back
     * instead of dropping, which the fluid reads). An explicit --ecn or --pfc keeps the
     * devices (DataPathChoice::Resolve).
     * \param ecnFlag, ecnGiven the value of --ecn and whether it was given
     * \param pfcFlag, pfcGiven the value of --pfc and whether it was given
     */
    static void SetFabricFeatures(const std::string& transport,
                                  FabricRequest& request,
                                  bool ecnFlag = false,
                                  bool ecnGiven = false,
                                  bool pfcFlag = false,
                                  bool pfcGiven = false);
};

} // namespace ns3

#endif // MLNET_TRANSPORT_CHOICE_H
