// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the prediction memo (prediction-memo.h): a schedule that is an earlier one
 * under an order-preserving renaming of its ranks and links is answered from it, to
 * the bit of its own replay; a schedule that differs in anything the replay reads
 * (bytes, a route after a failure, an attribute) is replayed; the memo keeps within
 * its bound, oldest forms dropped first, and 0 turns it off.
 */
#include "ns3/alpha-beta-model.h"
#include "ns3/collective-factory.h"
#include "ns3/core-module.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/prediction-memo.h"
#include "ns3/transport-choice.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class PredictionMemoTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        // 32 hosts, radix 8: 8 ToRs of 4 hosts, 4 spines, 100 Gb/s.
        FatTreeHelper ft(32);
        ft.SetRadix(8);
        m_cluster = ft.Install();
        m_transport = TransportChoice::Create("udp"); // its flow keys: hashed paths
        m_transport->Install(m_cluster);
    }

    void TearDown() override
    {
        m_transport = nullptr;
        m_cluster = nullptr;
        Simulator::Destroy();
    }

    /// A model of the cluster with the transport's packetization and flow keys.
    Ptr<AlphaBetaModel> Model(uint64_t memoBytes,
                              AlphaBetaModel::PathChoice choice = AlphaBetaModel::EVEN_SPLIT) const
    {
        Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
        m->SetAttribute("PredictionMemoBytes", UintegerValue(memoBytes));
        m->SetCluster(m_cluster);
        m->SetPacketization(m_transport);
        m->SetPathChoice(choice);
        return m;
    }

    /// A ring all-reduce over one host of every ToR: host `column` of each.
    Ptr<Collective> ColumnRing(uint32_t column, uint64_t bytes) const
    {
        std::vector<uint32_t> ranks;
        for (uint32_t tor = 0; tor < 8; ++tor)
        {
            ranks.push_back(4 * tor + column);
        }
        Ptr<Collective> ring = CollectiveFactory::Create("allreduce", "ring");
        ring->Setup(m_transport, ranks, bytes);
        return ring;
    }

    Ptr<Cluster> m_cluster;
    Ptr<MessageTransport> m_transport;
};

} // namespace

TEST_F(PredictionMemoTest, RenamedSchedulesAreAnsweredToTheBitOfTheirOwnReplay)
{
    // The four column rings, each predicted by a model with the memo and by one
    // without: the same time to the bit, whether it was replayed or answered from an
    // earlier column's form. With even splits over the spines every column is the
    // first one renamed in order (one replay per size); with the flow keys' hashed
    // paths the columns cross different spines and some forms differ (those are
    // replayed). The same collective asked again is always answered.
    for (auto choice : {AlphaBetaModel::EVEN_SPLIT, AlphaBetaModel::PER_FLOW_HASH})
    {
        const bool even = choice == AlphaBetaModel::EVEN_SPLIT;
        SCOPED_TRACE(even ? "even split" : "flow hash");
        Ptr<AlphaBetaModel> memo = Model(64 * 1024 * 1024, choice);
        uint64_t asked = 0;
        for (uint64_t bytes : {64000u, 1000000u})
        {
            for (uint32_t column = 0; column < 4; ++column)
            {
                Ptr<AlphaBetaModel> fresh = Model(0, choice);
                const Time replayed = fresh->Predict(ColumnRing(column, bytes));
                EXPECT_EQ(memo->Predict(ColumnRing(column, bytes)), replayed)
                    << "column " << column << ", " << bytes << " bytes";
                EXPECT_GT(replayed, Time(0));
                EXPECT_EQ(fresh->GetMemoHits() + fresh->GetMemoMisses(), 0u);
                ++asked;
            }
        }
        EXPECT_EQ(memo->GetMemoHits() + memo->GetMemoMisses(), asked);
        if (even)
        {
            EXPECT_EQ(memo->GetMemoMisses(), 2u) << "one replay per size";
        }
        const uint64_t hits = memo->GetMemoHits();
        memo->Predict(ColumnRing(2, 64000));
        EXPECT_EQ(memo->GetMemoHits(), hits + 1);
    }
}

TEST_F(PredictionMemoTest, ProblemsThatDifferInWhatTheReplayReadsAreReplayed)
{
    Ptr<AlphaBetaModel> memo = Model(64 * 1024 * 1024);
    const Time column0 = memo->Predict(ColumnRing(0, 64000));
    ASSERT_EQ(memo->GetMemoMisses(), 1u);

    // Other bytes.
    memo->Predict(ColumnRing(1, 64001));
    EXPECT_EQ(memo->GetMemoMisses(), 2u);

    // A software overhead per message: the same schedule and routes, another problem.
    memo->SetAttribute("PerMessageOverhead", TimeValue(NanoSeconds(500)));
    const Time withOverhead = memo->Predict(ColumnRing(0, 64000));
    EXPECT_EQ(memo->GetMemoMisses(), 3u);
    EXPECT_GT(withOverhead, column0);
    memo->SetAttribute("PerMessageOverhead", TimeValue(Time(0)));
    EXPECT_EQ(memo->Predict(ColumnRing(0, 64000)), column0);
    EXPECT_EQ(memo->GetMemoHits(), 1u);

    // Column 1 is answered from column 0 while the fabric is whole (even splits). Then
    // host 1's ToR loses an uplink, so its flows split over the others: column 1 is
    // replayed, and its time is that of a fresh model's replay.
    const Time column1 = memo->Predict(ColumnRing(1, 64000));
    EXPECT_EQ(column1, column0);
    EXPECT_EQ(memo->GetMemoHits(), 2u);
    const uint32_t host1 = m_cluster->GetRankNode(1)->GetId();
    uint32_t tor = UINT32_MAX;
    for (const ClusterLink& l : m_cluster->GetLinks())
    {
        if (l.nodeA == host1 || l.nodeB == host1)
        {
            tor = l.Peer(host1);
        }
    }
    ASSERT_NE(tor, UINT32_MAX);
    uint32_t uplink = UINT32_MAX;
    for (const ClusterLink& l : m_cluster->GetLinks())
    {
        const uint32_t other = l.nodeA == tor ? l.nodeB : (l.nodeB == tor ? l.nodeA : UINT32_MAX);
        if (other != UINT32_MAX && m_cluster->GetRankOfNode(other) == UINT32_MAX)
        {
            uplink = l.id;
            break;
        }
    }
    ASSERT_NE(uplink, UINT32_MAX);
    m_cluster->FailLink(uplink);
    const uint64_t missesBefore = memo->GetMemoMisses();
    const Time afterFailure = memo->Predict(ColumnRing(1, 64000));
    Ptr<AlphaBetaModel> fresh = Model(0);
    EXPECT_EQ(afterFailure, fresh->Predict(ColumnRing(1, 64000)));
    // Every pair still routes; a route that changed makes another form.
    EXPECT_EQ(memo->GetMemoMisses(), missesBefore + 1);
}

TEST_F(PredictionMemoTest, ALinkDelayIsPartOfTheProblem)
{
    // Host 5 (column 1) gets a longer cable: its ring's latencies change, its routes
    // and capacities do not. It is replayed, not answered from column 0.
    Ptr<AlphaBetaModel> memo = Model(64 * 1024 * 1024);
    const Time column0 = memo->Predict(ColumnRing(0, 64000));
    const uint32_t host5 = m_cluster->GetRankNode(5)->GetId();
    for (const ClusterLink& l : m_cluster->GetLinks())
    {
        if (l.nodeA == host5 || l.nodeB == host5)
        {
            l.devA->GetChannel()->SetAttribute("Delay", TimeValue(MicroSeconds(3)));
        }
    }
    memo->Refresh();
    const Time column1 = memo->Predict(ColumnRing(1, 64000));
    EXPECT_EQ(memo->GetMemoMisses(), 2u);
    EXPECT_GT(column1, column0);
    EXPECT_EQ(column1, Model(0)->Predict(ColumnRing(1, 64000)));
}

TEST_F(PredictionMemoTest, ZeroTurnsTheMemoOffAndTheBoundHoldsTheNewestForms)
{
    Ptr<AlphaBetaModel> off = Model(0);
    off->Predict(ColumnRing(0, 64000));
    off->Predict(ColumnRing(0, 64000));
    EXPECT_EQ(off->GetMemoHits() + off->GetMemoMisses(), 0u);

    // A schedule whose form would take more than 1/16 of the bound is replayed without
    // one. The column ring has 8 x 14 messages in 14 steps: (4 x 112 + 2 x 14 + 16)
    // words, 3936 bytes, so a bound of 16 x 3936 bytes admits it and one byte less
    // does not.
    Ptr<AlphaBetaModel> tight = Model(16 * 3936);
    tight->Predict(ColumnRing(0, 64000));
    tight->Predict(ColumnRing(0, 64000));
    EXPECT_EQ(tight->GetMemoHits(), 1u);
    Ptr<AlphaBetaModel> tiny = Model(16 * 3936 - 1);
    tiny->Predict(ColumnRing(0, 64000));
    tiny->Predict(ColumnRing(0, 64000));
    EXPECT_EQ(tiny->GetMemoHits() + tiny->GetMemoMisses(), 0u);

    // The memo itself: the oldest form goes first, a form is found by its words.
    PredictionMemo m(3 * sizeof(uint64_t));
    auto form = [](std::vector<uint64_t> words) {
        PredictionMemo::Form f;
        f.words = std::move(words);
        f.hash = PredictionMemo::Hash(f.words);
        return f;
    };
    Time t;
    m.Insert(form({1, 2}), NanoSeconds(12));
    EXPECT_TRUE(m.Find(form({1, 2}), t));
    EXPECT_EQ(t, NanoSeconds(12));
    EXPECT_FALSE(m.Find(form({2, 1}), t));
    m.Insert(form({3}), NanoSeconds(3));
    EXPECT_EQ(m.GetBytes(), 3 * sizeof(uint64_t));
    m.Insert(form({4}), NanoSeconds(4)); // {1, 2} is dropped to make room
    EXPECT_FALSE(m.Find(form({1, 2}), t));
    EXPECT_TRUE(m.Find(form({3}), t));
    EXPECT_EQ(t, NanoSeconds(3));
    EXPECT_TRUE(m.Find(form({4}), t));
    m.Insert(form({5, 6, 7, 8}), NanoSeconds(5)); // larger than the bound: not kept
    EXPECT_FALSE(m.Find(form({5, 6, 7, 8}), t));
    EXPECT_EQ(m.GetHits(), 3u);
    EXPECT_EQ(m.GetMisses(), 3u);
    // Equal hashes are told apart by their words.
    PredictionMemo::Form a = form({9});
    PredictionMemo::Form b = form({10});
    b.hash = a.hash;
    m.Insert(std::move(a), NanoSeconds(9));
    EXPECT_FALSE(m.Find(b, t));
}
