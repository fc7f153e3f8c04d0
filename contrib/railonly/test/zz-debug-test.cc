#include "ns3/alpha-beta-model.h"
#include "ns3/collective-factory.h"
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/llm-training-runner.h"
#include "ns3/training-driver.h"
#include <gtest/gtest.h>
#include <iostream>
using namespace ns3;
TEST(ZzDebug, Compare)
{
    LlmRunOptions o;
    o.model.layers = 4; o.model.hidden = 1024; o.model.seqLength = 512; o.model.microBatches = 4;
    o.model.tp = 8; o.model.pp = 2; o.model.dp = 4;
    std::string fabric = getenv("FAB") ? getenv("FAB") : "rail-only";
    Ptr<Cluster> cluster = LlmTrainingRunner::BuildFabric(o, fabric);
    Ptr<LlmWorkload> w = CreateObject<LlmWorkload>();
    w->Setup(o.model, 64, 8);
    Ptr<MessageTransport> transport = CollectiveRunner::CreateTransport("udp");
    transport->Install(cluster);
    IterationGraph g = w->BuildGraph();
    Ptr<AlphaBetaModel> twin = CreateObject<AlphaBetaModel>();
    twin->SetCluster(cluster);
    twin->SetPacketization(transport);
    auto est = g.Estimate([&](const IterationTask& task) {
        Ptr<Collective> c;
        if (task.kind == TaskKind::SEND) { c = CollectiveFactory::Create("sendrecv", "direct"); c->Setup(transport, {task.rank, task.dst}, task.bytes); }
        else { c = CollectiveFactory::Create(task.collective.collective, task.collective.algorithm); c->Setup(transport, task.collective.ranks, task.collective.bytes); }
        return twin->Predict(c);
    });
    Ptr<TrainingDriver> d = CreateObject<TrainingDriver>();
    d->SetGraph(g); d->SetTransport(transport); d->SetCollectiveCreator(&CollectiveFactory::Create);
    d->Start(); Simulator::Run();
    std::map<uint32_t, TaskRecord> rec;
    for (auto& r : d->GetTaskRecords()) rec[r.task] = r;
    // print per-kind sums of duration diffs and biggest
    std::vector<std::pair<double, uint32_t>> diffs;
    for (auto& [id, r] : rec) {
        double pd = (r.end - r.start).GetSeconds(); double td = (est[id].end - est[id].start).GetSeconds();
        diffs.push_back({pd - td, id});
    }
    std::sort(diffs.rbegin(), diffs.rend());
    for (int i = 0; i < 15; ++i) { auto id = diffs[i].second; auto& t = g.GetTask(id);
      std::cout << t.name << " kind " << TaskKindToString(t.kind) << " pkt " << (rec[id].end-rec[id].start).GetMicroSeconds() << "us twin " << (est[id].end-est[id].start).GetMicroSeconds() << "us; pkt start " << rec[id].start.GetMicroSeconds() << " twin start " << est[id].start.GetMicroSeconds() << "\n"; }
    Simulator::Destroy();
}
