// SPDX-License-Identifier: GPL-2.0-only
// My scenario: one collective (default: pairwise all-to-all of 4 MiB per rank) across
// 16 GPUs on a 2-tier fat-tree whose ToRs may be oversubscribed, at packet level and
// with the alpha-beta twin beside it.
#include "ns3/core-module.h"
#include "ns3/mlnet-module.h"

#include <exception>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t ranks = 16;
    std::string bytes = "4MiB";
    std::string collective = "alltoall";
    std::string algorithm = "pairwise";
    double oversubscription = 1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("ranks", "GPUs in the job", ranks);
    cmd.AddValue("bytes", "bytes per rank", bytes);
    cmd.AddValue("collective", "allreduce | alltoall | allgather | ...", collective);
    cmd.AddValue("algorithm", "ring | hd | pairwise | direct | ...", algorithm);
    cmd.AddValue("oversubscription", "ToR down:up bandwidth ratio", oversubscription);
    cmd.Parse(argc, argv);

    try
    {
        FatTreeHelper fabric(ranks);
        fabric.SetLinkRate(DataRate("100Gbps"));
        fabric.SetOversubscription(oversubscription);
        Ptr<Cluster> cluster = fabric.Install();

        CollectiveRunOptions run;
        run.collective = collective;
        run.algorithm = algorithm;
        run.bytes = bytes;
        CollectiveRunResult r = CollectiveRunner::Run(cluster, run);

        std::cout << collective << "/" << algorithm << " of " << bytes << " on " << ranks
                  << " ranks: " << r.simulatedS * 1e3 << " ms packet-level, " << r.analyticalS * 1e3
                  << " ms alpha-beta\n";
        Simulator::Destroy();
    }
    catch (const std::exception& e)
    {
        // A user mistake (bad size, unknown collective): one line, non-zero exit.
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
