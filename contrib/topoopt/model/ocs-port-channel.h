// SPDX-License-Identifier: GPL-2.0-only
/*
 * OcsPortChannel: the fibre between one server port and its optical circuit switch.
 *
 * What it models. ns-3's PointToPointNetDevice talks to exactly one
 * PointToPointChannel. Each port of an OpticalCircuitSwitch gets one of these
 * channels with its device attached; the channel hands every frame to the
 * switch, which looks up the port's current circuit and delivers the frame to
 * the peer port's device (or holds or drops it while the port is dark). The
 * devices stay ordinary PointToPointNetDevices, so the internet stack, queue
 * discs and Cluster byte counters work unchanged. The channel's "Delay"
 * attribute mirrors the switch's FibreDelay so tools that read a link's delay
 * from its channel (the alpha-beta twin) see the circuit's delay.
 *
 * What it leaves out: everything optical (that is the switch's business); it
 * is not an L2 bridge (no learning, no broadcast domain: no ARP problems).
 */
#ifndef TOPOOPT_OCS_PORT_CHANNEL_H
#define TOPOOPT_OCS_PORT_CHANNEL_H

#include "ns3/point-to-point-channel.h"

namespace ns3
{

class OpticalCircuitSwitch;

/**
 * \brief The channel of one OCS port: forwards frames to the switch's peer table.
 */
class OcsPortChannel : public PointToPointChannel
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    OcsPortChannel();
    ~OcsPortChannel() override;

    /**
     * \brief Bind the channel to a port of a switch.
     * \param ocs the switch
     * \param port the port index on that switch
     */
    void SetSwitch(Ptr<OpticalCircuitSwitch> ocs, uint32_t port);
    /// \return the port index on the switch
    uint32_t GetPort() const;

    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override;
    /// \return 2: the port's device and its current peer (itself when it has none)
    std::size_t GetNDevices() const override;
    /// \return device 0 = this port's device, 1 = the current peer's (or this port's)
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

protected:
    void DoDispose() override;

private:
    Ptr<OpticalCircuitSwitch> m_switch; //!< the switch (cycle broken in DoDispose)
    uint32_t m_port{0};                 //!< port index on the switch
};

} // namespace ns3

#endif // TOPOOPT_OCS_PORT_CHANNEL_H
