// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of Packetization: W(m) = m + ceil(m/P)*O and F1 = min(m, P) + O against the
 * formula over a sweep of sizes and packetizations, the fluid (real-size) functions
 * against the integer ones, and the errors a user can make.
 */
#include "ns3/message-transport.h"
#include "ns3/packetization.h"

#include <cmath>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

TEST(PacketizationTest, DefaultIsUdpAtMtu9000)
{
    Packetization p;
    EXPECT_EQ(p.GetMaxPayload(), 8972u); // 9000 - 20 (IPv4) - 8 (UDP)
    EXPECT_EQ(p.GetPerPacketOverhead(), 30u);
    EXPECT_EQ(p.GetWireBytes(8973), 8973u + 2 * 30);
}

TEST(PacketizationTest, WireBytesFollowTheFormula)
{
    for (uint32_t payload : {1u, 7u, 1000u, 8948u, 8972u})
    {
        for (uint32_t overhead : {0u, 30u, 54u})
        {
            Packetization p(payload, overhead);
            for (uint64_t m : {uint64_t(0),
                               uint64_t(1),
                               uint64_t(payload) - 1,
                               uint64_t(payload),
                               uint64_t(payload) + 1,
                               3 * uint64_t(payload) + 17,
                               uint64_t(1) << 40})
            {
                // n = ceil(m/P), W(m) = m + n*O, F1 = min(m, P) + O (0 for m = 0)
                uint64_t n = static_cast<uint64_t>(std::ceil(double(m) / payload));
                EXPECT_EQ(p.GetPacketCount(m), n) << m << " B, P = " << payload;
                EXPECT_EQ(p.GetWireBytes(m), m + n * overhead) << m << " B, P = " << payload;
                EXPECT_EQ(p.GetFirstFrameBytes(m),
                          m == 0 ? 0 : std::min<uint64_t>(m, payload) + overhead)
                    << m << " B, P = " << payload;
                // The fluid functions agree on whole sizes (m >= 1).
                if (m > 0)
                {
                    EXPECT_EQ(p.GetFluidPacketCount(double(m)), double(p.GetPacketCount(m)));
                    EXPECT_EQ(p.GetFluidWireBytes(double(m)), double(p.GetWireBytes(m)));
                    EXPECT_EQ(p.GetFluidFirstFrameBytes(double(m)),
                              double(p.GetFirstFrameBytes(m)));
                }
            }
        }
    }
}

TEST(PacketizationTest, FluidSizesNeedNotBeWhole)
{
    Packetization p(1000, 50);
    // A third of 3001 bytes: n = ceil(1000.33/1000) = 2, W = 1000.33 + 2*50.
    const double share = 3001.0 / 3;
    EXPECT_EQ(p.GetFluidPacketCount(share), 2.0);
    EXPECT_DOUBLE_EQ(p.GetFluidWireBytes(share), share + 100.0);
    EXPECT_DOUBLE_EQ(p.GetFluidFirstFrameBytes(share), 1050.0);
    EXPECT_DOUBLE_EQ(p.GetFluidFirstFrameBytes(0.5), 50.5);
    // Not special-cased at 0: the header of an empty first frame.
    EXPECT_DOUBLE_EQ(p.GetFluidFirstFrameBytes(0.0), 50.0);
}

TEST(PacketizationTest, BadInputsThrow)
{
    EXPECT_THROW(Packetization(0, 30), std::invalid_argument);
    EXPECT_THROW(Packetization(Ptr<const MessageTransport>()), std::invalid_argument);
}
